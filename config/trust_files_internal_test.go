package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCommandFiles: the project files a notify command runs are found, and
// what it only writes or names otherwise is not.
func TestCommandFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"hooks/notify.sh", "notify.sh", "tools/page.py", "FIRED", "out/log.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.sh")
	if err := os.WriteFile(outside, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string][]string{
		"sh ./hooks/notify.sh":              {"./hooks/notify.sh"},
		"./notify.sh":                       {"./notify.sh"},
		"python3 tools/page.py --fast":      {"tools/page.py"},
		"sh -c 'sh notify.sh'":              {"notify.sh"},
		"touch FIRED":                       nil,
		"echo hi >> out/log.txt":            nil,
		"sh " + outside:                     nil,
		"sh ./missing.sh":                   nil,
		"sh ./hooks/notify.sh; ./notify.sh": {"./hooks/notify.sh", "./notify.sh"},
	} {
		var got []string
		for _, p := range commandFiles(dir, cmd) {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, rel)
		}
		var w []string
		for _, x := range want {
			w = append(w, filepath.Clean(x))
		}
		if !slices.Equal(got, w) {
			t.Errorf("%q: got %q, want %q", cmd, got, w)
		}
	}
}
