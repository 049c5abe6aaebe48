package engine

import (
	"slices"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// StateView is what `state show` reports.
type StateView struct {
	Workspace string            `json:"workspace"`
	Slug      string            `json:"slug"`
	Schema    int               `json:"schema"`
	Encoding  string            `json:"encoding"`
	Cursor    map[string]string `json:"cursor"`
	CursorKey []string          `json:"-"` // cursor keys in file order
	Awaiting  map[string]string `json:"awaiting"`
	// Resolve is the command that answers the awaited question, while it
	// is open.
	Resolve string              `json:"resolve,omitempty"`
	Open    []question.Question `json:"open"`
}

// Show reads the cursor, the awaited question and the open questions.
func (e *Engine) Show() (*StateView, error) {
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	schema, _ := f.State.Schema()
	v := &StateView{Workspace: e.WS.Dir, Slug: e.WS.Slug, Schema: schema, Encoding: f.State.Encoding(),
		Cursor: map[string]string{}, Open: []question.Question{}}
	for _, en := range f.State.Cursor() {
		if _, dup := v.Cursor[en.Canon]; !dup { // the first of a repeated key counts, as everywhere
			v.CursorKey = append(v.CursorKey, en.Canon)
			v.Cursor[en.Canon] = en.Value
		}
	}
	if aw := f.State.Awaiting(); aw != nil {
		v.Awaiting = map[string]string{}
		for _, en := range aw {
			if _, dup := v.Awaiting[en.Canon]; !dup {
				v.Awaiting[en.Canon] = en.Value
			}
		}
	}
	v.Resolve = e.resolveAwaited(f)
	v.Open = slices.AppendSeq(v.Open, e.questions(f.Questions, question.StatusOpen))
	return v, nil
}

// List calls fn with each question fl picks, in file order, and stops at
// fn's first error. The questions are read one at a time and not kept: a
// file of ten thousand is listed in the memory of one.
func (e *Engine) List(fl ListFilter, fn func(question.Question) error) error {
	switch fl.Status {
	case "all", question.StatusOpen, question.StatusAnswered, question.StatusDropped, question.StatusRejected:
	default:
		return mdstore.Errorf(ErrBadArgs, "unknown --status %q", fl.Status).Hint("use one of open, answered, dropped, rejected, all")
	}
	if fl.Gate != "" && !mdstore.ValidGate(fl.Gate) {
		return mdstore.Errorf(ErrBadArgs, "unknown --gate %q", fl.Gate).Hint("use one of advisory, validating, blocking, escalating")
	}
	f, err := e.read()
	if err != nil {
		return err
	}
	// All that is needed of state.md: a copy, so that the rest of it may go
	// before the pass over the questions (a substring would hold it all).
	awaited := strings.Clone(f.State.AwaitingQID())
	f.State = nil
	for q := range e.questions(f.Questions, fl.Status) {
		q.Awaited = isAwaited(q, awaited)
		if !fl.keeps(q) {
			continue
		}
		if err := fn(q); err != nil {
			return err
		}
	}
	return nil
}

// ListFilter picks the questions of questions list; the zero value of a
// field picks every question.
type ListFilter struct {
	Status  string // open, answered, dropped, rejected or all
	Gate    string
	Slice   string // as written ("3 — payments") or by number ("3", "SLICE-003")
	Overdue bool
	Awaited bool
}

// keeps reports whether fl picks q, whose status it already has (List
// reads the questions of fl.Status only).
func (fl ListFilter) keeps(q question.Question) bool {
	switch {
	case fl.Gate != "" && q.Gate != fl.Gate,
		fl.Overdue && !q.Overdue,
		fl.Awaited && !q.Awaited:
		return false
	case fl.Slice == "" || q.Slice == fl.Slice:
		return true
	}
	a, b := sliceRef().FindStringSubmatch(fl.Slice), sliceRef().FindStringSubmatch(q.Slice)
	return a != nil && b != nil && a[1] == b[1]
}

// Get returns one question: the one id names (with the engine's Pick, the
// one of that fingerprint), refused when id is ambiguous (find).
func (e *Engine) Get(id string) (question.Question, error) { return e.GetByFingerprint(id, "") }

// GetByFingerprint is Get of the question a token made for the question
// of fingerprint fp names by id: the question of that fingerprint, under
// whatever id it has now, or ErrChanged (find).
func (e *Engine) GetByFingerprint(id, fp string) (question.Question, error) {
	if err := checkQID(id); err != nil {
		return question.Question{}, err
	}
	f, err := e.read()
	if err != nil {
		return question.Question{}, err
	}
	return e.get(f, id, fp)
}

// get is GetByFingerprint on the files read already.
func (e *Engine) get(f *Files, id, fp string) (question.Question, error) {
	b, err := e.find(f, id, fp)
	if err != nil {
		return question.Question{}, err
	}
	q := question.FromBlock(b, e.Now())
	q = e.described(q, isContested(q, contested(f.Questions)))
	q.Awaited = isAwaited(q, f.State.AwaitingQID())
	return q, nil
}

// isAwaited: q is the open question state.md's cursor awaits.
func isAwaited(q question.Question, awaited string) bool {
	return awaited != "" && q.QID == awaited && q.Status == question.StatusOpen
}

// lookup returns the one question whose id is id: a block heading or a
// register row. The id is matched exactly, as DevRites does; when no
// question has it exactly, a question whose id differs only in case
// ("q-12" for "## Q-12") is the one meant if it is the only one. A qid
// that matches no question is unknown; one that matches several (a merge,
// a hand edit, two spellings) is never guessed.
func (e *Engine) lookup(qs *mdstore.Questions, id string) (*mdstore.Block, error) {
	var lines []string
	var first *mdstore.Block
	for _, same := range []func(string) bool{
		func(q string) bool { return q == id },
		func(q string) bool { return strings.EqualFold(q, id) },
	} {
		for _, b := range qs.Blocks() {
			if same(b.QID) {
				if first == nil {
					first = b
				}
				lines = append(lines, strconv.Itoa(b.Line()))
			}
		}
		if len(lines) > 0 {
			break
		}
	}
	switch len(lines) {
	case 0:
		return nil, unknownQID(id)
	case 1:
		return first, nil
	}
	if first.QID != id {
		return nil, mdstore.Errorf(ErrAmbiguous, "%s: %s matches %d questions in another case, at lines %s",
			e.WS.Path(mdstore.QuestionsFile), id, len(lines), strings.Join(lines, " and ")).
			Hint("nothing was written; give the id as it is written")
	}
	if !qid.Shaped(id) {
		return nil, mdstore.Errorf(ErrAmbiguous, "%s: %s heads %d blocks, at lines %s",
			e.WS.Path(mdstore.QuestionsFile), id, len(lines), strings.Join(lines, " and ")).
			Hint("nothing was written; give one of them another id (doctor renumbers only q-YYYY-MM-DD-NNN headings)")
	}
	return nil, mdstore.Errorf(ErrAmbiguous, "%s: %s heads %d blocks, at lines %s",
		e.WS.Path(mdstore.QuestionsFile), id, len(lines), strings.Join(lines, " and ")).
		Hint("nothing was written; doctor renumbers the later ones").Fix(RunDoctorFix, "")
}

// checkQID refuses an argument that is no question id of any form a
// workspace uses (qid.Check).
func checkQID(id string) error {
	if err := qid.Check(id); err != nil {
		return mdstore.Errorf(ErrBadArgs, "%v", err)
	}
	return nil
}

// unknownQID is the error of an id no question has. A name is an id only
// where a named question has it: one that none has could be any word, and
// is refused as no id at all.
func unknownQID(id string) error {
	if qid.Named(id) {
		return mdstore.Errorf(ErrBadArgs, "%v", qid.NotAnID(id)).Fix(ListQuestions, "")
	}
	return mdstore.Errorf(ErrUnknownQID, "%s: unknown qid", id).Fix(ListQuestions, "")
}

// CheckResult is the verdict of `state check`.
type CheckResult struct {
	Proceed bool                `json:"proceed"`
	Status  string              `json:"status"`
	Reason  string              `json:"reason"`
	Open    []question.Question `json:"open,omitempty"`
	// Resolve is the command that answers the awaited question while it is
	// open: beside the skill's next_action, the one a person runs.
	Resolve string `json:"resolve,omitempty"`
	// RescopePending are provisional questions a person answered otherwise
	// while another question held the pause: the agent re-scopes them when
	// it next continues.
	RescopePending []string `json:"rescope_pending,omitempty"`
	// Unsigned are final questions a require-signature rule selects with
	// no signature that counts: each holds the agent (signing.go).
	Unsigned []question.Question `json:"unsigned,omitempty"`
	// Awaited is the open question state.md awaits, nil when none.
	Awaited *question.Question `json:"-"`
}

// Check says whether the agent may proceed: not while state.md is awaiting a
// human or blocked, and with seal, not while any question is open.
func (e *Engine) Check(seal bool) (*CheckResult, error) {
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	status, _ := f.State.Get("status")
	r := &CheckResult{Proceed: true, Status: status, Reason: "status " + status + ": proceed"}
	if status == CursorDone {
		r.Reason = "status done: the workflow is closed; nothing waits for a person"
	}
	switch status {
	case "awaiting_human":
		r.Proceed = false
		r.Reason = "awaiting a human"
		if q := f.State.AwaitingQID(); q != "" {
			r.Reason += " on " + q
		}
		if na, ok := f.State.Get("next_action"); ok && na != "" {
			r.Reason += "; next: " + na
		}
	case "blocked":
		r.Proceed = false
		reason, _ := f.State.Get("stop_reason")
		r.Reason = "blocked: " + reason
		if na, ok := f.State.Get("next_action"); ok && na != "" {
			r.Reason += "; resume: " + na
		}
	case CursorRunning, CursorDone, "":
		// done is DevRites' closed workflow: nothing is awaited, so the
		// agent may proceed. A cursor that says so but still names an open
		// question it awaits (a stop that moved status past the pause)
		// waits for a person to answer.
		if b := awaitedOpen(f); b != nil {
			r.Proceed = false
			r.Reason = "awaiting a human on " + b.QID + " (state.md says running, but the question is open)"
		}
	default:
		return nil, mdstore.Errorf(ErrMalformed, "%s: status %q is not running, awaiting_human, blocked or done",
			e.WS.Path(mdstore.StateFile), status).Fix(mdstore.RunDoctor, "")
	}
	if r.Awaited = e.awaitedQuestion(f); r.Awaited != nil {
		r.Resolve = e.ResolveCommand(*r.Awaited)
	}
	if r.RescopePending = rescopePending(f.State); len(r.RescopePending) > 0 {
		r.Reason += rescopeReason(f.Questions, r.RescopePending)
	}
	e.holdUnsigned(f, r)
	if seal && r.Proceed {
		r.Open = slices.AppendSeq(r.Open, e.questions(f.Questions, question.StatusOpen))
		if len(r.Open) > 0 {
			r.Proceed = false
			ids := make([]string, len(r.Open))
			for i, q := range r.Open {
				ids[i] = q.QID
			}
			r.Reason = "seal: questions still open: " + strings.Join(ids, ", ")
		}
	}
	return r, nil
}

// LogLine is the Log line of text in s: "<timestamp> <phase>: <text>",
// the engine's clock (Now) and s's phase ("engine" when it has none).
func (e *Engine) LogLine(s *mdstore.State, text string) string {
	phase, _ := s.Get("phase")
	if phase == "" {
		phase = "engine"
	}
	return e.timestamp() + " " + phase + ": " + text
}

// rescopeReason says why each pending re-scope is owed, as its question
// reads: a person rejected it, or overruled a provisional answer.
func rescopeReason(qs *mdstore.Questions, ids []string) string {
	var rejected, overruled []string
	for _, id := range ids {
		if b := qs.Find(id); b != nil && strings.TrimSpace(b.Value("status")) == question.StatusRejected {
			rejected = append(rejected, id)
		} else {
			overruled = append(overruled, id)
		}
	}
	var out string
	if len(rejected) > 0 {
		out += "; re-scope pending for " + strings.Join(rejected, ", ") + " (a person rejected it)"
	}
	if len(overruled) > 0 {
		out += "; re-scope pending for " + strings.Join(overruled, ", ") + " (a person overruled a provisional answer)"
	}
	return out
}
