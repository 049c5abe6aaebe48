package merge

import (
	"slices"
	"strings"
)

// A question's identity across versions, and the renumbering a merge
// makes of it.

// sameQuestion: two versions of one question, by raised_at, question text
// and slice; blocks without them are the same when their fields are.
func sameQuestion(a, b *qblock) bool {
	return a.hasIdent == b.hasIdent && a.ident == b.ident
}

// ids are every id a block has had: its renumbered_from chain (oldest
// first) and its id. A question is known by them, however often a merge
// renumbered it on some clone (docs/git.md).
func (b *qblock) ids() []string {
	return append(splitList(b.from), b.qid)
}

// shareID: two blocks that have had an id in common.
func shareID(a, b *qblock) bool {
	for _, x := range a.ids() {
		if slices.Contains(b.ids(), x) {
			return true
		}
	}
	return false
}

// joinChains is the renumbered_from chain of a block whose versions have
// the chains a and b: a's ids, then b's not in a, oldest first, less the
// id the block has now.
func joinChains(a, b, now string) string {
	var out []string
	for _, id := range append(splitList(a), splitList(b)...) {
		if id != now && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return strings.Join(out, ", ")
}

// match finds, for each block of base, the block of side that is the same
// question: the same id and question; else a block that has had one of
// its ids (renumbered_from, however many times) with the same question;
// else the same id and raised_at (the question's text was edited). Each
// block of side is matched at most once.
func match(base, side *qfile) (baseToSide, sideToBase matched) {
	baseToSide, sideToBase = make(matched, len(base.blocks)), make(matched, len(side.blocks))
	byID, byAny := map[string][]*qblock{}, map[string][]*qblock{}
	for _, s := range side.blocks {
		byID[s.qid] = append(byID[s.qid], s)
		for _, id := range s.ids() {
			byAny[id] = append(byAny[id], s)
		}
	}
	take := func(b *qblock, cands []*qblock, ok func(*qblock) bool) bool {
		for _, s := range cands {
			if sideToBase[s.n] == nil && ok(s) {
				baseToSide[b.n], sideToBase[s.n] = s, b
				return true
			}
		}
		return false
	}
	for _, b := range base.blocks {
		same := func(s *qblock) bool { return sameQuestion(b, s) }
		if take(b, byID[b.qid], same) || slices.ContainsFunc(b.ids(), func(id string) bool { return take(b, byAny[id], same) }) {
			continue
		}
		take(b, byID[b.qid], func(s *qblock) bool {
			r1, r2 := b.raised, s.raised
			return r1 == [16]byte{} || r2 == [16]byte{} || r1 == r2
		})
	}
	return baseToSide, sideToBase
}

// matched is, for each block of a version (by its place, n), the block of
// another version that is the same question, or nil.
type matched []*qblock

// of is the block matched with b; none for nil.
func (m matched) of(b *qblock) *qblock {
	if b == nil {
		return nil
	}
	return m[b.n]
}

// Rename is a block of theirs given a new id because ours had its id for
// another question.
type Rename struct{ From, To string }

// Renumbering says which id each version's questions have in the merged
// questions.md. It is a pure function of the three versions of
// questions.md (see Plan), so that every file's merge computes the same.
type Renumbering struct {
	base, ours, theirs map[string]string
	renamed, yielded   []Rename
	// Of the questions of the merged questions.md, by id: those that are
	// final on either side, and when each of the others was raised.
	final  map[string]bool
	raised map[string]string
	// moved says, for each version, under which id its questions.md has a
	// question that a record names by an earlier id of its chain: keyed by
	// that id, the digest of the question's text, and its raise time (and
	// again with no raise time, for records that copied none; see Moved).
	moved [3]map[movedKey]string
}

type movedKey struct {
	id     string
	raised string
	asks   [16]byte
}

// Version names, for Moved.
const (
	Base = iota
	Ours
	Theirs
)

// Moved is the id that version's questions.md has for the question whose
// text is question, raised at raised (when the record copied a raise time:
// two questions may ask one text), which a record (a decision, say) names
// by id, an earlier id of its renumbered_from chain: a merge git completed
// without the driver can leave a decisions.md that names a question so.
// ok is false when id is not such an earlier id of that question.
func (r *Renumbering) Moved(version int, id, raised, question string) (string, bool) {
	if r == nil {
		return "", false
	}
	to, ok := r.moved[version][movedKey{id, raised, digest(oneSpaced(question))}]
	return to, ok
}

// Final reports whether the merged questions.md has the question id final
// (answered, dropped or rejected on either side).
func (r *Renumbering) Final(id string) bool { return r != nil && r.final[id] }

// Raised is when the merged questions.md's open question id was raised,
// or "" (for a question that is final on either side too).
func (r *Renumbering) Raised(id string) string {
	if r == nil {
		return ""
	}
	return r.raised[id]
}

// Given lists every id the merge gives that its versions did not have:
// the new ids of theirs' renamed blocks and of ours' blocks that moved off
// an id another workspace holds (Project.Claimed).
func (r *Renumbering) Given() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, rn := range append(slices.Clip(r.renamed), r.yielded...) {
		out = append(out, rn.To)
	}
	return out
}

// Renamed lists the blocks of theirs that got a new id, in file order.
func (r *Renumbering) Renamed() []Rename {
	if r == nil {
		return nil
	}
	return r.renamed
}

func (r *Renumbering) maps() (base, ours, theirs map[string]string) {
	if r == nil {
		return nil, nil, nil
	}
	return r.base, r.ours, r.theirs
}

// renumbering derives the id maps from the plan.
func (p *plan) renumbering() *Renumbering {
	r := &Renumbering{base: map[string]string{}, ours: map[string]string{}, theirs: map[string]string{}, renamed: p.renamed, yielded: p.yielded}
	set := func(m map[string]string, from, to string) {
		if from != to {
			if _, dup := m[from]; !dup {
				m[from] = to
			}
		}
	}
	// The result is one side's questions.md (kept: the base's blocks to
	// that side's): the other side's blocks and the base's take the ids
	// their questions have in it.
	keep := func(kept matched, other *qfile, otherBase matched, into map[string]string) {
		for _, x := range other.blocks {
			if k := kept.of(otherBase.of(x)); k != nil {
				set(into, x.qid, k.qid)
			}
		}
		for _, b := range p.b.blocks {
			if k := kept.of(b); k != nil {
				set(r.base, b.qid, k.qid)
			}
		}
	}
	switch p.mode {
	case keepOurs:
		keep(p.bOurs, p.t, p.tBase, r.theirs)
	case keepTheirs:
		keep(p.bTheirs, p.o, p.oBase, r.ours)
	default:
		for o, id := range p.moved {
			set(r.ours, o.qid, id)
		}
		for _, t := range p.t.blocks {
			if o := p.paired.of(t); o != nil {
				set(r.theirs, t.qid, p.oursID(o))
			} else if id, ok := p.outID[t]; ok {
				set(r.theirs, t.qid, id)
			}
		}
		for _, b := range p.b.blocks {
			if o := p.bOurs.of(b); o != nil {
				set(r.base, b.qid, p.oursID(o))
			} else if t := p.bTheirs.of(b); t != nil {
				set(r.base, b.qid, r.theirsID(t.qid))
			}
		}
	}
	return r
}

// oursID is the id ours' block o has in the result.
func (p *plan) oursID(o *qblock) string {
	if id, ok := p.moved[o]; ok {
		return id
	}
	return o.qid
}

func (r *Renumbering) theirsID(id string) string {
	if to, ok := r.theirs[id]; ok {
		return to
	}
	return id
}
