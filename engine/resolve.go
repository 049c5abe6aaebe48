package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Resolution is one answer, drop or reject, from the command line or a batch.
type Resolution struct {
	QID  string
	Kind string // StatusAnswered, StatusDropped or StatusRejected
	Text string
	Line int // line in the batch, 0 for the command line
	// Via is how the resolution reached the engine, written as
	// answered_via when given: "agent" (an agent relaying the person's
	// words), "elicitation" (the person's answer to the client's form).
	// Empty for a person at the command line, which writes no field.
	Via string
	// Fingerprint, when not "", is that of the question a token was made
	// for: the resolution is of the question that has it, under whatever
	// id it has now, and refused (ErrChanged) when none has (pick.go).
	Fingerprint string
}

// Resolved reports one applied resolution.
type Resolved struct {
	QID          string `json:"qid"`
	Status       string `json:"status"`
	Choice       *int   `json:"choice"`
	Answer       string `json:"answer"`
	StateUpdated bool   `json:"state_updated"`
	State        string `json:"state"` // the cursor status afterwards
	StopReason   string `json:"stop_reason,omitempty"`
	Unchanged    bool   `json:"unchanged,omitempty"` // an identical re-run
	NextAction   string `json:"next_action,omitempty"`
	// Response is the response this resolution recorded on a routed
	// question (respond.go); Status is "open" while the question waits for
	// more, with Progress and WaitingFor saying for what.
	Response   *question.Response `json:"response,omitempty"`
	Progress   string             `json:"progress,omitempty"`
	WaitingFor []string           `json:"waiting_for,omitempty"`
}

// ResolveResult is what `state resolve` reports.
type ResolveResult struct {
	Resolved []Resolved `json:"resolved"`
	Warnings []string   `json:"warnings"`
}

type resolution struct {
	kind, text string
	choice     int
	via        string // answered_via, when not ""
}

// firing is a notify event to fire once the lock is released.
type firing struct {
	event string
	q     question.Question
}

// eventOf is the notify event of a final status.
var eventOf = map[string]string{question.StatusAnswered: "resolved", question.StatusDropped: "dropped", question.StatusRejected: "rejected"}

// Resolve applies resolutions under one lock (a batch file goes through
// ResolveBatch, which validates it whole first and reports every bad line):
// a resolution that repeats one already applied succeeds and completes
// what a crash left undone. items is not changed.
func (e *Engine) Resolve(ctx context.Context, items []Resolution, by string) (*ResolveResult, error) {
	res, notify, err := e.ResolveThenNotify(ctx, items, by)
	return notified(ctx, res, notify, err)
}

// ResolveThenNotify is Resolve without the notify hook: it returns what
// fires the hook for the events of the resolution, to call when the caller
// has let go of what it holds (serve's request slot), and which returns
// the hook's warnings.
func (e *Engine) ResolveThenNotify(ctx context.Context, items []Resolution, by string) (*ResolveResult, func(context.Context) []string, error) {
	return e.resolve(ctx, &Batch{Items: items}, by)
}

// notified fires what a resolve returned and adds its warnings.
func notified(ctx context.Context, res *ResolveResult, notify func(context.Context) []string, err error) (*ResolveResult, error) {
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, notify(ctx)...)
	return res, nil
}

// where names a resolution in errors: its batch line and qid, or its qid.
func (it Resolution) where() string {
	if it.Line > 0 {
		return fmt.Sprintf("batch line %d: %s", it.Line, it.QID)
	}
	return it.QID
}

// resolve applies the resolutions of b: each is checked (its text and
// qid, then against the files), and only when every one is good are they
// applied, in order, under one lock. A resolution from the command line
// (Line 0) stops at its first problem; the lines of a batch are all
// checked, and their problems reported together, in line order.
func (e *Engine) resolve(ctx context.Context, b *Batch, by string) (*ResolveResult, func(context.Context) []string, error) {
	items, bad, err := cleanItems(b)
	if err != nil {
		return nil, nil, err
	}
	if by, err = e.answerer(by); err != nil {
		return nil, nil, err
	}
	// done is what the transaction did: the result, and the events the
	// hook hears once the lock is released.
	type done struct {
		res   *ResolveResult
		fired []firing
	}
	d, err := transact(ctx, e, func(f *Files) (done, error) {
		// Validate everything against the file before changing anything.
		cs, err := e.validateAll(f, items, bad, by)
		if err != nil {
			return done{}, err
		}
		d := done{res: &ResolveResult{Resolved: []Resolved{}, Warnings: []string{}}}
		for _, c := range cs {
			r, q, warn, err := e.apply(f, c, by)
			if err != nil {
				return done{}, err
			}
			d.res.Resolved = append(d.res.Resolved, r)
			if warn != "" {
				d.res.Warnings = append(d.res.Warnings, warn)
			}
			switch {
			case r.Unchanged:
			case r.Status == question.StatusOpen: // a response that leaves a routed question open
				d.fired = append(d.fired, firing{"responded", q})
			default:
				d.fired = append(d.fired, firing{eventOf[q.Status], q})
			}
		}
		return d, nil
	})
	if err != nil {
		return nil, nil, err
	}
	e.remember(d.fired) // streak.go
	return d.res, func(ctx context.Context) []string {
		var warnings []string
		for _, ev := range d.fired {
			warnings = append(warnings, e.fire(ctx, ev.event, ev.q)...)
		}
		return warnings
	}, nil
}

