package engine

import (
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// doctor never invents a decision (docs/doctor.md, "Evidence"): doctor
// --fix appends a decision, or moves state.md on, only from what the
// resolution's own transaction wrote besides questions.md — its Log line in
// state.md, or its entry in decisions.md. A questions.md block that says
// answered with nothing else behind it (a branch that changed only that
// block, or a resolution cut off right after questions.md) is an error a
// person settles with state resolve; it is never repaired into an
// approval.

// noRecord is the problem of a final block without evidence.
const noRecord = "answered with no record: a person must confirm it with state resolve"

// resolutionLogged reports whether state.md's Log holds the line the
// resolution of id, with status, wrote ("answered q-…", "recorded q-…",
// "auto-picked q-…", with what follows).
func resolutionLogged(s *mdstore.State, id, status string) bool {
	head, end, ok := s.LogSpan()
	if !ok {
		return false
	}
	prefixes := []string{status + " " + id, status + " provisional " + id, "recorded " + id, "auto-picked " + id}
	for i := head + 1; i < end; i++ {
		l := s.Line(i)
		_, text, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		for _, p := range prefixes {
			if rest, ok := strings.CutPrefix(text, p); ok && (rest == "" || strings.ContainsRune(" ;(", rune(rest[0]))) {
				return true
			}
		}
	}
	return false
}

// decisionLogged reports whether decisions.md records id with status.
func decisionLogged(ledger []*mdstore.Block, id, status string) bool {
	for _, b := range ledger {
		if b.QID == decisionHeading(id, status) {
			return true
		}
	}
	return false
}

// evidenced reports whether b's resolution is backed by a record its own
// transaction wrote besides questions.md.
func (d *checkup) evidenced(w *wsFiles, b *mdstore.Block) bool {
	st := b.Value("status")
	return resolutionLogged(w.state, b.QID, st) || decisionLogged(d.ledgerOf(w.decisions), b.QID, st)
}

// unrecorded reports whether b is final in questions.md with nothing else
// behind it, in files doctor may otherwise reconcile.
func (d *checkup) unrecorded(w *wsFiles, b *mdstore.Block) bool {
	switch b.Value("status") {
	case question.StatusAnswered, question.StatusDropped, question.StatusRejected:
		return w.held == "" && !d.evidenced(w, b)
	}
	return false
}
