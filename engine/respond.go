package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// respondResult is what one response to a routed question did.
type respondResult struct {
	q         question.Question // the question as it now reads: open, or final
	response  question.Response // the response recorded, or the identical one already there
	unchanged bool              // nothing was written: an identical response, or a re-run
}

// validateResponse checks a resolution by by of the routed question q (in
// block b): by is one of its responders, and the response is valid for the
// question; a final question takes again only a responder's own identical
// response (an identical re-run, in a batch as alone), and anything else is a
// conflict, as for any final question. It returns the values the response
// gives (resolvedValues).
func (e *Engine) validateResponse(b *mdstore.Block, q question.Question, it Resolution, by string, where string) (resolution, error) {
	rt, err := q.Routing()
	if err != nil {
		return resolution{}, fmt.Errorf("%s: %w", where, err)
	}
	by, err = config.CleanText("the responder's name", by)
	if err != nil {
		return resolution{}, err
	}
	if by = strings.TrimSpace(by); by == "" || strings.ContainsAny(by, ",\n") {
		return resolution{}, mdstore.Errorf(ErrBadArgs, "%s: responder %q: a responder's name is one line, without commas", where, question.Brief(by))
	}
	who, ok := rt.Responder(by)
	if !ok {
		return resolution{}, mdstore.Errorf(ErrBadArgs, "%s: %s is not a responder of this question: it is routed to %s", where, mdstore.OneLine(by), strings.Join(rt.Route, ", ")).
			Hint("only the people a question is routed to answer it (anyone, when its route holds owner or any)").
			Fix(RespondAs, e.ResolveCommand(q))
	}
	want, err := e.resolvedValues(b, resolution{kind: it.Kind, text: it.Text})
	if q.Status == question.StatusOpen {
		if err != nil {
			return want, fmt.Errorf("%s: %w", where, err)
		}
		return want, nil
	}
	if i := rt.Find(who); err == nil && i >= 0 && responseOf(who, it.Kind, want).Same(rt.Responses[i]) {
		return want, nil
	}
	return want, mdstore.WithHint(mdstore.Errorf(ErrConflict, "%s is already %s (%q), not open", where, q.Status, question.Brief(b.Value("answer"))),
		"a final question is not resolved again; raise a new question if the decision changed")
}

func responseOf(who, kind string, r resolution) question.Response {
	return question.Response{By: who, Status: kind, Choice: r.choice, Answer: r.text}
}

// respond records a response of by to the routed question q, which
// validateResponse accepted, and makes the question final when its
// strategy says so: then the final status, answer and choice are written as
// any resolution writes them, with answered_by naming who decided. A
// different response from someone who has responded replaces theirs (it
// moves to the end: the list is in the order of the latest responses); an
// identical one writes nothing. While the question stays open, state.md
// keeps its pause and gets only a Log line. rv is the response's values,
// as validateResponse computed them.
func (e *Engine) respond(f *Files, q question.Question, rv resolution, it Resolution, by string) (respondResult, error) {
	rt, err := q.Routing()
	if err != nil {
		return respondResult{}, err
	}
	who, _ := rt.Responder(strings.TrimSpace(by)) // validateResponse checked it
	resp := responseOf(who, it.Kind, rv)
	resp.At = e.timestamp()
	i := rt.Find(who)
	if q.Status != question.StatusOpen || i >= 0 && resp.Same(rt.Responses[i]) {
		if q.Status != question.StatusOpen {
			e.completeDecision(f, q.QID)
		}
		return respondResult{q: q, response: rt.Responses[i], unchanged: true}, nil
	}
	rt.Responses = slices.Clone(rt.Responses)
	if i >= 0 {
		rt.Responses = slices.Delete(rt.Responses, i, i+1)
	}
	rt.Responses = append(rt.Responses, resp)
	if err := f.Questions.Set(q.QID, mdstore.KV{Key: "responses", Value: question.EncodeResponses(rt.Responses)}); err != nil {
		return respondResult{}, err
	}
	v := rt.Outcome()
	if !v.Final {
		open := question.FromBlock(f.Questions.Find(q.QID), e.Now())
		f.State.AppendLog(e.LogLine(f.State, "response to "+q.QID+": "+who+" "+it.Kind+"; "+open.Progress))
		return respondResult{q: open, response: resp}, nil
	}
	Final, err := e.answer(f, q.QID, resolution{kind: v.Status, text: v.Text, choice: v.Choice, via: it.Via}, strings.Join(v.By, ", "), "")
	if err != nil {
		return respondResult{}, err
	}
	Final.FillRouting()
	return respondResult{q: Final, response: resp}, nil
}