// apply applies one validated resolution: the response it records on a
// routed question, the answer it writes on an open one, or, on a question
// already final with it, the decision a crash kept out of decisions.md.
// Then state.md moves on. It returns what it did, the question as it now
// reads (for the notify hook) and a warning, if any.
func (e *Engine) apply(f *Files, c checked, by string) (Resolved, question.Question, string, error) {
	r := Resolved{QID: c.QID, Status: c.Kind}
	q, kind := c.q, c.Kind
	switch {
	case c.routed:
		rr, err := e.respond(f, c.q, c.want, c.Resolution, by)
		if err != nil {
			return r, q, "", err
		}
		r.Response, r.Progress, r.WaitingFor, r.Unchanged = &rr.response, rr.q.Progress, rr.q.WaitingFor, rr.unchanged
		if rr.q.Status == question.StatusOpen {
			r.Status, r.State = question.StatusOpen, valueOf(f.State, "status")
			r.StopReason, _ = StopReason(f.State)
			return r, rr.q, "", nil
		}
		q, kind = rr.q, rr.q.Status
		r.Status = kind
	case c.q.Status == question.StatusOpen:
		var err error
		if q, err = e.record(f, f.Questions.Find(c.QID), c.q, c.want, by, ""); err != nil {
			return r, q, "", err
		}
	default:
		r.Unchanged = true
		e.completeDecision(f, c.QID)
	}
	r.Choice = q.Choice
	if q.Answer != nil {
		r.Answer = *q.Answer
	}
	updated, warn := e.ResolveState(f, q, kind, r.Unchanged)
	r.StateUpdated = updated
	r.State = valueOf(f.State, "status")
	r.StopReason, _ = StopReason(f.State)
	if updated {
		r.NextAction, _ = f.State.Get("next_action")
	}
	return r, q, warn, nil
}

// resolvedValues computes the fields a resolution writes: an answer that is
// only an option number picks that option, and so does one that is an
// option's title or whole text (question.OptionStated), on every kind of question.
func (e *Engine) resolvedValues(b *mdstore.Block, r resolution) (resolution, error) {
	if r.kind != question.StatusAnswered {
		return r, nil
	}
	opts := question.ParseOptions(b.Value("options"))
	picked := r.choice != 0
	if digits := strings.TrimSpace(r.text); !picked && question.IsNumber(digits) {
		// An answer made only of digits is an option number, however large.
		n, err := strconv.Atoi(digits)
		if err != nil || n > len(opts) {
			n = -1
		}
		if n < 1 {
			return r, optionRangeError(digits, len(opts))
		}
		r.choice, r.text, picked = n, "", true
	}
	if n := question.OptionStated(r.text, opts); !picked && n > 0 {
		r.choice, picked = n, true // the answer stays the person's words
	}
	if !picked {
		return r, nil
	}
	if r.choice < 1 || r.choice > len(opts) {
		return r, optionRangeError(strconv.Itoa(r.choice), len(opts))
	}
	title := question.OptionTitle(opts[r.choice-1])
	if r.choice == len(opts) && question.IsEscapeHatch(opts[r.choice-1]) && r.text == "" {
		return r, mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "option %d is \"%s\"", r.choice, opts[r.choice-1]),
			"describe the answer in words instead of picking the escape hatch")
	}
	if r.text == "" {
		r.text = title
	}
	return r, nil
}

func optionRangeError(n string, options int) error {
	if options == 0 {
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "option %s does not exist: the question has no options", n),
			"an answer made only of digits picks an option; answer in words, e.g. \""+n+" of them\"")
	}
	return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "option %s does not exist: the question has %d options", n, options),
		"answer with an option number from 1 to "+strconv.Itoa(options)+", or with text")
}

// sameResolution: the same status and answer text, and the same option when
// the new resolution picks one. Answering "Half up" after "2" picked the
// option titled "Half up" is the same decision.
func sameResolution(b *mdstore.Block, r resolution) bool {
	c, _ := b.Get("choice")
	sameChoice := r.choice != 0 && strings.TrimSpace(c) == strconv.Itoa(r.choice)
	if b.Value("status") != r.kind || b.Value("answer") != r.text && !(sameChoice && strings.EqualFold(b.Value("answer"), r.text)) {
		return false
	}
	return r.choice == 0 || sameChoice
}

