package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The helper test: Missing called from a test of its own, run again as a
// child process with the environment each case gives it.
func TestMissingChild(t *testing.T) {
	if os.Getenv("TESTTOOL_CHILD") == "" {
		t.Skip("run by TestMissing")
	}
	Missing(t, "frobnicate is not installed")
}

// Outside CI a missing tool skips the test and lists it in the file
// TESTTOOL_SKIPPED names; under CI it fails the test.
func TestMissing(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ci       string
		fails    bool
		listed   bool
		wantText string
	}{
		{"", false, true, "--- SKIP: TestMissingChild"},
		{"false", false, true, "--- SKIP: TestMissingChild"},
		{"0", false, true, "--- SKIP: TestMissingChild"},
		{"true", true, false, "CI: frobnicate is not installed: the test cannot run"},
		{"1", true, false, "CI: frobnicate is not installed: the test cannot run"},
	} {
		t.Run("CI="+c.ci, func(t *testing.T) {
			list := filepath.Join(t.TempDir(), "skipped")
			cmd := exec.Command(self, "-test.run", "^TestMissingChild$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTTOOL_CHILD=1", "CI="+c.ci, "TESTTOOL_SKIPPED="+list)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.fails {
				t.Errorf("got failed %v, want %v\n%s", failed, c.fails, out)
			}
			if !strings.Contains(string(out), c.wantText) {
				t.Errorf("got output\n%s\nwant it to hold %q", out, c.wantText)
			}
			b, _ := os.ReadFile(list)
			if got, want := string(b), "TestMissingChild: frobnicate is not installed\n"; c.listed && got != want || !c.listed && got != "" {
				t.Errorf("got list %q, want listed %v", got, c.listed)
			}
		})
	}
}
