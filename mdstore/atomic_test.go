package mdstore

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// pending is what a transaction asks of its temporary files.
type pending interface {
	io.Writer
	Name() string
	Cleanup() error
	CloseAtomicallyReplace() error
}

// A pending file replaces its destination whole when it is renamed, and
// leaves nothing behind when it is cleaned up instead; its temporary name
// is one IsTemp knows, so that doctor finds what a kill leaves. This runs
// each system's own implementation (rename(2) through renameio, or
// MoveFileEx on Windows) and, on every system, the plain rename that
// Windows uses (renamePending).
func TestPendingFile(t *testing.T) {
	for _, impl := range []struct {
		name string
		open func(path string) (pending, error)
	}{
		{"this system's", func(path string) (pending, error) { return newPending(path, 0o644) }},
		{"rename", func(path string) (pending, error) { return newRenamePending(path) }},
	} {
		t.Run(impl.name, func(t *testing.T) { testPendingFile(t, impl.open) })
	}
}

func testPendingFile(t *testing.T, newPending func(path string) (pending, error)) {
	dir := t.TempDir()
	path := filepath.Join(dir, QuestionsFile)
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries := func() []string {
		es, _ := os.ReadDir(dir)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}

	t.Run("cleaned up", func(t *testing.T) {
		p, err := newPending(path)
		if err != nil {
			t.Fatal(err)
		}
		if !IsTemp(filepath.Base(p.Name())) {
			t.Errorf("temporary file %s: IsTemp says no", filepath.Base(p.Name()))
		}
		if _, err := p.Write([]byte("new\n")); err != nil {
			t.Fatal(err)
		}
		if err := p.Cleanup(); err != nil {
			t.Fatal(err)
		}
		if got := entries(); len(got) != 1 || got[0] != QuestionsFile {
			t.Errorf("left in the directory: %v, want only %s", got, QuestionsFile)
		}
		if b, _ := os.ReadFile(path); string(b) != "old\n" {
			t.Errorf("destination became %q, want it unchanged", b)
		}
	})

	t.Run("replaced", func(t *testing.T) {
		p, err := newPending(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write([]byte("new\n")); err != nil {
			t.Fatal(err)
		}
		if err := p.CloseAtomicallyReplace(); err != nil {
			t.Fatal(err)
		}
		if err := p.Cleanup(); err != nil {
			t.Errorf("Cleanup after the rename: %v, want nothing to do", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "new\n" {
			t.Errorf("destination is %q, want %q", b, "new\n")
		}
		if got := entries(); len(got) != 1 {
			t.Errorf("left in the directory: %v", got)
		}
	})
}

// OpenRegular opens a regular file, creates one when asked, and refuses a
// directory with a *NotRegularError naming what is there.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, NotifyLog)
	f, err := OpenRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("line\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, _ := os.ReadFile(path); string(b) != "line\n" {
		t.Errorf("got %q, want the line", b)
	}
	var nr *NotRegularError
	if _, err := OpenRegular(dir, os.O_RDONLY, 0); !errors.As(err, &nr) || nr.Type != "a directory" {
		t.Errorf("a directory: got %v, want a *NotRegularError for a directory", err)
	}
	if _, err := OpenRegular(filepath.Join(dir, "missing"), os.O_RDONLY, 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: got %v, want ErrNotExist", err)
	}
}
