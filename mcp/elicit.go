package mcp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// askTimeout bounds how long a form may stay on the person's screen: past
// it, the question stays open and the pause holds, as for a cancel.
var askTimeout = 15 * time.Minute

// The form's fields, and the decisions that are not an option.
const (
	fieldDecision = "decision"
	fieldText     = "text"
	fieldName     = "name"
	decideReject  = "reject"
	decideDrop    = "drop"
)

// formsOf reports whether the client of ss declared form elicitation: an
// elicitation capability that is empty (the older form of it) or names
// forms.
func formsOf(ss *sdk.ServerSession) bool {
	if ss == nil || ss.InitializeParams() == nil || ss.InitializeParams().Capabilities == nil {
		return false
	}
	el := ss.InitializeParams().Capabilities.Elicitation
	return el != nil && (el.Form != nil || el.URL == nil)
}

// clientName is the name the client gave, for answered_by when the form's
// name field is empty.
func clientName(ss *sdk.ServerSession) string {
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		return p.ClientInfo.Name
	}
	return ""
}

// ask shows the person the form of the paused question out holds. A
// client of the protocol before multi round-trip requests (SEP-2322) is
// asked here, and settle reads its answer at once. A later one is given
// the form as an input request, with the question's id, signed, as the
// request state: it shows the form and calls again with the answer, which
// answered reads. It returns the result to send instead of out, if any.
func (t *tools) ask(ctx context.Context, ss *sdk.ServerSession, eng *engine.Engine, out *RaiseOutput) *sdk.CallToolResult {
	form := &sdk.ElicitParams{Mode: "form", Message: formMessage(eng, out.Question), RequestedSchema: formSchema(out.Question)}
	if multiRoundTrip(ss) {
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{fieldDecision: form}, RequestState: t.sign(out.QID, out.Question.Fingerprint)}
	}
	actx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	res, err := ss.Elicit(actx, form)
	t.settle(ctx, ss, eng, out, res, err)
	return nil
}

// answered is the call again of a client that showed the form: what the
// person answered settles the question the request state names, by its
// fingerprint, under whatever id it has now; none (a merge, a branch
// switch or an edit changed it) is a tool error.
func (t *tools) answered(ctx context.Context, req *sdk.CallToolRequest, eng *engine.Engine) (RaiseOutput, error) {
	id, fp, ok := t.verify(req.Params.RequestState)
	if !ok {
		return RaiseOutput{}, t.fail("question raise", mdstore.Errorf(engine.ErrBadArgs, "the form's request state is not one this server made").
			Hint("raise the question again; an answer to a form of another run is not taken"))
	}
	q, err := eng.GetByFingerprint(id, fp)
	if err != nil {
		return RaiseOutput{}, t.fail("question raise", err)
	}
	out := RaiseOutput{QID: q.QID, Outcome: engine.Paused, Question: q}
	res, _ := req.Params.InputResponses[fieldDecision].(*sdk.ElicitResult)
	var rerr error
	if res == nil {
		rerr = errors.New("no answer to the form came back")
	}
	t.settle(ctx, req.Session, eng, &out, res, rerr)
	return out, nil
}

