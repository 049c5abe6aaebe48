package merge

import (
	"slices"
	"testing"
)

// TestQuestionsInProject: the ids of the project's other workspaces count
// (docs/git.md, "Several features"): a block of theirs under an id another
// workspace holds is renumbered past every id in use; a block new on ours'
// side under an id a workspace of theirs holds (Claimed) moves on; the
// renumbering says both, so that state.md and decisions.md follow.
func TestQuestionsInProject(t *testing.T) {
	open := "status: open"
	id4 := "q-2026-11-29-004"
	for _, c := range []struct {
		name               string
		base, ours, theirs string
		pr                 Project
		want               string
		renamed, yielded   []Rename
	}{{
		name:    "theirs' id is another workspace's",
		base:    q(),
		ours:    q(blk(id2, open, "question: Ours?", t10)),
		theirs:  q(blk(id1, open, "question: Theirs?", t11)),
		pr:      Project{Reserved: []string{id1, id3}},
		want:    q(blk(id2, open, "question: Ours?", t10), blk(id4, open, "question: Theirs?", t11, "renumbered_from: "+id1)),
		renamed: []Rename{{id1, id4}},
	}, {
		name:    "ours' new id is a workspace of theirs'",
		base:    q(),
		ours:    q(blk(id1, open, "question: Ours?", t10)),
		theirs:  q(blk(id2, open, "question: Theirs?", t11)),
		pr:      Project{Reserved: []string{id1}, Claimed: []string{id1}},
		want:    q(blk(id3, open, "question: Ours?", t10, "renumbered_from: "+id1), blk(id2, open, "question: Theirs?", t11)),
		yielded: []Rename{{id1, id3}},
	}, {
		name:   "ours' block the base has keeps its id",
		base:   q(blk(id1, open, "question: Ours?", t10)),
		ours:   q(blk(id1, open, "question: Ours?", t10), blk(id2, open, "question: Two?", t11)),
		theirs: q(blk(id1, "status: answered", "question: Ours?", t10, "answer: yes")),
		pr:     Project{Claimed: []string{id1}},
		want:   q(blk(id1, "status: answered", "question: Ours?", t10, "answer: yes"), blk(id2, open, "question: Two?", t11)),
	}, {
		name:    "an id ours' question had is not another's",
		base:    q(),
		ours:    q(blk(id2, open, "question: Ours?", t10, "renumbered_from: "+id1)),
		theirs:  q(blk(id1, open, "question: Theirs?", t11)),
		want:    q(blk(id2, open, "question: Ours?", t10, "renumbered_from: "+id1), blk(id3, open, "question: Theirs?", t11, "renumbered_from: "+id1)),
		renamed: []Rename{{id1, id3}},
	}, {
		name:   "no project: as before",
		base:   q(),
		ours:   q(blk(id2, open, "question: Ours?", t10)),
		theirs: q(blk(id1, open, "question: Theirs?", t11)),
		want:   q(blk(id2, open, "question: Ours?", t10), blk(id1, open, "question: Theirs?", t11)),
	}} {
		t.Run(c.name, func(t *testing.T) {
			res, err := QuestionsIn(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)), c.pr)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(res.Data); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			if !slices.Equal(res.Renamed, c.renamed) || !slices.Equal(res.Yielded, c.yielded) {
				t.Errorf("renamed %v, yielded %v; want %v, %v", res.Renamed, res.Yielded, c.renamed, c.yielded)
			}
			r, err := PlanIn(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)), c.pr)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, rn := range append(slices.Clip(c.renamed), c.yielded...) {
				want = append(want, rn.To)
			}
			if got := r.Given(); !slices.Equal(got, want) {
				t.Errorf("Given() = %v, want %v", got, want)
			}
			for _, rn := range c.yielded {
				_, mapO, _ := r.maps()
				if mapO[rn.From] != rn.To {
					t.Errorf("ours' %s maps to %q, want %s", rn.From, mapO[rn.From], rn.To)
				}
			}
		})
	}
}
