package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestByRefusesLineBreaks: a name is one line. --by (on a resolve, a batch
// and a raise with --answered) and DEVRITES_ACTOR with a line break are
// refused, exit 7, files unchanged; without this, answered_by was written
// as a block of two lines (docs/commands.md, A person at a terminal). Testscript cannot pass a line break
// in an argument, so the binary is run here.
func TestByRefusesLineBreaks(t *testing.T) {
	x := newPlain(t)
	bin, dir := x.bin, x.dir
	x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers")
	if err := os.WriteFile(filepath.Join(dir, "batch.txt"), []byte("q-2026-11-29-001: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := x.files()
	for _, tc := range []struct {
		args  []string
		actor string
		want  string
	}{
		{[]string{"state", "resolve", "--by", "alice\nbob", "q-2026-11-29-001", "1"}, "",
			`devrites-engine: state resolve: --by "alice bob" has a line break`},
		{[]string{"state", "resolve", "--by", "alice\r", "--batch", "batch.txt"}, "",
			`devrites-engine: state resolve: --by "alice" has a line break`},
		{[]string{"question", "raise", "--gate", "advisory", "--question", "Q?", "--option", "A", "--answered", "A", "--by", "a\nb"}, "",
			`devrites-engine: question raise: --by "a b" has a line break`},
		{[]string{"state", "resolve", "q-2026-11-29-001", "1"}, "alice\nbob",
			"devrites-engine: state resolve: DEVRITES_ACTOR has a line break"},
	} {
		cmd := exec.Command(filepath.Join(bin, "devrites-engine"), tc.args...)
		cmd.Dir, cmd.Env = dir, x.env()
		if tc.actor != "" {
			cmd.Env = append(cmd.Env, "DEVRITES_ACTOR="+tc.actor)
		}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitBadArgs || !strings.HasPrefix(string(out), tc.want+"\n") {
			t.Errorf("%q: got %v:\n%s\nwant exit %d and %q", tc.args, err, out, exitBadArgs, tc.want)
		}
	}
	for name, b := range x.files() {
		if string(b) != string(before[name]) {
			t.Errorf("%s changed:\n%s", name, b)
		}
	}
}