// multiRoundTrip reports whether the client of ss speaks a protocol with
// multi round-trip requests, where a server may not send a request of its
// own while it serves one.
func multiRoundTrip(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// settle resolves the question out holds with the person's answer to its
// form (res), through the same transaction as state resolve. Only an
// accepted form with a decision (and the words it needs), or a decline,
// resolves it; anything else (a cancel, an empty form, an error, an answer
// the engine refuses) leaves it open and the pause held, out.Asked saying
// why. out's outcome is the question's status afterwards, paused while open.
func (t *tools) settle(ctx context.Context, ss *sdk.ServerSession, eng *engine.Engine, out *RaiseOutput, res *sdk.ElicitResult, err error) {
	fp := out.Question.Fingerprint // the question of the form, whatever id a merge gives it meanwhile
	defer func() {
		if now, err := eng.GetByFingerprint(out.QID, fp); err == nil {
			out.QID, out.Question = now.QID, now
		}
		if out.Outcome = engine.Paused; out.Question.Status != question.StatusOpen {
			out.Outcome = out.Question.Status
		}
	}()
	if err != nil {
		out.Asked = "failed: " + err.Error() + "; the question stays open"
		return
	}
	by := clientName(ss)
	var r engine.Resolution
	switch res.Action {
	case "accept":
		var why string
		if r, why = decision(out.Question, res.Content); why != "" {
			out.Asked = "empty: " + why + "; the question stays open"
			return
		}
		if name, _ := res.Content[fieldName].(string); strings.TrimSpace(name) != "" {
			by = strings.Join(strings.Fields(name), " ") // answered_by is one line
		}
	case "decline":
		who := by
		if who == "" {
			who = "the client"
		}
		r = engine.Resolution{Kind: question.StatusRejected, Text: "declined in " + who + ": the person did not approve"}
	default: // cancel, or what a later version adds
		out.Asked = "cancelled: the person closed the form without answering; the question stays open"
		return
	}
	r.QID, r.Via, r.Fingerprint = out.QID, ViaElicitation, fp
	done, err := eng.Resolve(context.WithoutCancel(ctx), []engine.Resolution{r}, by)
	if err != nil {
		out.Asked = "refused: " + t.opts.Describe("state resolve", err).Line + "; the question stays open"
		return
	}
	out.Asked = map[string]string{"accept": "accepted", "decline": "declined"}[res.Action]
	out.Warnings = append(out.Warnings, done.Warnings...)
	out.NextAction = done.Resolved[0].NextAction
}

// sign is the request state that names the question of id and
// fingerprint fp: "id.fp.mac", the MAC caplink makes, under the server's
// key, which changes every run (docs/mcp.md).
func (t *tools) sign(id, fp string) string {
	return id + "." + fp + "." + caplink.Key(t.key).MAC("mcp-form", id, fp)
}

// verify returns the question id and fingerprint a request state this
// server made names.
func (t *tools) verify(state string) (id, fp string, ok bool) {
	id, rest, ok1 := strings.Cut(state, ".")
	fp, mac, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || fp == "" || !caplink.Key(t.key).Valid(mac, "mcp-form", id, fp) {
		return "", "", false
	}
	return id, fp, true
}

// decision reads an accepted form: the resolution it asks for, or why it
// asks for none.
func decision(q question.Question, content map[string]any) (engine.Resolution, string) {
	pick, _ := content[fieldDecision].(string)
	text, _ := content[fieldText].(string)
	words := strings.TrimSpace(text) != ""
	switch pick {
	case "":
		return engine.Resolution{}, "no decision was given"
	case decideReject, decideDrop:
		if !words {
			return engine.Resolution{}, pick + " needs a reason"
		}
		kind := question.StatusRejected
		if pick == decideDrop {
			kind = question.StatusDropped
		}
		return engine.Resolution{Kind: kind, Text: text}, ""
	}
	n, err := strconv.Atoi(pick)
	if err != nil || n < 1 || n > len(q.Options) {
		return engine.Resolution{}, "the decision " + strconv.Quote(pick) + " is no option"
	}
	if question.IsEscapeHatch(q.Options[n-1]) {
		if !words {
			return engine.Resolution{}, "\"" + q.Options[n-1] + "\" needs the answer in words"
		}
		return engine.Resolution{Kind: question.StatusAnswered, Text: text}, ""
	}
	return engine.Resolution{Kind: question.StatusAnswered, Text: pick}, ""
}

// formMessage is the question as questions show prints it, without the
// command line's resolve line: the form is how to answer.
func formMessage(eng *engine.Engine, q question.Question) string {
	text := q.Text(eng.Now())
	if i := strings.LastIndex(text, "\nresolve: "); i >= 0 {
		text = text[:i+1]
	}
	return text
}

// formSchema is the form: the options (the recommended first, as it is
// marked), reject and drop; the words the escape hatch, a reject or a drop
// needs; and a name.
func formSchema(q question.Question) *jsonschema.Schema {
	var choices []*jsonschema.Schema
	hatch := ""
	for i, o := range q.Options {
		choices = append(choices, &jsonschema.Schema{Const: jsonschema.Ptr[any](strconv.Itoa(i + 1)), Title: strconv.Itoa(i+1) + ". " + o})
		if question.IsEscapeHatch(o) {
			hatch = "For \"" + o + "\": your answer. "
		}
	}
	choices = append(choices,
		&jsonschema.Schema{Const: jsonschema.Ptr[any](decideReject), Title: "Reject: send it back to be re-scoped (say why below)"},
		&jsonschema.Schema{Const: jsonschema.Ptr[any](decideDrop), Title: "Drop: not needed (say why below)"})
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			fieldDecision: {Type: "string", Title: "Your decision", OneOf: choices},
			fieldText:     {Type: "string", Title: "Your words", Description: hatch + "For reject or drop: the reason."},
			fieldName:     {Type: "string", Title: "Your name", Description: "recorded as who answered"},
		},
		PropertyOrder: []string{fieldDecision, fieldText, fieldName},
		Required:      []string{fieldDecision},
	}
}
