package engine

import (
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// scan is what one pass over questions.md's blocks finds, for the write
// guard (guard.go) and follow (identity.go) to share: a transaction reads
// each block's few fields once, not once per check. It describes the
// questions as they were when scanned; an edit after it is not seen.
type scan struct {
	unclean []*mdstore.Block // blocks whose id, status, gate or SLA does not read (blockReads)
	open    []string         // the ids of the open blocks, in file order
	routed  []*mdstore.Block // blocks (not register rows) with a strategy field
	earlier map[string]bool  // the ids renumbered_from fields name
}

// scanBlocks reads the fields of every block that the guard and follow
// need, in one walk over each block's fields.
func scanBlocks(qs *mdstore.Questions) *scan {
	sc := &scan{}
	for _, b := range qs.Blocks() {
		v, ok := b.Peek("status", "gate", "sla", "strategy", "renumberedfrom")
		if qid.Check(b.QID) != nil || !fieldsRead(b, v, ok) {
			sc.unclean = append(sc.unclean, b)
		}
		if v[0] == StatusOpen {
			sc.open = append(sc.open, b.QID)
		}
		if ok[3] && !b.Row() {
			sc.routed = append(sc.routed, b)
		}
		for id := range qid.All(v[4]) {
			if sc.earlier == nil {
				sc.earlier = map[string]bool{}
			}
			sc.earlier[id] = true
		}
	}
	return sc
}

// fieldsRead reports whether a block's status, gate and SLA (v and ok, as
// Peek gave them in that order) read as a write needs them: a status, and
// a gate and an SLA that read when present.
func fieldsRead(b *mdstore.Block, v [mdstore.PeekMax]string, ok [mdstore.PeekMax]bool) bool {
	status, gate, sla := v[0], v[1], v[2]
	hasGate := ok[1]
	if strings.TrimSpace(gate) == "" && headingGate(b) != "" {
		gate, hasGate = headingGate(b), true // "## Q-002 validating", as checkBlock reads it
	}
	return ok[0] && slices.Contains(questionStatuses, status) &&
		(!hasGate || b.Row() && gate == "" || mdstore.ValidGate(gate)) &&
		(!ok[2] || slaError(sla) == nil)
}

// openUnheld reports whether an open question is neither the one held
// nor queued in held: only then can a pause have been lost.
func (sc *scan) openUnheld(held []string) bool {
	return slices.ContainsFunc(sc.open, func(id string) bool { return !slices.Contains(held, id) })
}
