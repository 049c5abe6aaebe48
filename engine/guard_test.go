package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// scanBlocks finds, in a large file, exactly the blocks whose id, status,
// gate or SLA does not read, and the register row whose status does not.
func TestScanFindsWhatDoesNotRead(t *testing.T) {
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
	unclean := scanBlocks(mdstore.ParseQuestions(src)).unclean
	blocks := mdstore.ParseQuestions(src).Blocks()
	got := make([]bool, len(blocks))
	for i, b := range blocks {
		got[i] = !slices.ContainsFunc(unclean, func(u *mdstore.Block) bool { return u.Line() == b.Line() })
	}
	bad := 0
	for i, blk := range blocks {
		wantBad := blk.QID == "Q-002" // a register row, after the blocks
		if i < 3000 {
			wantBad = (i+1)%97 >= 1 && (i+1)%97 <= 4
		}
		if got[i] == wantBad {
			t.Errorf("%s (line %d): got clean %v, want %v", blk.QID, blk.Line(), got[i], !wantBad)
		}
		if !got[i] {
			bad++
		}
	}
	if bad != 4*31+1 { // four kinds of mistake, each every 97 blocks, and one row
		t.Errorf("got %d blocks that do not read, want %d", bad, 4*31+1)
	}
}
