package checkup

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Drift: what state.md says against what questions.md holds, and its repair.

// drift is the pause state.md should hold according to questions.md.
type drift struct {
	status      string
	statusLine  int
	awaited     string         // the qid the awaiting section names
	block       *mdstore.Block // the block of awaited, nil when questions.md has none
	awaitedLine int
	section     int // line of "## Awaiting human", 0 when absent
	target      *mdstore.Block
	lost        bool             // target is an open question whose pause was lost
	interrupted []*mdstore.Block // questions an interrupted raise left, in file order
}

func (d *checkup) readDrift(w *wsFiles) drift {
	s := w.State
	dr := drift{section: s.AwaitingLine(), awaited: s.AwaitingQID()}
	for _, en := range s.Cursor() {
		if en.Canon == "status" && dr.statusLine == 0 {
			dr.status, dr.statusLine = en.Value, en.Line()
		}
	}
	for _, en := range s.Awaiting() {
		if en.Canon == "question_id" {
			dr.awaitedLine = en.Line()
			break
		}
	}
	if dr.awaitedLine == 0 {
		dr.awaitedLine = dr.section
	}
	var state []byte // read once, and only when a block may need it
	for _, b := range w.Questions.Blocks() {
		if b.Nth() > 0 || !engine.MayHaveInterrupted(b) { // the first block of each qid
			continue
		}
		if state == nil {
			state = w.stateBytes()
		}
		if !mentions(state, b.QID) {
			dr.interrupted = append(dr.interrupted, b)
		}
	}
	if dr.awaited != "" {
		dr.block = w.Questions.Find(dr.awaited)
	}
	if b := dr.block; b != nil && b.Value("status") == question.StatusOpen {
		dr.target = b
		return dr
	}
	// Only a pause the engine lost is restored: that of the newest
	// question an interrupted raise left (raises append). Other open
	// questions are normal and hold no pause: advisory ones deferred,
	// validating ones pending review, register rows, provisional ones.
	if n := len(dr.interrupted); n > 0 {
		dr.target, dr.lost = dr.interrupted[n-1], true
	}
	return dr
}

// checkDrift reports where state.md's pause disagrees with questions.md,
// and returns what it read of both (readDrift), for reconcile.
func (d *checkup) checkDrift(w *wsFiles) drift {
	if w.refused {
		return drift{}
	}
	const file = mdstore.StateFile
	dr := d.readDrift(w)
	if repeatedIDs(w.Questions)[dr.awaited] {
		return dr // which block state.md means is settled by renumbering first
	}
	blocked := dr.status == "blocked"
	sev := doctor.SevError
	if blocked {
		sev = doctor.SevWarning // a deliberate stop: doctor does not move it
	}
	reconcile := "run: devrites-engine doctor --fix (reconciles state.md from questions.md)"
	fixable := !blocked && w.held == ""
	switch {
	case blocked:
		reconcile = "state.md is blocked (" + d.stopReason(w) + "); when resuming, run devrites-engine doctor --fix after state stop --status running"
	case w.held != "":
		reconcile = "mend the errors first: " + w.held + "; doctor --fix reconciles the cursor only from files that read cleanly"
	}
	drifted := func(line int, problem string) {
		d.Add(doctor.Finding{Severity: sev, Kind: "drift", File: file, Line: line, Problem: problem, Mend: reconcile, Fixable: fixable})
	}
	switch {
	case dr.section > 0 && dr.awaited == "":
		drifted(dr.section, "the Awaiting human section names no question_id")
	case dr.awaited != "" && dr.block == nil:
		f := doctor.Finding{Severity: sev, Kind: "drift", File: file, Line: dr.awaitedLine,
			Problem: fmt.Sprintf("awaits %s, which is not in questions.md (a stale editor save or a bad merge?)", dr.awaited),
			Mend:    "run: devrites-engine doctor --fix (restores " + dr.awaited + " from decisions.md, or else open from the Awaiting section: nobody has answered it)",
			Fixable: fixable}
		if !fixable {
			f.Mend = reconcile
		}
		d.Add(f)
	case dr.awaited != "" && (dr.target == nil || dr.target.QID != dr.awaited) && d.unrecorded(w, dr.block):
		d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "no-record", File: file, Line: dr.awaitedLine,
			Problem: fmt.Sprintf("awaits %s, which questions.md says is %s, but %s", dr.awaited, dr.block.Value("status"), engine.NoRecord),
			Mend:    "doctor does not move state.md on: nothing but questions.md says a person decided it"})
	case dr.awaited != "" && (dr.target == nil || dr.target.QID != dr.awaited):
		drifted(dr.awaitedLine, fmt.Sprintf("awaits %s, which is already %s", dr.awaited, dr.block.Value("status")))
	}
	switch {
	case dr.target != nil && !dr.lost && dr.status != "awaiting_human" && !blocked:
		// A stop over a pause is what a stop on a paused workspace (or a
		// merge of a stop with a pause) leaves: lifting it returns to the
		// pause (docs/git.md).
		drifted(dr.statusLine, fmt.Sprintf("status is %q, but it awaits %s, which is open", dr.status, dr.awaited))
	case dr.target != nil && dr.lost:
		d.Add(doctor.Finding{Severity: sev, Kind: "drift", File: mdstore.QuestionsFile, Line: dr.target.Line(),
			Problem: dr.target.QID + " is open and waits for a person, but state.md lost its pause (a raise interrupted after questions.md was written?)",
			Mend:    reconcile, Fixable: fixable})
	case dr.target == nil && dr.status == "awaiting_human" && dr.section == 0:
		if reason := d.stopReason(w); reason != "" {
			d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "drift", File: file, Line: dr.statusLine,
				Problem: "awaiting_human with no question open, for a stop: " + reason,
				Mend:    "when the person has acted: devrites-engine state stop --status running --reason … --resume …"})
		} else if anyOpen(w.Questions) {
			drifted(dr.statusLine, "status is awaiting_human, but it awaits no open question")
		} else {
			drifted(dr.statusLine, "status is awaiting_human, but no question is open")
		}
	}
	// Another question an interrupted raise left cannot take the pause too:
	// only one question pauses at a time. It still waits for a person.
	for _, b := range dr.interrupted {
		if dr.target != nil && b.QID != dr.target.QID {
			d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "drift", File: mdstore.QuestionsFile, Line: b.Line(),
				Problem: fmt.Sprintf("%s was raised to wait for a person, but state.md never paused on it (a raise interrupted after questions.md was written?), and the pause is %s's", b.QID, dr.target.QID),
				Mend:    "answer it once " + dr.target.QID + " is answered, or drop it: devrites-engine state resolve --drop " + d.e.ResolveFlags(question.FromBlock(b, d.e.Now())) + b.QID + " \"<reason>\""})
		}
	}
	return dr
}

