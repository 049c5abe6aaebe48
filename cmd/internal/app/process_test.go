package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// engineName is the name under which TestMain registers the binary.
const engineName = "devrites-engine"

// engineCmd is the binary run as its own process in project dir, with a
// clean environment (childEnv). The process is this test binary started as
// devrites-engine: testscript.Main, in TestMain, runs the command instead of
// the tests when os.Args[0] names it. So nothing is built, and under -race
// the processes carry the race detector too.
func engineCmd(dir string, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		panic(err) // Linux answers from /proc/self/exe
	}
	cmd := exec.Command(self, args...)
	cmd.Args[0] = engineName
	cmd.Dir = dir
	cmd.Env = childEnv()
	return cmd
}

// childEnv is the caller's environment without any DEVRITES_* variable (a
// workspace, root, actor or clock of the person running the tests would
// otherwise steer the processes), plus the fixed clock and NO_COLOR.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DEVRITES_") {
			env = append(env, kv)
		}
	}
	return append(env, "DEVRITES_NOW="+testNow, "NO_COLOR=1")
}

// TestChildEnvironment: with DEVRITES_ROOT and DEVRITES_WORKSPACE naming a
// decoy workspace in the caller's environment, the processes the tests start
// act on their own project and leave the decoy alone.
func TestChildEnvironment(t *testing.T) {
	decoyDir, decoyWS := newProject(t)
	before := map[string][]byte{}
	ents, err := os.ReadDir(decoyWS)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(decoyWS, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		before[e.Name()] = b
	}
	t.Setenv("DEVRITES_ROOT", decoyDir)
	t.Setenv("DEVRITES_WORKSPACE", decoyWS)
	t.Setenv("DEVRITES_ACTOR", "decoy")
	t.Setenv("DEVRITES_NOW", "2031-01-01T00:00:00Z")

	for _, kv := range childEnv() {
		if strings.HasPrefix(kv, "DEVRITES_") && kv != "DEVRITES_NOW="+testNow {
			t.Errorf("childEnv passes %s on", kv)
		}
	}

	dir, ws := newProject(t)
	id := raised(t, runEngine(dir, raiseArgs("whose workspace?", "mine")...))
	b := readQuestions(t, ws).Find(id)
	if b == nil || b.Value("question") != "whose workspace?" {
		t.Fatalf("%s is not in the test's own questions.md", id)
	}
	for k, want := range map[string]string{"answered_by": "human", "raised_at": testNow} {
		if got := b.Value(k); got != want {
			t.Errorf("%s: %s = %q, want %q", id, k, got, want)
		}
	}
	if r := runEngine(dir, "state", "show", "--json"); r.code != 0 || strings.Contains(r.stdout, decoyWS) {
		t.Errorf("state show: exit %d, stdout %s; want exit 0 and the test's own workspace", r.code, r.stdout)
	}

	ents, err = os.ReadDir(decoyWS)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		b, err := os.ReadFile(filepath.Join(decoyWS, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := before[e.Name()]; !ok || string(b) != string(want) {
			t.Errorf("decoy %s: changed or created", e.Name())
		}
	}
	for name := range before {
		if !slices.Contains(names, name) {
			t.Errorf("decoy %s: removed", name)
		}
	}
}
