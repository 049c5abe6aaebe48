package app

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/internal/testtool"
	"github.com/devrites/devrites-engine/mdstore"
)

// A person at a terminal, driven through tmux: the binary runs in a real
// pseudo-terminal, keys are sent with send-keys and the screen is read with
// capture-pane.

// tty is one tmux session on a private server, running the binary.
type tty struct {
	t    *testing.T
	sock string
	bin  string   // a directory with devrites-engine in it
	dir  string   // the project
	more []string // more of the environment, for one test
}

// newTTY makes a project with an initialised workspace "pay" and a private
// tmux server. The binary is this test binary under the name
// devrites-engine, which TestMain runs as the program.
func newTTY(t *testing.T) *tty {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testtool.Missing(t, "tmux is not installed (.ci/run installs it)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "tm") // a short path: a socket's name has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	x := &tty{t: t, sock: filepath.Join(sockDir, "s"), bin: t.TempDir(), dir: t.TempDir()}
	if err := os.Symlink(self, filepath.Join(x.bin, "devrites-engine")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", x.sock, "kill-server").Run() })
	// A program started with SIGINT ignored (a background job of a shell)
	// passes that on to the tmux server and the pane: Ctrl-C would then
	// not reach the binary as it reaches a person's.
	if signal.Ignored(os.Interrupt) {
		signal.Reset(os.Interrupt)
	}
	x.run("init", "pay")
	return x
}

// env is a clean environment: nothing of the caller's DEVRITES_* settings,
// and the test run's trust store (scripttest.WithHome).
func (x *tty) env() []string {
	return append([]string{"PATH=" + x.bin + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + x.dir, "TERM=xterm",
		"XDG_CONFIG_HOME=" + os.Getenv("XDG_CONFIG_HOME"),
		"DEVRITES_NOW=" + testNow, "NO_COLOR=1"}, x.more...)
}

// run runs the binary to completion without a terminal, as an agent would.
func (x *tty) run(args ...string) string {
	x.t.Helper()
	cmd := exec.Command(filepath.Join(x.bin, "devrites-engine"), args...)
	cmd.Dir, cmd.Env = x.dir, x.env()
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		x.t.Fatal(err)
	}
	return string(out)
}

// start runs the binary in a new tmux session at 120x50, then prints its
// exit code and waits, so that the screen can still be read.
func (x *tty) start(args ...string) {
	x.t.Helper()
	line := "env -i"
	for _, kv := range x.env() {
		line += " '" + kv + "'"
	}
	line += " devrites-engine"
	for _, a := range args {
		line += " '" + a + "'"
	}
	line += "; echo EXIT=$?; sleep 60"
	// remain-on-exit keeps the screen readable after Ctrl-C ends the pane;
	// exit-empty off keeps the server up between the sessions of one test
	// (a server whose last session was killed may still be exiting when
	// the next new-session reaches it).
	cmd := exec.Command("tmux", "-S", x.sock, "-f", "/dev/null", "start-server", ";", "set-option", "-s", "exit-empty", "off", ";",
		"set-option", "-g", "remain-on-exit", "on", ";",
		"new-session", "-d", "-s", "t", "-x", "120", "-y", "50", "-c", x.dir, line)
	cmd.Env = append(os.Environ(), "TMUX=") // never attach to the caller's tmux
	if out, err := cmd.CombinedOutput(); err != nil {
		x.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
}

// keys types into the session: literal text, or key names such as Enter.
func (x *tty) keys(keys ...string) {
	x.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", x.sock, "send-keys", "-t", "t"}, keys...)...).CombinedOutput(); err != nil {
		x.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// screen is what the terminal shows now.
func (x *tty) screen() string {
	out, err := exec.Command("tmux", "-S", x.sock, "capture-pane", "-p", "-t", "t").CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux capture-pane: %v\n%s", err, out)
	}
	return string(out)
}

// waitFor waits until the screen shows want n times (10 s at most).
// capture-pane trims trailing blanks: a prompt "answer> " reads "answer>".
func (x *tty) waitFor(want string, n int) string {
	x.t.Helper()
	var s string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s = x.screen(); strings.Count(s, want) >= n {
			return s
		}
	}
	out, _ := exec.Command("sh", "-c", "for p in $(tmux -S "+x.sock+" list-panes -F '#{pane_pid}'); do ps -o pid,pgid,tpgid,stat,wchan:20,comm -p $p --ppid $p; done").CombinedOutput()
	x.t.Fatalf("the screen never showed %q %d times:\n%s\n%s", want, n, s, out)
	return ""
}

func (x *tty) files() map[string][]byte {
	out := map[string][]byte{}
	ws := filepath.Join(x.dir, ".devrites", "work", "pay")
	for _, name := range []string{mdstore.StateFile, mdstore.QuestionsFile, mdstore.DecisionsFile} {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			x.t.Fatal(err)
		}
		out[name] = b
	}
	return out
}

