package app

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// The memory limit of a command that reads a whole workspace is 24 MiB, or
// two and a half times its three files when that is more; a GOMEMLIMIT of
// the caller's stands.
func TestLimitMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
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
	}{{0, 24 << 20}, {6 << 20, 30 << 20}} {
		write(mdstore.DecisionsFile, tc.decisions)
		debug.SetMemoryLimit(math.MaxInt64)
		limitMemory(ws)
		if got := debug.SetMemoryLimit(-1); got != tc.want {
			t.Errorf("files of %d bytes: got limit %d, want %d", 6<<20+tc.decisions, got, tc.want)
		}
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(math.MaxInt64)
	limitMemory(ws)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT: got limit %d, want it left alone", got)
	}
}
