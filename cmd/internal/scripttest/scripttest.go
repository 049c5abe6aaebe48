// Package scripttest is what the end-to-end scripts of devrites-engine
// need: a fixed clock, the extra script commands and the program that
// holds a workspace lock.
package scripttest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/devrites/devrites-engine/internal/testhome"
	"github.com/devrites/devrites-engine/internal/testtool"
	"github.com/devrites/devrites-engine/trust"
)

// Now is the clock of every script (DEVRITES_NOW).
const Now = "2026-11-29T14:02:11Z"

// Program is this test binary run as its own process under name, in dir,
// with Env: testscript.Main, in the test's TestMain, runs the program
// registered under that name instead of the tests when os.Args[0] names it.
// So nothing is built, and under -race the processes carry the race
// detector too.
func Program(name, dir string, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		panic(err) // Linux answers from /proc/self/exe
	}
	cmd := exec.Command(self, args...)
	cmd.Args[0] = name
	cmd.Dir = dir
	cmd.Env = Env()
	return cmd
}

// Env is the caller's environment without any DEVRITES_* variable (a
// workspace, root, actor or clock of the person running the tests would
// otherwise steer the processes), plus the fixed clock and NO_COLOR.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DEVRITES_") {
			env = append(env, kv)
		}
	}
	return append(env, "DEVRITES_NOW="+Now, "NO_COLOR=1")
}

// WithHome wraps the tests' m so that the run has HOME and
// XDG_CONFIG_HOME in a temporary directory, removed afterwards: the
// processes Program starts (and the tests) read and write their trust
// store there, never in the person's home.
func WithHome(m testscript.TestingM) testscript.TestingM { return withHome{m} }

type withHome struct{ m testscript.TestingM }

func (w withHome) Run() int { return testhome.Run(w.m.Run) }

// Params runs the scripts in dir with a fixed clock, NO_COLOR, HOME and
// XDG_CONFIG_HOME inside $WORK (.home, .config), and the
// extra script commands:
//
//	exits CODE PROGRAM ARGS…   run, and assert the exit code
//	snapshot DIR              remember every file under DIR
//	unchanged DIR             assert DIR holds exactly the remembered bytes
//	waitfile PATH             wait (up to 10s) until PATH exists
//	mkfifo PATH               create a named pipe
//	printed CODE SOURCE PREFIX ANSWER [NAME]
//	                          run a command the engine printed (printed.go)
//	capture VAR FILE REGEXP   set $VAR to REGEXP's first group in FILE (stdout, stderr or a file)
//	atterminal CODE PROGRAM ARGS…  run as a person at a terminal (person.go)
//	trusted FILE…             write FILE's current content into the trust store, as a
//	                          setup script does (docs/trust.md): trust needs a terminal
func Params(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		// [ci]: the tests run under CI (testtool.CI), where a test whose tool
		// is missing fails instead of skipping.
		Condition: func(cond string) (bool, error) {
			if cond == "ci" {
				return testtool.CI(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("DEVRITES_NOW", Now)
			env.Setenv("NO_COLOR", "1")
			// The trust store and any config the programs read live in
			// the script's own directory, never the person's.
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			env.Values["snapshots"] = map[string]map[string][]byte{}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":               exits,
			"snapshot":            snapshot,
			"unchanged":           unchanged,
			"waitfile":            waitFile,
			"mkfifo":              mkfifo,
			"printed":             printed,
			"capture":             capture,
			"trusted":             trusted,
			"atterminal":          atTerminal,
			"printed-at-terminal": printedAtTerminal,
		},
	}
}

func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	execExit(ts, "exits", want, args[1:])
}

// execExit runs the command args and fails the script unless it exits
// with the code want; name is the script command, for its messages.
func execExit(ts *testscript.TestScript, name string, want int, args []string) {
	err := ts.Exec(args[0], args[1:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%s: %v", name, err)
	}
	if got != want {
		ts.Fatalf("%s: exit code %d, want %d", name, got, want)
	}
}

// tree reads every regular file under dir, keyed by its relative path.
func tree(ts *testscript.TestScript, dir string) map[string][]byte {
	out := map[string][]byte{}
	root := ts.MkAbs(dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = b
		} else if !d.IsDir() {
			out[rel+" ("+d.Type().String()+")"] = nil
		}
		return nil
	})
	ts.Check(err)
	return out
}

func snapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: snapshot DIR")
	}
	ts.Value("snapshots").(map[string]map[string][]byte)[args[0]] = tree(ts, args[0])
}

func unchanged(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unchanged DIR")
	}
	before, ok := ts.Value("snapshots").(map[string]map[string][]byte)[args[0]]
	if !ok {
		ts.Fatalf("unchanged: no snapshot of %s", args[0])
	}
	after := tree(ts, args[0])
	for p, b := range before {
		a, ok := after[p]
		if !ok {
			ts.Fatalf("%s: removed", p)
		}
		if !bytes.Equal(a, b) {
			ts.Fatalf("%s: changed:\n--- before\n%s\n--- after\n%s", p, b, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			ts.Fatalf("%s: created", p)
		}
	}
}

// HoldLock is the program "holdlock LOCKFILE READYFILE": it takes the flock on os.Args[1], creates os.Args[2], and sleeps
// until killed.
func HoldLock() {
	fl := flock.New(os.Args[1])
	if err := fl.Lock(); err != nil {
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], nil, 0o644); err != nil {
		os.Exit(1)
	}
	time.Sleep(time.Minute)
}

func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
	}
	ts.Fatalf("waitfile: %s did not appear", args[0])
}

func mkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(makeFIFO(ts.MkAbs(args[0])))
}

func capture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: capture VAR FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[2])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile(args[1]))
	if len(m) < 2 {
		ts.Fatalf("capture: no match of %q with a group in %s", args[2], args[1])
	}
	ts.Setenv(args[0], m[1])
}

// trusted writes each file's path and SHA-256 into the script's trust
// store ($XDG_CONFIG_HOME/devrites-engine/trust), the documented format a
// setup script writes: the trust command itself needs a person at a
// terminal, which a script is not.
func trusted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: trusted FILE…")
	}
	s := trust.At(filepath.Join(ts.Getenv("XDG_CONFIG_HOME"), "devrites-engine", "trust"))
	for _, f := range args {
		if _, err := s.Trust(ts.MkAbs(f)); err != nil {
			ts.Fatalf("trusted: %v", err)
		}
	}
}
