package app

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// A command on a workspace collects only near a budget of 27 MiB, or two
// and a half times its three files when that is more, less the files when
// they are mapped into memory rather than in the heap; a GOGC or
// GOMEMLIMIT of the caller's stands.
func TestBudgetMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	ws := &mdstore.Workspace{Dir: dir}
	write := func(name string, size int) {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(mdstore.StateFile, 1<<20)
	write(mdstore.QuestionsFile, 5<<20)
	for _, tc := range []struct {
		decisions int
		mapped    bool
		want      int64
	}{{0, false, 27 << 20}, {6 << 20, false, 30 << 20}, {0, true, 21 << 20}, {6 << 20, true, 18 << 20}} {
		if tc.mapped && !(&mdstore.Workspace{Dir: dir, Mapped: true}).Maps() {
			continue // no fine-grained change times here: nothing is mapped
		}
		ws.Mapped = tc.mapped
		write(mdstore.DecisionsFile, tc.decisions)
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
		budgetMemory(workspaceBudget(ws))()
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("files of %d bytes: got limit %d, want %d", 6<<20+tc.decisions, got, tc.want)
		}
		if got := debug.SetGCPercent(100); got != -1 {
			t.Errorf("files of %d bytes: got GOGC %d, want off (-1)", 6<<20+tc.decisions, got)
		}
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv(env, "50")
		debug.SetMemoryLimit(math.MaxInt64)
		budgetMemory(workspaceBudget(ws))()
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 || debug.SetGCPercent(100) != 100 {
			t.Errorf("with %s: got limit %d, want the collector left alone", env, got)
		}
		t.Setenv(env, "")
	}
}

// A merge's budget is 22 MiB, or four times its largest version.
func TestMergeBudget(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, size := range []int{1 << 20, 7 << 20, 3 << 20} {
		f := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(f, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if got := mergeBudget(files[0]); got != 22<<20 {
		t.Errorf("a 1 MiB version: got %d, want 22 MiB", got)
	}
	if got := mergeBudget(append(files, filepath.Join(dir, "missing"))...); got != 28<<20 {
		t.Errorf("versions of 1, 7 and 3 MiB: got %d, want 28 MiB", got)
	}
}

func TestNextBudget(t *testing.T) {
	for _, tc := range []struct {
		budget, live int64
		high         int
		want         int64
		wantHigh     int
	}{
		{100, 10, 0, 100, 0}, {100, 80, 0, 100, 0}, {100, 80, 1, 100, 0},
		{100, 81, 0, 100, 1}, {100, 81, 1, 121, 0}, {100, 100, 1, 150, 0},
		{100, 200, 0, 300, 0},
	} {
		if got, high := nextBudget(tc.budget, tc.live, tc.high); got != tc.want || high != tc.wantHigh {
			t.Errorf("nextBudget(%d, %d, %d) = %d, %d; want %d, %d", tc.budget, tc.live, tc.high, got, high, tc.want, tc.wantHigh)
		}
	}
}

// A collection that finds more live than four fifths of the budget moves
// the budget past it: the collector is not left running again and again.
func TestWatchBudgetGrows(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const budget = 8 << 20
	debug.SetMemoryLimit(budget)
	stop := watchBudget(budget)
	defer stop()
	held := make([]byte, 16<<20) // live, and more than the budget
	for i := range held {
		held[i] = byte(i)
	}
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) == budget && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got <= 16<<20 {
		t.Errorf("got a budget of %d with %d bytes held, want more than them", got, len(held))
	}
	runtime.KeepAlive(held)
}
