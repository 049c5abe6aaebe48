package merge

import (
	"bytes"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// fuzzSeeds are three versions of questions.md, drawn from the unit tests'
// shapes: renumbering, resolutions, fences, CRLF, text outside blocks.
var fuzzSeeds = [][3]string{
	{q(), q(blk(id1, "status: open", "question: Ours?", t10)), q(blk(id1, "status: answered", "question: Theirs?", t10, "answer: no"))},
	{q(blk(id1, "status: open", t10)), q(blk(id1, "status: answered", t10, "answer: yes")), q(blk(id1, "status: rejected", t10, "answer: |", "  two", "  lines"))},
	{q(blk(id1, "status: open", "question: T?", t11)), q(blk(id1, "status: open", t10), blk(id2, "status: open", "question: T?", t11, "renumbered_from: "+id1)), q(blk(id1, "status: answered", "question: T?", t11, "answer: y"), blk(id2, "status: open", t10))},
	{crlf(q(blk(id1, "status: open", t10))), crlf(q(blk(id1, "status: open", t10), blk(id2, "status: open", t11))), q(blk(id2, "status: open", "question: other", t10, "supersedes: "+id1))},
	{"# Questions\n\n```\n## q-2026-11-29-009\n```\n", "# Questions\n\n```\n## q-2026-11-29-009\n```\n" + blk(id1, "status: open"), "intro\n" + blk(id1, "status: open", "options: |", "  1. a", "  ```", "  2. b")},
	{"", "## q-2026-11-29-001\nstatus: open", "## q-2026-11-29-001\nstatus: open\r"},
	{q(blk("q-2026-13-45-001", "status: open")), q(blk("q-2026-13-45-001", "status: open"), blk("q-2026-13-45-002", "status: open")), q(blk("q-2026-13-45-002", "status: answered", "question: x"))},
}

// FuzzMerge: merging never panics, whatever the three versions hold, for
// each of the three files. A merge of questions.md that returns a result
// keeps every block of ours under its id and every block of theirs under
// the id the renumbering gives it, and a side merged with itself is
// itself; a merge of decisions.md that returns a clean result keeps every
// entry of either side (a side equal to the base has nothing to add: the
// result is the other side, as git itself would take it).
func FuzzMerge(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s[0]), []byte(s[1]), []byte(s[2]))
	}
	f.Add([]byte(state(nil, nil)), []byte(state([][2]string{{"status", "awaiting_human"}}, [][2]string{{"question_id", id1}}, "2026-11-29T10:00:00Z a")),
		[]byte(crlf("- Status: blocked\n- Stop reason: x\n\n## Log\n- b\n")))
	f.Add([]byte(""), []byte("| status | running |\n"), []byte("```\n## Log\n```\n- Status: running\n"))
	f.Add([]byte(dec()), []byte(dec(entry(id1, "answered", "yes", "2026-11-29T10:00:00Z"))), []byte(dec(entry(id2, "dropped", "x", "2026-11-29T09:00:00Z"))))
	f.Add([]byte(""), []byte("## a\n## b"), []byte("## b\r\n## c\r\n"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		r, planErr := Plan(Of(base), Of(ours), Of(theirs))
		if res, err := Questions(Of(base), Of(ours), Of(theirs)); err == nil {
			if planErr != nil {
				t.Fatalf("Questions merged, Plan failed: %v", planErr)
			}
			checkQuestions(t, base, ours, theirs, res, r)
		}
		_, _ = State(Of(base), Of(ours), Of(theirs), r)
		if res, err := Decisions(Of(base), Of(ours), Of(theirs), nil); err == nil && res.Clean() {
			checkDecisions(t, base, ours, theirs, res)
		}
	})
}

func checkQuestions(t *testing.T, base, ours, theirs []byte, res Result, r *Renumbering) {
	got := map[string]int{}
	for _, b := range mdstore.ParseQuestions(res.Data).Blocks() {
		got[b.QID]++
	}
	for _, b := range mdstore.ParseQuestions(ours).Blocks() {
		if got[b.QID] == 0 && !bytes.Equal(ours, base) {
			t.Fatalf("ours' %s is not in the result:\n%s", b.QID, res.Data)
		}
	}
	for _, b := range mdstore.ParseQuestions(theirs).Blocks() {
		if id := r.theirsID(b.QID); got[id] == 0 && !bytes.Equal(theirs, base) {
			t.Fatalf("theirs' %s (as %s) is not in the result:\n%s", b.QID, id, res.Data)
		}
	}
	if same, err := Questions(Of(base), Of(ours), Of(ours)); err != nil || !bytes.Equal(same.Data, ours) {
		t.Fatalf("ours merged with itself: %v\n%s", err, same.Data)
	}
}

func checkDecisions(t *testing.T, base, ours, theirs []byte, res Result) {
	norms, decided := map[[16]byte]bool{}, map[[3]string]bool{}
	for _, e := range parseDecisions(res.Data, nil, nil, Ours).entries {
		norms[e.norm], decided[[3]string{e.id, e.status, e.answer}] = true, true
	}
	old := map[[16]byte]bool{}
	for _, e := range parseDecisions(base, nil, nil, Ours).entries {
		old[e.norm] = true
	}
	for _, e := range parseDecisions(ours, nil, nil, Ours).entries {
		if !norms[e.norm] && !bytes.Equal(ours, base) {
			t.Fatalf("ours' entry %q is not in the result:\n%s", e.head, res.Data)
		}
	}
	for _, e := range parseDecisions(theirs, nil, nil, Ours).entries {
		kept := norms[e.norm] || e.id != "" && decided[[3]string{e.id, e.status, e.answer}]
		if !kept && !old[e.norm] && !bytes.Equal(theirs, base) {
			t.Fatalf("theirs' entry %q is not in the result:\n%s", e.head, res.Data)
		}
	}
}