func (x *tty) questions() *mdstore.Questions {
	b, err := os.ReadFile(filepath.Join(x.dir, ".devrites", "work", "pay", mdstore.QuestionsFile))
	if err != nil {
		x.t.Fatal(err)
	}
	return mdstore.ParseQuestions(b)
}

// TestAnswerAtTerminal: `answer` shows the awaited question first, refuses
// an option that does not exist and asks again, takes a number, then a
// reject with its feedback (an empty feedback asks again), and records who
// answered.
func TestAnswerAtTerminal(t *testing.T) {
	x := newTTY(t)
	if err := os.WriteFile(filepath.Join(x.dir, ".devrites", "AFK"), []byte("allow_gates: [validating]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustFile(t, filepath.Join(x.dir, ".devrites", "AFK"))
	x.run("question", "raise", "--gate", "validating", "--question", "CSV or XLSX?", "--option", "CSV", "--option", "XLSX")
	x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers — unbiased", "--option", "Half up")

	x.start("answer", "--by", "alice")
	s := x.waitFor("answer>", 1)
	if !strings.Contains(s, "(1 of 2)") || !strings.Contains(s, "Which rounding?") || strings.Contains(s, "CSV or XLSX?") {
		t.Fatalf("the awaited question must come first, alone:\n%s", s)
	}
	x.keys("7", "Enter")
	x.waitFor("not recorded: q-2026-11-29-002: option 7 does not exist", 1)
	x.keys("2", "Enter")
	x.waitFor("(2 of 2)", 1)
	x.keys("r", "Enter")
	x.waitFor("feedback>", 1)
	x.keys("Enter")
	x.waitFor("feedback>", 2)
	x.keys("XLSX is what finance uses", "Enter")
	s = x.waitFor("EXIT=", 1)
	for _, want := range []string{"q-2026-11-29-002 answered (option 2): Half up", "q-2026-11-29-001 rejected: XLSX is what finance uses", "2 questions answered", "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	qs := x.questions()
	for id, want := range map[string][2]string{"q-2026-11-29-002": {"answered", "alice"}, "q-2026-11-29-001": {"rejected", "alice"}} {
		b := qs.Find(id)
		if b == nil || b.Value("status") != want[0] || b.Value("answered_by") != want[1] {
			t.Errorf("%s: got %v, want status %s by %s", id, b, want[0], want[1])
		}
	}
}

// TestResolveAtTerminalCancelled: `state resolve <qid>` with no answer at a
// terminal prompts; end of input (also after words typed without Enter,
// which a terminal hands over on the first Ctrl-D) exits 7, "no answer
// given", and Ctrl-C exits 130 (docs/commands.md, A person at a terminal); neither writes anything.
func TestResolveAtTerminalCancelled(t *testing.T) {
	for name, tc := range map[string]struct {
		keys       []string
		exit, line string
	}{
		"C-d":       {[]string{"C-d"}, "EXIT=7", "devrites-engine: state resolve: no answer given"},
		"words-C-d": {[]string{"not sure yet", "C-d", "C-d"}, "EXIT=7", "devrites-engine: state resolve: no answer given"},
		"C-c":       {[]string{"C-c"}, "EXIT=130", "interrupted: nothing was written"},
	} {
		t.Run(name, func(t *testing.T) {
			x := newTTY(t)
			x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers")
			before := x.files()
			x.start("state", "resolve", "q-2026-11-29-001")
			x.waitFor("answer>", 1)
			x.keys("d", "Enter")
			x.waitFor("reason>", 1)
			x.keys(tc.keys...)
			s := x.waitFor("EXIT=", 1)
			if !strings.Contains(s, tc.exit) || !strings.Contains(s, tc.line) {
				t.Errorf("screen lacks %q and %q:\n%s", tc.exit, tc.line, s)
			}
			for name, b := range x.files() {
				if !bytes.Equal(b, before[name]) {
					t.Errorf("%s changed:\n%s", name, b)
				}
			}
		})
	}
}

// TestResolveWithoutTerminalNeverPrompts: without a terminal the same
// command is refused at once (an agent must never wait on a prompt).
func TestResolveWithoutTerminalNeverPrompts(t *testing.T) {
	x := newTTY(t)
	x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers")
	out := x.run("state", "resolve", "q-2026-11-29-001")
	if !strings.Contains(out, "want <qid> <answer…>, got 1 argument") {
		t.Errorf("got %q", out)
	}
	out = x.run("answer")
	if !strings.Contains(out, "devrites-engine: answer: answer needs a terminal") {
		t.Errorf("got %q", out)
	}
}
