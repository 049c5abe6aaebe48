package mdstore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIgnore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".gitignore")
	if err := os.WriteFile(path, []byte("/a\nkeep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second run finds them listed
		if err := Ignore(dir, "mine", "a", "b", "c"); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	if want := "/a\nkeep\n# mine\nb\nc\n"; string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
}
