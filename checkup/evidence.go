package checkup

import (
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// doctor never invents a decision (docs/trust.md): doctor --fix appends a
// decision, or moves state.md on, only from what the resolution's own
// transaction wrote besides questions.md — its Log line in state.md, or its
// entry in decisions.md (engine.ResolutionLogged, decisionLogged). A
// questions.md block that says answered with nothing else behind it (a
// branch that changed only that block, or a resolution cut off right after
// questions.md) is an error a person settles with state resolve; it is
// never repaired into an approval.

// evidenced reports whether b's resolution is backed by a record its own
// transaction wrote besides questions.md (engine.Evidenced).
func (d *checkup) evidenced(w *wsFiles, b *mdstore.Block) bool {
	return engine.Evidenced(w.State, b, func(id string) (engine.Record, bool) { return engine.LastRecord(d.ledgerOf(w.Decisions), id) })
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
