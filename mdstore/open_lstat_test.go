package mdstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The Windows code paths, renamePending and openAfterLstat, build on every
// system, so these run everywhere.

func TestRenamePendingReplaces(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "questions.md")
	writeFile(t, dest, "old\n")
	p, err := newRenamePending(dest)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p.Name()) != dir || !IsTemp(filepath.Base(p.Name())) {
		t.Errorf("temporary file %s: want one beside %s that IsTemp knows", p.Name(), dest)
	}
	if _, err := p.WriteString("new\n"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dest); got != "old\n" {
		t.Errorf("before the replace the destination holds %q, want %q", got, "old\n")
	}
	if err := p.CloseAtomicallyReplace(); err != nil {
		t.Fatal(err)
	}
	if err := p.Cleanup(); err != nil {
		t.Errorf("Cleanup after the replace: %v, want nil", err)
	}
	if got := readFile(t, dest); got != "new\n" {
		t.Errorf("the destination holds %q, want %q", got, "new\n")
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("the directory holds %q, want questions.md alone", names)
	}
}

func TestRenamePendingCleanupLeavesDestination(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "state.md")
	writeFile(t, dest, "old\n")
	p, err := newRenamePending(dest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.WriteString("half a write"); err != nil {
		t.Fatal(err)
	}
	if err := p.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dest); got != "old\n" {
		t.Errorf("the destination holds %q, want it unchanged", got)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("the directory holds %q, want state.md alone", names)
	}
}

func TestOpenAfterLstat(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "notify.log")
	writeFile(t, regular, "x\n")
	f, err := openAfterLstat(regular, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("a regular file: %v", err)
	}
	f.Close()

	created := filepath.Join(dir, "new.log")
	f, err = openAfterLstat(created, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("a missing file with O_CREATE: %v", err)
	}
	f.Close()

	var nr *NotRegularError
	if _, err := openAfterLstat(dir, os.O_RDONLY, 0); !errors.As(err, &nr) {
		t.Errorf("a directory: got %v, want a NotRegularError", err)
	}
	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(regular, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if _, err := openAfterLstat(link, os.O_WRONLY|os.O_APPEND, 0); !errors.As(err, &nr) {
		t.Errorf("a symbolic link: got %v, want a NotRegularError", err)
	}
	if got := readFile(t, regular); got != "x\n" {
		t.Errorf("the link's target holds %q, want it untouched", got)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
