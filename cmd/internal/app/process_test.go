package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/cmd/internal/scripttest"
	"github.com/devrites/devrites-engine/internal/testhome"
)

// engineName is the name under which TestMain registers the binary.
const engineName = "devrites-engine"

// engineCmd is the binary run as its own process in project dir
// (scripttest.Program), with a clean environment (childEnv).
func engineCmd(dir string, args ...string) *exec.Cmd {
	return scripttest.Program(engineName, dir, args...)
}

// childEnv is the environment of the processes the tests start
// (scripttest.Env).
func childEnv() []string { return scripttest.Env() }

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

// trustFile trusts the file at path in the test run's trust store
// (scripttest.WithHome), as a person would with devrites-engine trust.
func trustFile(t *testing.T, path string) { testhome.Trust(t, path) }
