package engine

import (
	"iter"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// References follow identity (docs/git.md). Git takes a file that changed on
// one side only without running the merge driver, so after a merge
// state.md or decisions.md may name a question by an id a renumbering
// gave to another one, and a pause may be lost. Every command reads the
// workspace through follow: a reference a renumbering moved is corrected
// (the question is known by its text and raise time, and by the ids its
// renumbered_from chain holds), and an open question that paused and that
// no pause holds takes the pause back (or is queued in awaiting_next).

// Correction is a reference follow moved, or a pause it restored.
type Correction struct {
	File    string
	Line    int
	Problem string // what was wrong, for doctor
	Did     string // what follow did
	Lost    bool   // a pause was lost: doctor reports it (a moved reference it reads through)
}

// chainOf is every id a block has had: its renumbered_from chain, then its id.
func chainOf(b *mdstore.Block) []string {
	return append(question.SplitNames(b.Value("renumbered_from")), b.QID)
}

func sameText(a, b string) bool { return mdstore.OneLine(a) == mdstore.OneLine(b) }

// follow corrects f's references by identity and restores lost pauses; it
// returns what it did, in order. sc is the scan of f's questions as read
// (scan.go): a reference is followed only when a question was renumbered,
// and the Log is read for lost pauses only when an open question is
// neither awaited nor queued, so that most writes do neither.
func (e *Engine) follow(f *Files, sc *scan) []Correction {
	var out []Correction
	if len(sc.earlier) > 0 {
		out = append(out, e.followAwaited(f, sc.earlier)...)
		out = append(out, followDecisions(f, sc.earlier)...)
	}
	out = append(out, e.restorePauses(f, sc)...)
	out = append(out, e.describeAwaited(f)...)
	out = append(out, e.resumeOnPause(f)...)
	return append(out, e.staleResume(f)...)
}

// staleResume: while running, next_action is not the command that answers
// a question no longer open. A merge whose two sides each answered the
// question the other one's pause held releases both pauses, and each
// side's next_action was its pause's command; the engine sets the command
// an answer sets (the re-scope while one is owed, else continue).
func (e *Engine) staleResume(f *Files) []Correction {
	s := f.State
	next := valueOf(s, "next_action")
	if st, _ := s.Get("status"); st != CursorRunning || !strings.Contains(next, "q-") {
		return nil
	}
	for id := range qid.All(next) {
		b := f.Questions.Find(id)
		if b == nil || b.Value("status") == question.StatusOpen || next != e.resumeAction(s, b.QID, b.Value("slice")) {
			continue
		}
		s.Set("next_action", e.ContinueAction(s, b.QID))
		s.AppendLog(e.LogLine(s, "next_action answered "+b.QID+", which is "+b.Value("status")+" (a merge released its pause); next: "+valueOf(s, "next_action")))
		return []Correction{{File: mdstore.StateFile, Problem: "next_action answers " + b.QID + ", which is " + b.Value("status"),
			Did: "next_action is " + valueOf(s, "next_action")}}
	}
	return nil
}

// describeAwaited: a merge that pauses on a question neither side's
// Awaiting human section held (both queued it) writes a section of its id
// and raise time only. Such a section, of an open question raised at that
// time, is written as a pause writes it, from the question's block. (A
// section of other keys, such as DevRites' question_id, gate and
// blocking_slices, stays as it is written.)
func (e *Engine) describeAwaited(f *Files) []Correction {
	s := f.State
	aw := s.Awaiting()
	if len(aw) == 0 || slices.ContainsFunc(aw, func(en mdstore.Entry) bool { return en.Canon != "question_id" && en.Canon != "raised_at" }) {
		return nil
	}
	// A section of the id alone (DevRites' own `- qid: q-7`) is a valid
	// pause, not merge damage: only a section that also copied a raise
	// time is one a merge wrote, and identity checks never rewrite a valid
	// DevRites file.
	raised, _ := s.GetAwaiting("raised_at")
	if strings.TrimSpace(raised) == "" {
		return nil
	}
	b := awaitedOpen(f)
	if b == nil || strings.TrimSpace(raised) != strings.TrimSpace(b.Value("raised_at")) {
		return nil
	}
	s.SetAwaiting(awaitingSection(question.FromBlock(b, e.Now()))...)
	s.AppendLog(e.LogLine(s, "the Awaiting human section describes "+b.QID+" (a merge left only its id)"))
	return []Correction{{File: mdstore.StateFile, Line: s.AwaitingLine(),
		Problem: "the Awaiting human section of " + b.QID + " does not say what it asks (a merge left only its id)",
		Did:     "state.md's Awaiting human section describes " + b.QID}}
}

// resumeOnPause: while the cursor awaits an open question (no stop), its
// next_action is the command that answers it. A merge can leave there a
// re-scope owed on the other clone: it moves to rescope_pending, and is
// acted on once the question is answered.
func (e *Engine) resumeOnPause(f *Files) []Correction {
	s := f.State
	b := awaitedOpen(f)
	if st, _ := s.Get("status"); b == nil || st != CursorAwaiting || len(e.rescopeIDs(valueOf(s, "next_action"))) == 0 {
		return nil
	}
	e.holdRescope(s)
	s.Set("next_action", e.resumeAction(s, b.QID, b.Value("slice")))
	return []Correction{{File: mdstore.StateFile, Problem: "next_action is a re-scope while awaiting " + b.QID, Did: "the re-scope is pending; next_action answers " + b.QID}}
}

// followAwaited: the awaited question_id must name the question the
// Awaiting human section describes (its text and raise time, or for a
// section of an id and raise time only, the raise time); when another
// block is that question (a renumbering moved it), the pause follows it.
func (e *Engine) followAwaited(f *Files, earlier map[string]bool) []Correction {
	s := f.State
	id := s.AwaitingQID()
	if !earlier[id] {
		return nil // no question was renumbered from it: it names its own
	}
	text, _ := s.GetAwaiting("question")
	raised, _ := s.GetAwaiting("raised_at")
	raised = strings.TrimSpace(raised)
	if id == "" || raised == "" {
		return nil
	}
	// A section a merge wrote of the id and raise time only describes the
	// question raised then that has had the id.
	bare := strings.TrimSpace(text) == ""
	describes := func(b *mdstore.Block) bool {
		return strings.TrimSpace(b.Value("raised_at")) == raised &&
			(bare && slices.Contains(chainOf(b), id) || !bare && sameText(b.Value("question"), text))
	}
	if b := f.Questions.Find(id); b != nil && describes(b) {
		return nil
	}
	var found *mdstore.Block
	for _, b := range f.Questions.Blocks() {
		if b.QID != id && describes(b) {
			if found != nil && slices.Contains(chainOf(found), id) == slices.Contains(chainOf(b), id) {
				return nil // two candidates: which one is not guessed
			}
			if found == nil || slices.Contains(chainOf(b), id) {
				found = b
			}
		}
	}
	if found == nil {
		return nil
	}
	Retarget(s, id, found.QID)
	s.AppendLog(e.LogLine(s, "awaits "+found.QID+", the question it meant ("+id+" was renumbered)"))
	return []Correction{{File: mdstore.StateFile, Line: s.AwaitingLine(),
		Problem: "awaits " + id + ", but the question its Awaiting human section describes is " + found.QID + " (renumbered by a merge)",
		Did:     "state.md awaits " + found.QID + " (was " + id + ")"}}
}

// Retarget makes state.md's pause and cursor name next where they named
// old: the Awaiting human section's question_id becomes next, whatever it
// was (callers retarget a pause on old only), and the cursor's values name
// next in place of old.
func Retarget(s *mdstore.State, old, next string) {
	var kvs []mdstore.KV
	for _, en := range s.Awaiting() {
		v := en.Value
		if en.Canon == "question_id" {
			v = next
		}
		kvs = append(kvs, mdstore.KV{Key: en.Canon, Value: v})
	}
	s.SetAwaiting(kvs...)
	for _, en := range s.Cursor() {
		if v := replaceID(en.Value, old, next); v != en.Value {
			s.Set(en.Canon, v)
		}
	}
}

// replaceID replaces the id old, as a word, by next.
func replaceID(s, old, next string) string {
	return qid.Map(s, func(id string) string {
		if id == old {
			return next
		}
		return id
	})
}

// namesAny reports whether ids holds one of set.
func namesAny(ids iter.Seq[string], set map[string]bool) bool {
	for id := range ids {
		if set[id] {
			return true
		}
	}
	return false
}

// records reports whether the decision r is of b's question
// (mdstore.RecordsQuestion).
func records(r mdstore.DecisionRecord, b *mdstore.Block) bool {
	return mdstore.RecordsQuestion(r.Question, r.RaisedAt, b.Value("question"), b.Value("raised_at"))
}

// followDecisions: an entry of decisions.md belongs to the question whose
// text (and raise time, when it copied one) it copied. An entry under an
// id that another question has now, or that no question has now, is moved
// to the id of its own question (the one whose renumbered_from chain
// holds the id); an entry that is then a copy of another is removed, so
// that each decision is recorded once.
func followDecisions(f *Files, earlier map[string]bool) []Correction {
	if len(f.Decisions) == 0 || !namesAny(mdstore.DecisionQIDs(f.Decisions), earlier) {
		return nil // no entry names a question by an earlier id: nothing to read
	}
	recs := mdstore.DecisionRecords(f.Decisions)
	// The first block of each id, as Questions.Find gives it, found once:
	// a Find per entry made a resolve at 10,000 questions quadratic.
	first := map[string]*mdstore.Block{}
	was := map[string][]*mdstore.Block{} // earlier id → the blocks whose chain holds it
	for _, b := range f.Questions.Blocks() {
		if _, ok := first[b.QID]; !ok {
			first[b.QID] = b
		}
		if chain := chainOf(b); len(chain) > 1 {
			for _, old := range chain[:len(chain)-1] {
				was[old] = append(was[old], b)
			}
		}
	}
	var out []Correction
	for i := len(recs) - 1; i >= 0; i-- { // from the end: lines before stay where they are
		r := recs[i]
		id := mdstore.DecisionID(r.Title)
		if id == "" || strings.TrimSpace(r.Question) == "" {
			continue
		}
		if b := first[id]; b != nil && records(r, b) {
			continue // its own question's id; or the id no block has now, of a question moved on
		}
		var own *mdstore.Block
		for _, b := range was[id] {
			if b.QID != id && records(r, b) {
				if own != nil {
					own = nil
					break
				}
				own = b
			}
		}
		if own == nil {
			continue
		}
		title := own.QID + r.Title[len(id):]
		moved := r
		moved.Title = title
		c := Correction{File: mdstore.DecisionsFile, Line: r.Line,
			Problem: "the entry " + r.Title + " records " + own.QID + " (renumbered by a merge)"}
		if slices.ContainsFunc(recs, func(o mdstore.DecisionRecord) bool { return o.Line != r.Line && o.Same(moved) }) {
			f.Decisions = mdstore.RemoveDecision(f.Decisions, r)
			c.Did = "removed the entry " + r.Title + ", a copy of " + title
		} else {
			f.Decisions = mdstore.RetitleDecision(f.Decisions, r.Line, title)
			c.Did = "the entry " + r.Title + " is " + title
		}
		out = append(out, c)
	}
	return out
}

// restorePauses: a question the Log says paused ("raised <id> (<gate>)"),
// still open and pausing, that neither the Awaiting human section nor
// awaiting_next holds, lost its pause in a merge. It takes the pause when
// none is held (under a stop, the stop stays), else it is queued.
func (e *Engine) restorePauses(f *Files, sc *scan) []Correction {
	s := f.State
	held := question.SplitNames(valueOf(s, "awaiting_next"))
	awaited := awaitedOpen(f)
	if awaited != nil {
		held = append(held, awaited.QID)
	}
	if !sc.openUnheld(held) {
		return nil // every open question is held: none lost its pause
	}
	ids := pausedInLog(s)
	if len(ids) == 0 {
		return nil
	}
	first := make(map[string]*mdstore.Block, len(ids))
	for _, id := range ids {
		first[id] = nil
	}
	for _, b := range f.Questions.Blocks() { // one pass, not a Find per id
		if v, ok := first[b.QID]; ok && v == nil {
			first[b.QID] = b
		}
	}
	var lost []question.Question
	for _, id := range ids {
		b := first[id]
		if b == nil || slices.Contains(held, id) || !pausing(b) || !raisedByEngine(b) || slices.ContainsFunc(lost, func(q question.Question) bool { return q.QID == id }) {
			continue
		}
		lost = append(lost, question.FromBlock(b, e.Now()))
	}
	if len(lost) == 0 {
		return nil
	}
	slices.SortStableFunc(lost, func(a, b question.Question) int { return strings.Compare(a.RaisedAt, b.RaisedAt) })
	var out []Correction
	if awaited == nil {
		q := lost[0]
		lost = lost[1:]
		if _, stopped := StopReason(s); stopped {
			e.pauseUnder(f, q, "pause on "+q.QID+" restored (a merge lost it); still blocked")
		} else {
			e.Pause(f, q, "pause on "+q.QID+" restored (a merge lost it)")
		}
		out = append(out, Correction{File: mdstore.StateFile, Lost: true,
			Problem: q.QID + " is open and paused the agent, but no pause holds it (lost in a merge)", Did: "state.md awaits " + q.QID})
	}
	for _, q := range lost {
		queue := append(question.SplitNames(valueOf(s, "awaiting_next")), q.QID)
		s.Set("awaiting_next", strings.Join(queue, ", "))
		s.AppendLog(e.LogLine(s, q.QID+" queued in awaiting_next (a merge lost its pause)"))
		out = append(out, Correction{File: mdstore.StateFile, Lost: true,
			Problem: q.QID + " is open and paused the agent, but no pause holds it (lost in a merge)", Did: q.QID + " queued in awaiting_next"})
	}
	return out
}

// pausedInLog are the ids the Log says a raise paused on and no later line
// says were answered, rejected or dropped, in order. A line is read once:
// each "q-" in it is an id when the word before it says what happened.
func pausedInLog(s *mdstore.State) []string {
	head, end, ok := s.LogSpan()
	if !ok {
		return nil
	}
	var ids, ended []string
	for i := head + 1; i < end; i++ {
		l := s.Line(i) // not a copy of the file: the Log is most of it
		raise := false
		ended = ended[:0]
		for at := 0; ; {
			start, stop := qid.Index(l, at)
			if start < 0 {
				break
			}
			if before := l[:start]; strings.HasSuffix(before, ": raised ") {
				// A raise line names the id it paused on, then its gate.
				if !strings.Contains(l[start:], "provisional") && strings.HasPrefix(l[stop:], " (") {
					ids = append(ids, l[start:stop])
				}
				raise = true
				break
			} else if slices.ContainsFunc(logEnds, func(w string) bool { return strings.HasSuffix(before, w) }) {
				ended = append(ended, l[start:stop])
			}
			at = stop
		}
		if !raise {
			for _, id := range ended {
				ids = slices.DeleteFunc(ids, func(x string) bool { return x == id })
			}
		}
	}
	return ids
}

// logEnds are the words before an id in a Log line that ends its pause.
var logEnds = []string{"answered ", "rejected ", "dropped ", "auto-picked "}
