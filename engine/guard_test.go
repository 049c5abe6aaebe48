package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// cleanBlocks, which shares the blocks among goroutines, says of each block
// of a large file what one pass in order says; the race detector (the test
// suite runs this package under it) watches the goroutines.
func TestCleanBlocksAgreesWithOnePass(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Questions\n")
	for i := 1; i <= 3000; i++ {
		status, gate, sla, id := "answered", "blocking", "15m", fmt.Sprintf("q-2026-11-29-%03d", i)
		switch i % 97 {
		case 1:
			status = "opne"
		case 2:
			gate = "sometimes"
		case 3:
			sla = "soon"
		case 4:
			id = fmt.Sprintf("q-2026-02-30-%03d", i)
		}
		fmt.Fprintf(&b, "\n## %s\nstatus: %s\ngate: %s\nsla: %s\noptions: |\n  1. A\n  2. B\n", id, status, gate, sla)
	}
	b.WriteString("\n## Question register\n| Question ID | Status | Gate |\n|---|---|---|\n| Q-001 | open | blocking |\n| Q-002 | shut | blocking |\n")
	src := []byte(b.String())
	got := cleanBlocks(mdstore.ParseQuestions(src).Blocks())
	want := mdstore.ParseQuestions(src).Blocks()
	if len(got) != len(want) {
		t.Fatalf("got %d verdicts, want %d", len(got), len(want))
	}
	bad := 0
	for i, blk := range want {
		w := qid.Check(blk.QID) == nil && blockReads(blk)
		if got[i] != w {
			t.Errorf("%s (line %d): got clean %v, want %v", blk.QID, blk.Line(), got[i], w)
		}
		if !w {
			bad++
		}
	}
	if bad != 4*31+1 { // four kinds of mistake, each every 97 blocks, and one row
		t.Errorf("got %d blocks that do not read, want %d", bad, 4*31+1)
	}
}
