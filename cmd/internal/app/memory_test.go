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
// and a half times its three files when that is more; a GOGC or GOMEMLIMIT
// of the caller's stands.
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
		want      int64
	}{{0, 27 << 20}, {6 << 20, 30 << 20}} {
		write(mdstore.DecisionsFile, tc.decisions)
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
		budgetMemory(ws)()
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
		budgetMemory(ws)()
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 || debug.SetGCPercent(100) != 100 {
			t.Errorf("with %s: got limit %d, want the collector left alone", env, got)
		}
		t.Setenv(env, "")
	}
}

func TestNextBudget(t *testing.T) {
	for _, tc := range []struct{ budget, live, want int64 }{
		{100, 10, 100}, {100, 80, 100}, {100, 81, 121}, {100, 200, 300},
	} {
		if got := nextBudget(tc.budget, tc.live); got != tc.want {
			t.Errorf("nextBudget(%d, %d) = %d, want %d", tc.budget, tc.live, got, tc.want)
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
