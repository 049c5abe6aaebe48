package engine

import (
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
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
	sc := &scan{earlier: map[string]bool{}}
	for _, b := range qs.Blocks() {
		v, ok := b.Peek("status", "gate", "sla", "strategy", "renumberedfrom")
		if qid.Check(b.QID) != nil || !doctor.FieldsRead(b, v, ok) {
			sc.unclean = append(sc.unclean, b)
		}
		if v[0] == question.StatusOpen {
			sc.open = append(sc.open, b.QID)
		}
		if ok[3] && !b.Row() {
			sc.routed = append(sc.routed, b)
		}
		for id := range qid.All(v[4]) {
			sc.earlier[id] = true
			sc.earlier[strings.ToLower(id)] = true
		}
	}
	return sc
}

// openUnheld reports whether an open question is neither the one held
// nor queued in held: only then can a pause have been lost.
func (sc *scan) openUnheld(held []string) bool {
	return slices.ContainsFunc(sc.open, func(id string) bool { return !slices.Contains(held, id) })
}
