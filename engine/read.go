package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
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
	Resolve string     `json:"resolve,omitempty"`
	Open    []Question `json:"open"`
}

// Show reads the cursor, the awaited question and the open questions.
func (e *Engine) Show() (*StateView, error) {
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	schema, _ := f.state.Schema()
	v := &StateView{Workspace: e.WS.Dir, Slug: e.WS.Slug, Schema: schema, Encoding: f.state.Encoding(),
		Cursor: map[string]string{}, Open: []Question{}}
	for _, en := range f.state.Cursor() {
		if _, dup := v.Cursor[en.Canon]; !dup { // the first of a repeated key counts, as everywhere
			v.CursorKey = append(v.CursorKey, en.Canon)
			v.Cursor[en.Canon] = en.Value
		}
	}
	if aw := f.state.Awaiting(); aw != nil {
		v.Awaiting = map[string]string{}
		for _, en := range aw {
			if _, dup := v.Awaiting[en.Canon]; !dup {
				v.Awaiting[en.Canon] = en.Value
			}
		}
	}
	v.Resolve = e.resolveAwaited(f)
	for q := range e.questions(f.questions, StatusOpen) {
		if q.Status == StatusOpen {
			v.Open = append(v.Open, q)
		}
	}
	return v, nil
}

// List calls fn with each question fl picks, in file order, and stops at
// fn's first error. The questions are read one at a time and not kept: a
// file of ten thousand is listed in the memory of one.
func (e *Engine) List(fl ListFilter, fn func(Question) error) error {
	switch fl.Status {
	case "all", StatusOpen, StatusAnswered, StatusDropped, StatusRejected:
	default:
		return mdstore.Errorf(ErrBadArgs, "unknown --status %q", fl.Status).Hint("use one of open, answered, dropped, rejected, all")
	}
	if fl.Gate != "" && !validGate(fl.Gate) {
		return mdstore.Errorf(ErrBadArgs, "unknown --gate %q", fl.Gate).Hint("use one of advisory, validating, blocking, escalating")
	}
	f, err := e.read()
	if err != nil {
		return err
	}
	// All that is needed of state.md: a copy, so that the rest of it may go
	// before the pass over the questions (a substring would hold it all).
	awaited := strings.Clone(f.state.AwaitingQID())
	f.state = nil
	for q := range e.questions(f.questions, fl.Status) {
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

func (fl ListFilter) keeps(q Question) bool {
	switch {
	case fl.Status != "all" && q.Status != fl.Status,
		fl.Gate != "" && q.Gate != fl.Gate,
		fl.Overdue && !q.Overdue,
		fl.Awaited && !q.Awaited:
		return false
	case fl.Slice == "" || q.Slice == fl.Slice:
		return true
	}
	a, b := sliceRef().FindStringSubmatch(fl.Slice), sliceRef().FindStringSubmatch(q.Slice)
	return a != nil && b != nil && a[1] == b[1]
}

// Get returns one question.
func (e *Engine) Get(id string) (Question, error) {
	if err := checkQID(id); err != nil {
		return Question{}, err
	}
	f, err := e.read()
	if err != nil {
		return Question{}, err
	}
	b, err := e.lookup(f.questions, id)
	if err != nil {
		return Question{}, err
	}
	q := fromBlock(b, e.Now())
	q.Awaited = isAwaited(q, f.state.AwaitingQID())
	return q, nil
}

// isAwaited: q is the open question state.md's cursor awaits.
func isAwaited(q Question, awaited string) bool {
	return awaited != "" && q.QID == awaited && q.Status == StatusOpen
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
		Hint("nothing was written; doctor renumbers the later ones").Fix(mdstore.RunDoctorFix, "")
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
		return mdstore.Errorf(ErrBadArgs, "%v", qid.NotAnID(id)).Fix(mdstore.ListQuestions, "")
	}
	return mdstore.Errorf(ErrUnknownQID, "%s: unknown qid", id).Fix(mdstore.ListQuestions, "")
}

// NextQID is the id the next raise would get. It takes the lock briefly so
// that it does not read a half-finished allocation of another process.
func (e *Engine) NextQID(ctx context.Context) (string, error) {
	// A locked read: it writes nothing, and a broken engine.yaml (which only
	// refuses writes) does not stop it.
	return mdstore.Transact(ctx, e.WS, e.LockTimeout, func(tx *mdstore.Tx) (string, error) {
		w, err := e.load(tx.ReadOptional, true)
		if err != nil {
			return "", err
		}
		if err := e.readable(w); err != nil {
			return "", err
		}
		return e.nextQID(&w.files)
	})
}

// nextQID allocates the id of a new question of today. Besides the blocks
// of questions.md, every id the workspace mentions counts as used: the ones
// state.md's Awaiting and Log sections name and the ones decisions.md
// records. An id once handed out may still be on a person's phone, so a
// questions.md lost or restored from an old copy must not hand it out again.
// So do the ids of the project's other workspaces (otherQIDs): a qid names
// one question in the whole project.
func (e *Engine) nextQID(f *files) (string, error) {
	date := qid.Date(e.Now())
	id, err := nextFree(f, date, e.otherQIDs())
	if err != nil {
		var top usedID
		if used := usedIDs(f); len(used) > 0 {
			top = highest(used, date)
		}
		return "", mdstore.Errorf(ErrMalformed, "%s:%d: %s: %w", e.WS.Path(top.file), top.Line, top.QID, err).
			Hint("a question id of today already has the largest suffix ("+strconv.Itoa(qid.MaxN)+")").Fix(mdstore.RunDoctor, "")
	}
	return id, nil
}

// nextFree is the next id of date that no file of the workspace mentions:
// above the highest that questions.md, the awaited question, decisions.md
// and others (the ids of the project's other workspaces) hold, and past the
// ids the Log names.
func nextFree(f *files, date string, others []string) (string, error) {
	// Of the ids that set the high-water mark, qid.Next needs only the
	// highest of date (the next id is above it, so no other can be it), and
	// of the ids the Log names only those above that: a large workspace
	// mentions tens of thousands of others, and none of them is kept.
	var top string
	high := -1
	above := func(id string) (int, bool) { // the suffix of an id of date above high
		if !strings.Contains(id, date) {
			return 0, false
		}
		p, err := qid.Parse(id)
		return p.N, err == nil && p.Date == date && p.N > high
	}
	hold := func(id string) {
		if n, ok := above(id); ok {
			top, high = id, n
		}
	}
	for _, id := range others {
		hold(id)
	}
	for _, b := range f.questions.Blocks() {
		hold(b.QID)
	}
	for id := range mdstore.DecisionQIDs(f.decisions) {
		hold(id)
	}
	var taken []string
	if f.state != nil {
		awaiting := f.state.AwaitingQID()
		hold(awaiting)
		for m := range f.state.Mentions() {
			if _, ok := above(m.QID); ok && m.QID != awaiting {
				taken = append(taken, m.QID)
			}
		}
	}
	var held []string
	if top != "" {
		held = []string{top}
	}
	return qid.Next(held, taken, date)
}

// usedID is an id the workspace mentions, and where.
type usedID struct {
	mdstore.Mention
	file string
	log  bool // a mention in text (state.md's Log), not a question's own id
}

// usedIDs are the ids nextQID must not hand out, with the file and line of
// each.
func usedIDs(f *files) []usedID {
	blocks := f.questions.Blocks()
	out := make([]usedID, 0, len(blocks)+8)
	for _, b := range blocks {
		out = append(out, usedID{Mention: mdstore.Mention{QID: b.QID, Line: b.Line()}, file: mdstore.QuestionsFile})
	}
	if f.state != nil {
		awaiting := f.state.AwaitingQID()
		for m := range f.state.Mentions() {
			out = append(out, usedID{Mention: m, file: mdstore.StateFile, log: m.QID != awaiting})
		}
	}
	for _, en := range mdstore.DecisionEntries(f.decisions) {
		if id := mdstore.DecisionID(en.Title); id != "" {
			out = append(out, usedID{Mention: mdstore.Mention{QID: id, Line: en.Line}, file: mdstore.DecisionsFile})
		}
	}
	return out
}

// highest is the first mention of the highest id of date.
func highest(used []usedID, date string) usedID {
	var top usedID
	n := -1
	for _, u := range used {
		if id, err := qid.Parse(u.QID); err == nil && id.Date == date && id.N > n {
			top, n = u, id.N
		}
	}
	return top
}

func qids(qs *mdstore.Questions) []string {
	out := make([]string, 0, len(qs.Blocks()))
	for _, b := range qs.Blocks() {
		out = append(out, b.QID)
	}
	return out
}

// CheckResult is the verdict of `state check`.
type CheckResult struct {
	Proceed bool       `json:"proceed"`
	Status  string     `json:"status"`
	Reason  string     `json:"reason"`
	Open    []Question `json:"open,omitempty"`
	// Resolve is the command that answers the awaited question while it is
	// open: beside the skill's next_action, the one a person runs.
	Resolve string `json:"resolve,omitempty"`
	// RescopePending are provisional questions a person answered otherwise
	// while another question held the pause: the agent re-scopes them when
	// it next continues.
	RescopePending []string `json:"rescope_pending,omitempty"`
}

// Check says whether the agent may proceed: not while state.md is awaiting a
// human or blocked, and with seal, not while any question is open.
func (e *Engine) Check(seal bool) (*CheckResult, error) {
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	status, _ := f.state.Get("status")
	r := &CheckResult{Proceed: true, Status: status, Reason: "status " + status + ": proceed"}
	if status == CursorDone {
		r.Reason = "status done: the workflow is closed; nothing waits for a person"
	}
	switch status {
	case "awaiting_human":
		r.Proceed = false
		r.Reason = "awaiting a human"
		if q := f.state.AwaitingQID(); q != "" {
			r.Reason += " on " + q
		}
		if na, ok := f.state.Get("next_action"); ok && na != "" {
			r.Reason += "; next: " + na
		}
	case "blocked":
		r.Proceed = false
		reason, _ := f.state.Get("stop_reason")
		r.Reason = "blocked: " + reason
		if na, ok := f.state.Get("next_action"); ok && na != "" {
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
	r.Resolve = e.resolveAwaited(f)
	if r.RescopePending = rescopePending(f.state); len(r.RescopePending) > 0 {
		r.Reason += "; re-scope pending for " + strings.Join(r.RescopePending, ", ") + " (a person overruled a provisional answer)"
	}
	if seal && r.Proceed {
		for q := range e.questions(f.questions, StatusOpen) {
			if q.Status == StatusOpen {
				r.Open = append(r.Open, q)
			}
		}
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

// StopRequest is a cold-resumable stop.
type StopRequest struct {
	Status, Reason, Resume string
}

// StopResult is the cursor a stop left: the status written and the next
// action.
type StopResult struct {
	Status, NextAction string
}

// Stop records a stop: status, its exact reason, one resume action, a Log
// line. A stop with status running lifts the stop instead of recording one:
// stop_reason goes.
func (e *Engine) Stop(ctx context.Context, r StopRequest) (StopResult, error) {
	if err := r.check(); err != nil {
		return StopResult{}, err
	}
	return transact(ctx, e, func(f *files) (StopResult, error) {
		return e.stop(f, r), nil
	})
}

// check refuses a stop that state.md cannot hold.
func (r StopRequest) check() error {
	switch r.Status {
	case CursorBlocked, CursorAwaiting, CursorRunning:
	default:
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "unknown --status %q", r.Status), "use one of blocked, awaiting_human, running")
	}
	for _, p := range []struct{ name, v string }{{"--reason", r.Reason}, {"--resume", r.Resume}} {
		if blank(p.v) {
			return mdstore.Errorf(ErrBadArgs, "%s is empty", p.name)
		}
		if strings.ContainsAny(p.v, "\r\n") {
			return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "%s has a line break", p.name), "state.md keeps one line per key; put longer text in a question or the decision log")
		}
		if _, err := cleanText(p.name, p.v); err != nil {
			return err
		}
	}
	return nil
}

// liftStop removes the stop from the cursor: its reason and its identity.
func liftStop(s *mdstore.State) {
	s.Delete("stop_reason")
	s.Delete("stopped_at")
}

// stop writes a checked stop into state.md: its reason, and stopped_at,
// when it was made, by which a merge tells this stop from an earlier one
// with the same reason (docs/formats.md). A stop with status running
// lifts the stop as Resume does: back to the pause when a question the
// cursor awaits is still open, else running on the given resume action.
func (e *Engine) stop(f *files, r StopRequest) StopResult {
	status := r.Status
	next := r.Resume
	if status == CursorRunning {
		liftStop(f.state)
		if aw, resolve := e.stillAwaited(f); aw != "" {
			status, next = CursorAwaiting, resolve
		} else if len(rescopePending(f.state)) > 0 {
			next = e.rescopeAction(f.state, "") // a rejection outlives the stop
		}
	} else {
		e.holdRescope(f.state)
		f.state.Set("stop_reason", r.Reason)
		f.state.Set("stopped_at", e.timestamp())
	}
	f.state.Set("status", status)
	f.state.Set("next_action", next)
	f.state.AppendLog(e.logLine(f.state, "stop "+r.Status+": "+r.Reason))
	return StopResult{Status: status, NextAction: next}
}

// logLine is "<timestamp> <phase>: <text>".
func (e *Engine) logLine(s *mdstore.State, text string) string {
	phase, _ := s.Get("phase")
	if phase == "" {
		phase = "engine"
	}
	return e.timestamp() + " " + phase + ": " + text
}