// answer writes a resolution into the question's block and the decision
// log, and returns the question as it now reads.
func (e *Engine) answer(f *Files, id string, r resolution, by, auto string) (question.Question, error) {
	b := f.Questions.Find(id)
	r, err := e.resolvedValues(b, r)
	if err != nil {
		return question.Question{}, fmt.Errorf("%s: %w", id, err)
	}
	return e.record(f, b, question.FromBlock(b, e.Now()), r, by, auto)
}

// record writes r, a resolution with its values computed (resolvedValues),
// into block b, which reads as q, and appends its decision; it returns the
// question as it now reads. The decision copies b's fields before the
// edit, which moves the lines b was read from.
func (e *Engine) record(f *Files, b *mdstore.Block, q question.Question, r resolution, by, auto string) (question.Question, error) {
	at := e.timestamp()
	kvs := []mdstore.KV{{Key: "status", Value: r.kind}, {Key: "answered_at", Value: at}, {Key: "answer", Value: r.text}}
	if r.choice != 0 {
		kvs = append(kvs, mdstore.KV{Key: "choice", Value: strconv.Itoa(r.choice)})
	}
	kvs = append(kvs, mdstore.KV{Key: "answered_by", Value: by})
	if r.via = viaOf(r.via, by, auto); r.via != "" {
		kvs = append(kvs, mdstore.KV{Key: "answered_via", Value: r.via})
	}
	if auto != "" {
		kvs = append(kvs, mdstore.KV{Key: "auto", Value: auto})
	}
	signed := q // the block as kvs leave it: a choice not given stays
	signed.Status, signed.AnsweredAt, signed.Answer, signed.AnsweredBy = r.kind, at, &r.text, by
	if r.choice != 0 {
		signed.Choice = &r.choice
	}
	signature, kvs, err := e.signAnswer(signed, kvs, auto)
	if err != nil {
		return question.Question{}, fmt.Errorf("%s: %w", b.QID, err)
	}
	written := map[string]string{}
	if signature != "" {
		written[FieldSignature] = signature
	}
	for _, kv := range kvs {
		written[kv.Key] = kv.Value
	}
	decisions := e.decisionOf(b.QID, r.kind, func(k string) (string, bool) {
		if v, ok := written[k]; ok {
			return v, true
		}
		return b.Get(k)
	})
	if err := f.Questions.Set(b.QID, kvs...); err != nil {
		return question.Question{}, err
	}
	f.Decisions = decisions(f.Decisions)
	q.Status, q.AnsweredAt, q.Answer, q.AnsweredBy, q.AnsweredVia, q.Auto = r.kind, written["answered_at"], &r.text, by, r.via, auto
	q.SignedBy = written[FieldSignedBy]
	q.Choice = nil
	if r.choice != 0 {
		q.Choice = &r.choice
	}
	q.Overdue = false
	return q, nil
}

// DecisionHeading is the title of the decisions.md entry of question id
// resolved with status, "<id> <status>": the entry is found by it.
func DecisionHeading(id, status string) string { return id + " " + status }

// decisionFields are the fields of a question that its decision copies.
var decisionFields = []string{"slice", "gate", "question", "raised_at", "answer", "choice", "answered_by", "answered_via", "auto", "answered_at", "strategy", "responses", FieldSignedBy, FieldSignature}

// AppendDecision appends to f's decisions.md the decision record of b, a
// resolved block: under DecisionHeading(b.QID, its status), the fields a
// decision copies. It appends even when such an entry is there already.
func (e *Engine) AppendDecision(f *Files, b *mdstore.Block) {
	f.Decisions = e.decisionOf(b.QID, b.Value("status"), b.Get)(f.Decisions)
}

// decisionOf reads the decision record of id, status from get at once,
// and returns what appends it to decisions.md.
func (e *Engine) decisionOf(id, status string, get func(string) (string, bool)) func([]byte) []byte {
	kvs := []mdstore.KV{}
	for _, k := range decisionFields {
		if v, ok := get(k); ok {
			kvs = append(kvs, mdstore.KV{Key: k, Value: v})
		}
	}
	return func(decisions []byte) []byte {
		return mdstore.AppendRecord(decisions, DecisionHeading(id, status), kvs...)
	}
}

// completeDecision appends the decision of a final question when a crash
// kept it out of decisions.md.
func (e *Engine) completeDecision(f *Files, id string) {
	b := f.Questions.Find(id)
	if !mdstore.HasDecision(f.Decisions, DecisionHeading(id, b.Value("status"))) {
		e.AppendDecision(f, b)
	}
}

