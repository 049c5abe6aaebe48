//go:build unix

package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWorkspaceFileNotRegular: an agent that puts a named pipe where
// questions.md was does not make the hook wait for a writer until the
// harness gives up and lets the call through: the hook refuses at once,
// naming the file, and nothing is written.
func TestWorkspaceFileNotRegular(t *testing.T) {
	dir := project(t, "paused")
	q := filepath.Join(dir, ".devrites", "work", "pay", "questions.md")
	if err := os.Remove(q); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(q, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	ws := filepath.Join(dir, ".devrites", "work", "pay")
	read := func() string { // the regular files: reading the pipe would wait
		s, _ := os.ReadFile(filepath.Join(ws, "state.md"))
		d, _ := os.ReadFile(filepath.Join(ws, "decisions.md"))
		return string(s) + string(d)
	}
	before := read()
	done := make(chan Output, 1)
	go func() {
		done <- Handle(context.Background(), claude{}, fixture(t, "claude-code", "pre-write-src.json", dir), testEnv(dir))
	}()
	select {
	case out := <-done:
		kind, text := verdict(t, out)
		if kind != "deny" || !strings.Contains(text, "questions.md: not a regular file") {
			t.Errorf("got %s %q, want a denial naming questions.md as not a regular file", kind, text)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hook waited on the named pipe")
	}
	if fi, err := os.Lstat(q); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("questions.md is no longer the pipe: %v", err)
	}
	if read() != before {
		t.Error("state.md or decisions.md changed")
	}
}