func (d *checkup) stopReason(w *wsFiles) string {
	v, _ := w.State.Get("stop_reason")
	return strings.TrimSpace(v)
}

// reconcile makes state.md's pause agree with questions.md. A lost pause is
// restored as the raise would have written it; a pause on a question that
// is no longer open is lifted as the resolution would have lifted it, so
// that doctor --fix after an interrupted command leaves the files as the
// command would have.
func (d *checkup) reconcile(w *wsFiles) {
	before := len(d.Findings)
	dr := d.checkDrift(w)
	fixable := false
	for _, f := range d.Findings[before:] {
		fixable = fixable || f.Fixable
	}
	d.Findings = d.Findings[:before]
	if !fixable {
		return
	}
	f := &w.Files
	var did string
	switch {
	case dr.target != nil:
		q := question.FromBlock(dr.target, d.e.Now())
		// A raise interrupted after questions.md left state.md as it was,
		// with no pause: complete it with the raise's own log line.
		text := "raised " + q.QID + " (" + q.Gate + ")"
		if !dr.lost || dr.section > 0 {
			text = "doctor: awaiting " + q.QID + " (reconciled from questions.md)"
		}
		d.e.Pause(f, q, text)
		did = "state.md awaits " + q.QID + " (status awaiting_human)"
	case dr.awaited != "" && dr.block != nil && d.unrecorded(w, dr.block):
		return // evidence.go: never moved on from questions.md alone
	case dr.awaited != "" && dr.block != nil:
		q := question.FromBlock(dr.block, d.e.Now())
		st := q.Status
		d.e.ResolveState(f, q, st, true)
		next, _ := w.State.Get("next_action")
		did = dr.awaited + " is " + st + ": state.md running, next: " + next
	default:
		next := d.e.ContinueAction(w.State, "")
		w.State.ClearAwaiting()
		w.State.Set("status", "running")
		w.State.Set("next_action", next)
		w.State.AppendLog(d.e.LogLine(w.State, "doctor: no question open; next: "+next))
		did = "no question open: state.md running, next: " + next
	}
	w.dirtyS = true
	d.Repairs = append(d.Repairs, doctor.Repair{Kind: "drift", File: mdstore.StateFile, Did: did})
}

// mentions reports whether text names id as a word: "q-2026-11-29-001" is
// not named by "q-2026-11-29-0012".
func mentions(text []byte, id string) bool {
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte(id))
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(id)
		if (at == 0 || !idByte(text[at-1])) && (end == len(text) || !idByte(text[end])) {
			return true
		}
		i = at + 1
	}
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// anyOpen reports whether any question is open.
func anyOpen(qs *mdstore.Questions) bool {
	for _, b := range qs.Blocks() {
		if b.Value("status") == question.StatusOpen {
			return true
		}
	}
	return false
}
