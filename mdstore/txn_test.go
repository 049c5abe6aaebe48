package mdstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func txWorkspace(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Workspace{Dir: dir}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// A decision that fits in the page where decisions.md ends is appended in
// place (same inode); one that would cross into the next page, or a change
// that is not an append, replaces the file by rename. The bytes are the
// same either way.
func TestDecisionsAppend(t *testing.T) {
	page := os.Getpagesize()
	entry := "\n## q-2026-11-29-002 answered\nanswer: yes\n"
	for _, tc := range []struct {
		name, before, after string
		inPlace             bool
	}{
		{"fits", "# Decisions\n", "# Decisions\n" + entry, true},
		{"fills the page", strings.Repeat("x", page-len(entry)), strings.Repeat("x", page-len(entry)) + entry, true},
		{"crosses a page", strings.Repeat("x", page-len(entry)+1), strings.Repeat("x", page-len(entry)+1) + entry, false},
		{"starts a page", strings.Repeat("x", page), strings.Repeat("x", page) + entry, true},
		{"not an append", "# Decisions\nold\n", "# Decisions\nnew\n" + entry, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := txWorkspace(t, map[string]string{DecisionsFile: tc.before})
			path := ws.Path(DecisionsFile)
			ino := inode(t, path)
			_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
				if _, err := tx.Read(DecisionsFile); err != nil {
					return 0, err
				}
				tx.Write(DecisionsFile, []byte(tc.after))
				return 0, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.after {
				t.Errorf("got %q, want %q", got, tc.after)
			}
			if same := inode(t, path) == ino; same != tc.inPlace {
				t.Errorf("appended in place: got %v, want %v", same, tc.inPlace)
			}
		})
	}
}

// A writer that ignores the lock and changes a file between the read and
// the write, even to the same size, makes the transaction run again on
// what it wrote; one that only touches the file, or writes the same bytes,
// does not.
func TestTransactSeesWriterIgnoringLock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(path string) error
		runs   int
	}{
		{"same size", func(p string) error { return os.WriteFile(p, []byte("# Questions\nB\n"), 0o644) }, 2},
		{"longer", func(p string) error { return os.WriteFile(p, []byte("# Questions\nA\nB\n"), 0o644) }, 2},
		{"replaced", func(p string) error {
			if err := os.WriteFile(p+".new", []byte("# Questions\nC\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(p+".new", p)
		}, 2},
		{"touched", func(p string) error { now := time.Now().Add(time.Second); return os.Chtimes(p, now, now) }, 1},
		{"same bytes", func(p string) error { return os.WriteFile(p, []byte("# Questions\nA\n"), 0o644) }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := txWorkspace(t, map[string]string{QuestionsFile: "# Questions\nA\n"})
			path := ws.Path(QuestionsFile)
			runs := 0
			_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
				runs++
				b, err := tx.Read(QuestionsFile)
				if err != nil {
					return 0, err
				}
				if runs == 1 {
					if err := tc.change(path); err != nil {
						t.Fatal(err)
					}
				}
				tx.Write(QuestionsFile, append(bytes.Clone(b), "edited\n"...))
				return 0, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if runs != tc.runs {
				t.Errorf("got %d runs, want %d", runs, tc.runs)
			}
			got, _ := os.ReadFile(path)
			if !strings.HasSuffix(string(got), "\nedited\n") || strings.Count(string(got), "edited") != 1 {
				t.Errorf("got %q, want the writer's content and one edit", got)
			}
		})
	}
}