// ResolveState moves state.md on after a resolution of q: when state.md
// awaits it, the pause is lifted and next_action set (the re-scope command
// after a reject, else the continue command); a stop stays. A person who
// overrules a provisional answer (answers other than option 1, or rejects)
// sends the agent back to re-scoping: at once when nothing else holds the
// cursor, else through rescope_pending. rerun says q's resolution was
// written before (the same resolution again, or doctor completing an
// interrupted one): an overruling of it is not owed again. It reports
// whether state.md changed and a warning for the caller, if any.
func (e *Engine) ResolveState(f *Files, q question.Question, kind string, rerun bool) (bool, string) {
	id, s := q.QID, f.State
	overruled := q.Provisional && (kind == question.StatusRejected || kind == question.StatusAnswered && (q.Choice == nil || *q.Choice != 1))
	_, blocked := StopReason(s)
	awaited := s.AwaitingQID()
	switch {
	case awaited != "" && awaited != id:
		// A question queued behind the pause comes off the queue; a
		// rejection or an overruling of it owes a re-scope, pending while
		// the pause holds the agent. One Log line says it all.
		queued, text := unqueue(s, id), kind+" "+id
		if overruled && !rerun {
			text = kind + " provisional " + id
		}
		if queued {
			text += "; no longer queued in awaiting_next"
		}
		switch {
		case overruled && !rerun:
			e.deferRescope(s, id, text)
			return true, fmt.Sprintf("%s; state.md awaits %s, so the re-scope is pending (rescope_pending)", overruledText(id, kind), awaited)
		case queued && kind == question.StatusRejected:
			e.deferRescope(s, id, text)
			return true, ""
		case queued:
			s.AppendLog(e.LogLine(s, text))
			return true, ""
		}
		return false, fmt.Sprintf("state.md awaits %s, not %s: state.md left as it is", awaited, id)
	case awaited == "" && rerun:
		return false, ""
	case awaited == "" && !overruled:
		s.AppendLog(e.LogLine(s, kind+" "+id))
		return false, ""
	case awaited == "" && blocked:
		e.deferRescope(s, id, kind+" provisional "+id)
		return true, overruledText(id, kind) + "; the workspace is stopped, so the re-scope is pending (rescope_pending)"
	case awaited == "":
		next := e.rescopeAction(s, id)
		s.Set("next_action", next)
		s.AppendLog(e.LogLine(s, kind+" provisional "+id+"; next: "+next))
		return true, overruledText(id, kind) + ": next_action is " + next
	}
	s.ClearAwaiting()
	queued := e.queuedPause(f)
	if blocked {
		// A deliberate stop outlives the answer; only a person lifts it. A
		// rejection still has to reach the agent once it resumes.
		if kind == question.StatusRejected {
			e.deferRescope(s, id, kind+" "+id+"; still blocked")
		} else {
			s.AppendLog(e.LogLine(s, kind+" "+id+"; still blocked"))
		}
		if queued != nil {
			e.pauseUnder(f, *queued, "pause moves to "+queued.QID+" (queued in awaiting_next); still blocked")
		}
		return true, ""
	}
	if queued != nil {
		// A pause queued behind this one (two clones paused at once, merged)
		// holds the agent now; a rejection's re-scope waits for it.
		if kind == question.StatusRejected {
			e.deferRescope(s, id, kind+" "+id)
		}
		e.Pause(f, *queued, kind+" "+id+"; pause moves to "+queued.QID+" (queued in awaiting_next)")
		return true, ""
	}
	next := ""
	if kind == question.StatusRejected {
		next = e.rescopeAction(s, id)
	} else {
		next = e.ContinueAction(s, id)
	}
	s.Set("status", CursorRunning)
	s.Set("next_action", next)
	s.AppendLog(e.LogLine(s, kind+" "+id+"; next: "+next))
	return true, ""
}

func overruledText(id, kind string) string {
	if kind == question.StatusAnswered {
		return id + " was provisional on option 1 and is now answered otherwise"
	}
	return id + " was provisional on option 1 and is now " + kind
}

// ContinueAction is next_action once a person has answered: the re-scope
// command while re-scopes are pending (clearing them), else the cursor's
// return_next_action when it has one, else the continue command (the
// template, of id, the question answered, "" for none).
func (e *Engine) ContinueAction(s *mdstore.State, id string) string {
	if len(rescopePending(s)) > 0 {
		return e.rescopeAction(s, "")
	}
	if ret, ok := s.Get("return_next_action"); ok && strings.TrimSpace(ret) != "" {
		return ret
	}
	phase, _ := s.Get("phase")
	slice, _ := s.Get("active_slice")
	return config.Expand(e.Templates.Continue, id, phase, slice)
}

func valueOf(s *mdstore.State, key string) string {
	v, _ := s.Get(key)
	return v
}
