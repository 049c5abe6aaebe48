package engine

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// Resolution is one answer, drop or reject, from the command line or a batch.
type Resolution struct {
	QID  string
	Kind string // StatusAnswered, StatusDropped or StatusRejected
	Text string
	Line int // line in the batch, 0 for the command line
}

// Resolved reports one applied resolution.
type Resolved struct {
	QID          string `json:"qid"`
	Status       string `json:"status"`
	Choice       *int   `json:"choice"`
	Answer       string `json:"answer"`
	StateUpdated bool   `json:"state_updated"`
	Unchanged    bool   `json:"unchanged,omitempty"` // an identical re-run
	NextAction   string `json:"next_action,omitempty"`
}

// ResolveResult is what `state resolve` reports.
type ResolveResult struct {
	Resolved []Resolved `json:"resolved"`
	Warnings []string   `json:"warnings"`
}

type resolution struct {
	kind, text string
	choice     int
}

// eventOf is the notify event of a final status.
var eventOf = map[string]string{StatusAnswered: "resolved", StatusDropped: "dropped", StatusRejected: "rejected"}

// Resolve applies resolutions under one lock. A batch is validated whole
// before anything is applied, and its errors are exit-7 errors naming the
// line; a single resolution that repeats one already applied succeeds and
// completes what a crash left undone.
func (e *Engine) Resolve(ctx context.Context, items []Resolution, by string, batch bool) (*ResolveResult, error) {
	where := func(it Resolution) string {
		if batch {
			return fmt.Sprintf("batch line %d: %s", it.Line, it.QID)
		}
		return it.QID
	}
	seen := map[string]int{}
	for i, it := range items {
		if err := checkQID(it.QID); err != nil {
			if batch {
				return nil, fmt.Errorf("batch line %d: %w", it.Line, err)
			}
			return nil, err
		}
		what := map[string]string{StatusAnswered: "answer", StatusDropped: "drop reason", StatusRejected: "reject feedback"}[it.Kind]
		text, err := cleanText(what, it.Text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where(it), err)
		}
		if blank(text) {
			return nil, mdstore.WithHint(fmt.Errorf("%s: empty %s: %w", where(it), what, ErrBadArgs),
				"an empty answer is never approval; give the answer, or --drop/--reject with a reason")
		}
		items[i].Text = text
		if prev, dup := seen[it.QID]; dup && batch {
			return nil, fmt.Errorf("%s: also on line %d: %w", where(it), prev, ErrBadArgs)
		}
		seen[it.QID] = it.Line
	}
	if by == "" {
		by = e.Actor
	}
	res := &ResolveResult{Resolved: []Resolved{}, Warnings: []string{}}
	var fired []Question
	err := e.transact(ctx, func(f *files) error {
		res.Resolved, res.Warnings, fired = res.Resolved[:0], res.Warnings[:0], fired[:0]
		// Validate everything against the file before changing anything.
		for _, it := range items {
			b := f.questions.Find(it.QID)
			if b == nil {
				if batch {
					return fmt.Errorf("%s: %w (%w)", where(it), ErrUnknownQID, ErrBadArgs)
				}
				return unknownQID(it.QID)
			}
			st := b.Value("status")
			if st == StatusOpen {
				if _, err := e.resolvedValues(b, resolution{kind: it.Kind, text: it.Text}); err != nil {
					return fmt.Errorf("%s: %w", where(it), err)
				}
				continue
			}
			if batch {
				return mdstore.WithHint(fmt.Errorf("%s: %w: it is %s (%w)", where(it), ErrNotOpen, st, ErrBadArgs), "remove the line; a batch applies only to open questions")
			}
			want, err := e.resolvedValues(b, resolution{kind: it.Kind, text: it.Text})
			if err != nil || !sameResolution(b, want) {
				return mdstore.WithHint(fmt.Errorf("%s is already %s (%q), not open: %w", it.QID, st, oneLine(b.Value("answer")), ErrConflict),
					"a final question is not resolved again; raise a new question if the decision changed")
			}
		}
		for _, it := range items {
			b := f.questions.Find(it.QID)
			r := Resolved{QID: it.QID, Status: it.Kind}
			var q Question
			if b.Value("status") == StatusOpen {
				var err error
				if q, err = e.answer(f, it.QID, resolution{kind: it.Kind, text: it.Text}, by, ""); err != nil {
					return err
				}
			} else {
				r.Unchanged = true
				e.completeDecision(f, it.QID)
				q = fromBlock(b, e.Now())
			}
			r.Choice = q.Choice
			if q.Answer != nil {
				r.Answer = *q.Answer
			}
			updated, warn := e.resolveState(f, q, it.Kind, r.Unchanged)
			r.StateUpdated = updated
			if updated {
				r.NextAction, _ = f.state.Get("next_action")
			}
			if warn != "" {
				res.Warnings = append(res.Warnings, warn)
			}
			res.Resolved = append(res.Resolved, r)
			if !r.Unchanged {
				fired = append(fired, q)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, q := range fired {
		res.Warnings = append(res.Warnings, e.fire(ctx, eventOf[q.Status], q)...)
	}
	return res, nil
}

// resolvedValues computes the fields a resolution writes: an answer that is
// only an option number picks that option.
func (e *Engine) resolvedValues(b *mdstore.Block, r resolution) (resolution, error) {
	if r.kind != StatusAnswered {
		return r, nil
	}
	opts := parseOptions(b.Value("options"))
	picked := r.choice != 0
	if !picked && len(opts) > 0 { // a question without options has no numbers to pick
		if n, err := strconv.Atoi(strings.TrimSpace(r.text)); err == nil && strings.TrimSpace(r.text) == strconv.Itoa(n) {
			r.choice, r.text, picked = n, "", true
		}
	}
	if !picked {
		return r, nil
	}
	if r.choice < 1 || r.choice > len(opts) {
		return r, mdstore.WithHint(fmt.Errorf("option %d does not exist: the question has %d options: %w", r.choice, len(opts), ErrBadArgs),
			"answer with an option number from 1 to "+strconv.Itoa(len(opts))+", or with text")
	}
	title := optionTitle(opts[r.choice-1])
	if r.choice == len(opts) && strings.HasPrefix(strings.ToLower(title), "something else") && r.text == "" {
		return r, mdstore.WithHint(fmt.Errorf("option %d is \"%s\": %w", r.choice, opts[r.choice-1], ErrBadArgs),
			"describe the answer in words instead of picking the escape hatch")
	}
	if r.text == "" {
		r.text = title
	}
	return r, nil
}

// sameResolution: the same status and answer text, and the same option when
// the new resolution picks one. Answering "Half up" after "2" picked the
// option titled "Half up" is the same decision.
func sameResolution(b *mdstore.Block, r resolution) bool {
	if b.Value("status") != r.kind || b.Value("answer") != r.text {
		return false
	}
	c, _ := b.Get("choice")
	return r.choice == 0 || strings.TrimSpace(c) == strconv.Itoa(r.choice)
}

// answer writes a resolution into the question's block and the decision
// log, and returns the question as it now reads.
func (e *Engine) answer(f *files, id string, r resolution, by, auto string) (Question, error) {
	b := f.questions.Find(id)
	r, err := e.resolvedValues(b, r)
	if err != nil {
		return Question{}, fmt.Errorf("%s: %w", id, err)
	}
	kvs := []mdstore.KV{{Key: "status", Value: r.kind}, {Key: "answered_at", Value: e.timestamp()}, {Key: "answer", Value: r.text}}
	if r.choice != 0 {
		kvs = append(kvs, mdstore.KV{Key: "choice", Value: strconv.Itoa(r.choice)})
	}
	kvs = append(kvs, mdstore.KV{Key: "answered_by", Value: by})
	if auto != "" {
		kvs = append(kvs, mdstore.KV{Key: "auto", Value: auto})
	}
	q := fromBlock(b, e.Now()) // b keeps the values it was parsed with
	if err := f.questions.Set(id, kvs...); err != nil {
		return Question{}, err
	}
	written := map[string]string{}
	for _, kv := range kvs {
		written[kv.Key] = kv.Value
	}
	e.appendDecisionOf(f, id, r.kind, func(k string) (string, bool) {
		if v, ok := written[k]; ok {
			return v, true
		}
		return b.Get(k)
	})
	q.Status, q.AnsweredAt, q.Answer, q.AnsweredBy, q.Auto = r.kind, written["answered_at"], &r.text, by, auto
	q.Choice = nil
	if r.choice != 0 {
		q.Choice = &r.choice
	}
	q.Overdue = false
	return q, nil
}

func decisionHeading(id, status string) string { return id + " " + status }

// decisionFields are the fields of a question that its decision copies.
var decisionFields = []string{"slice", "gate", "question", "answer", "choice", "answered_by", "auto", "answered_at"}

// appendDecision appends the decision record of a resolved block.
func (e *Engine) appendDecision(f *files, b *mdstore.Block) {
	e.appendDecisionOf(f, b.QID, b.Value("status"), b.Get)
}

func (e *Engine) appendDecisionOf(f *files, id, status string, get func(string) (string, bool)) {
	kvs := []mdstore.KV{}
	for _, k := range decisionFields {
		if v, ok := get(k); ok {
			kvs = append(kvs, mdstore.KV{Key: k, Value: v})
		}
	}
	f.decisions = mdstore.AppendRecord(f.decisions, decisionHeading(id, status), kvs...)
}

// completeDecision appends the decision of a final question when a crash
// kept it out of decisions.md.
func (e *Engine) completeDecision(f *files, id string) {
	b := f.questions.Find(id)
	if !bytes.Contains(f.decisions, []byte("## "+decisionHeading(id, b.Value("status")))) {
		e.appendDecision(f, b)
	}
}

// resolveState moves state.md on when it awaits the resolved question.
func (e *Engine) resolveState(f *files, q Question, kind string, rerun bool) (bool, string) {
	id := q.QID
	phase, _ := f.state.Get("phase")
	slice, _ := f.state.Get("active_slice")
	rescope := expand(e.Templates.Rescope, id, phase, slice)
	awaited := f.state.AwaitingQID()
	if awaited != "" && awaited != id {
		return false, fmt.Sprintf("state.md awaits %s, not %s: state.md left as it is", awaited, id)
	}
	if awaited == "" {
		if rerun {
			return false, ""
		}
		// A person overruled a provisional answer the agent is building on:
		// the work goes back to re-scoping, as after a rejected pause.
		if q.Provisional && (kind == StatusRejected || kind == StatusAnswered && (q.Choice == nil || *q.Choice != 1)) {
			f.state.Set("next_action", rescope)
			f.state.AppendLog(e.logLine(f.state, kind+" provisional "+id+"; next: "+rescope))
			return true, fmt.Sprintf("%s was provisional on option 1 and is now %s otherwise: next_action is %s", id, kind, rescope)
		}
		f.state.AppendLog(e.logLine(f.state, kind+" "+id))
		return false, ""
	}
	f.state.ClearAwaiting()
	if status, _ := f.state.Get("status"); status == "blocked" {
		// A deliberate stop outlives the answer; only `state stop` lifts it.
		f.state.AppendLog(e.logLine(f.state, kind+" "+id+"; still blocked"))
		return true, fmt.Sprintf("state.md stays blocked (%s): lift the stop with state stop", oneLine(valueOf(f.state, "stop_reason")))
	}
	next := e.continueAction(f.state, id)
	if kind == StatusRejected {
		next = rescope
	}
	f.state.Set("status", "running")
	f.state.Set("next_action", next)
	f.state.AppendLog(e.logLine(f.state, kind+" "+id+"; next: "+next))
	return true, ""
}

// continueAction is next_action once a person has answered: the cursor's
// return_next_action when it has one, else the continue command.
func (e *Engine) continueAction(s *mdstore.State, id string) string {
	if ret, ok := s.Get("return_next_action"); ok && strings.TrimSpace(ret) != "" {
		return ret
	}
	phase, _ := s.Get("phase")
	slice, _ := s.Get("active_slice")
	return expand(e.Templates.Continue, id, phase, slice)
}

func valueOf(s *mdstore.State, key string) string {
	v, _ := s.Get(key)
	return v
}
