package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// questionsOf parses the questions.md of the workspace slug.
func (x *tty) questionsOf(slug string) *mdstore.Questions {
	b, err := os.ReadFile(filepath.Join(x.dir, ".devrites", "work", slug, mdstore.QuestionsFile))
	if err != nil {
		x.t.Fatal(err)
	}
	return mdstore.ParseQuestions(b)
}

// TestAnswerEveryWorkspace: `answer` walks the open questions of every
// workspace of the project, the awaited ones first, saying whose each is,
// and answers each in its own workspace; --slug narrows it to one
// (docs/commands.md, A person at a terminal).
func TestAnswerEveryWorkspace(t *testing.T) {
	x := newTTY(t)
	x.run("question", "raise", "--gate", "advisory", "--question", "Log format?", "--option", "JSON", "--answered", "JSON")
	x.run("init", "ship")
	x.run("question", "raise", "--slug", "pay", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers")
	x.run("question", "raise", "--gate", "blocking", "--question", "Ship Friday?", "--option", "Yes")

	x.start("answer", "--by", "alice")
	s := x.waitFor("answer>", 1)
	if !strings.Contains(s, "(1 of 2, pay)") || !strings.Contains(s, "Which rounding?") {
		t.Fatalf("the first question must be pay's:\n%s", s)
	}
	x.keys("1", "Enter")
	s = x.waitFor("(2 of 2, ship)", 1)
	if !strings.Contains(s, "Ship Friday?") {
		t.Fatalf("the second question must be ship's:\n%s", s)
	}
	x.keys("not before Monday", "Enter")
	s = x.waitFor("EXIT=", 1)
	for _, want := range []string{"q-2026-11-29-002 answered (option 1): Bankers", "q-2026-11-29-003 answered: not before Monday", "2 questions answered", "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	for slug, id := range map[string]string{"pay": "q-2026-11-29-002", "ship": "q-2026-11-29-003"} {
		if b := x.questionsOf(slug).Find(id); b == nil || b.Value("status") != "answered" || b.Value("answered_by") != "alice" {
			t.Errorf("%s %s: got %v, want answered by alice", slug, id, b)
		}
	}

	// --slug narrows the walk to one workspace.
	x.run("question", "raise", "--slug", "pay", "--gate", "blocking", "--question", "Currency?", "--option", "EUR")
	x.run("question", "raise", "--gate", "blocking", "--question", "Region?", "--option", "EU")
	x2 := &tty{t: t, sock: x.sock + "2", bin: x.bin, dir: x.dir} // a second tmux server: the first one's session is kept
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", x2.sock, "kill-server").Run() })
	x2.start("answer", "--slug", "ship")
	s = x2.waitFor("answer>", 1)
	if !strings.Contains(s, "(1 of 1)") || !strings.Contains(s, "Region?") || strings.Contains(s, "Currency?") {
		t.Fatalf("--slug ship must ask only ship's question:\n%s", s)
	}
	x2.keys("q", "Enter")
	x2.waitFor("EXIT=0", 1)
}

// newPlain is a project with the workspace "pay" that the binary is run on
// without a terminal: no tmux.
func newPlain(t *testing.T) *tty {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	x := &tty{t: t, bin: t.TempDir(), dir: t.TempDir()}
	if err := os.Symlink(self, filepath.Join(x.bin, "devrites-engine")); err != nil {
		t.Fatal(err)
	}
	x.run("init", "pay")
	return x
}

// TestTerminalIsReal: /dev/null is a character device, not a terminal. With
// stdin and stdout /dev/null, `state resolve <qid>` without an answer is
// refused (exit 7) rather than prompting and "cancelling" with exit 0, and
// `answer` says it needs a terminal; nothing is written (docs/commands.md, A person at a terminal).
func TestTerminalIsReal(t *testing.T) {
	x := newPlain(t)
	bin, dir := x.bin, x.dir
	x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers")
	before := x.files()
	for _, args := range [][]string{{"state", "resolve", "q-2026-11-29-001"}, {"answer"}} {
		null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd := exec.Command(filepath.Join(bin, "devrites-engine"), args...)
		cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, x.env(), null, null, &stderr
		err = cmd.Run()
		null.Close()
		want := map[string]string{"state": "devrites-engine: state resolve: want <qid> <answer…>, got 1 argument",
			"answer": "devrites-engine: answer: answer needs a terminal"}[args[0]]
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitBadArgs || !strings.HasPrefix(stderr.String(), want+"\n") {
			t.Errorf("%v: got %v, stderr %q; want exit %d and %q", args, err, stderr.String(), exitBadArgs, want)
		}
	}
	for name, b := range x.files() {
		if string(b) != string(before[name]) {
			t.Errorf("%s changed:\n%s", name, b)
		}
	}
}

// TestAnswerAsksForName: a question whose strategy checks its responders
// makes `answer` ask who answers (instead of looping on "not recorded"),
// until the name is one of them; it is recorded as the route spells it.
func TestAnswerAsksForName(t *testing.T) {
	x := newTTY(t)
	x.run("question", "raise", "--gate", "blocking", "--question", "Deploy window?", "--option", "Tonight",
		"--route", "alice", "--route", "bob", "--strategy", "first-response-wins")
	x.start("answer")
	x.waitFor("answer>", 1)
	x.keys("1", "Enter")
	x.waitFor("only alice, bob may answer q-2026-11-29-001; who are you?", 1)
	x.keys("mallory", "Enter")
	x.waitFor("mallory is not one of them", 1)
	x.keys("Bob", "Enter")
	s := x.waitFor("EXIT=", 1)
	for _, want := range []string{"q-2026-11-29-001 answered (option 1): Tonight", "1 question answered", "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "not recorded") {
		t.Errorf("the answer was refused on the way:\n%s", s)
	}
	if b := x.questions().Find("q-2026-11-29-001"); b == nil || b.Value("answered_by") != "bob" {
		t.Errorf("got %v, want answered by bob", b)
	}
}

// TestAnswerAnsweredMeanwhile: when someone else resolves a question while
// `answer` is on it, the person's answer is not recorded and the walk goes
// on to the next question; a question resolved before its turn is passed
// over, saying by whom. The session ends normally.
func TestAnswerAnsweredMeanwhile(t *testing.T) {
	x := newTTY(t)
	if err := os.WriteFile(filepath.Join(x.dir, ".devrites", "AFK"), []byte("allow_gates: [validating]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustFile(t, filepath.Join(x.dir, ".devrites", "AFK"))
	x.run("question", "raise", "--gate", "validating", "--question", "CSV or XLSX?", "--option", "CSV")
	x.run("question", "raise", "--gate", "validating", "--question", "Gzip the export?", "--option", "Yes")
	x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers")

	x.start("answer", "--by", "alice")
	s := x.waitFor("answer>", 1)
	if !strings.Contains(s, "(1 of 3)") || !strings.Contains(s, "Which rounding?") {
		t.Fatalf("the awaited question must come first:\n%s", s)
	}
	x.run("state", "resolve", "--by", "carol", "q-2026-11-29-003", "1")
	x.keys("half up after all", "Enter")
	x.waitFor("(2 of 3)", 1)
	x.run("state", "resolve", "--by", "carol", "q-2026-11-29-002", "1")
	x.keys("1", "Enter")
	s = x.waitFor("EXIT=", 1)
	for _, want := range []string{
		"not recorded: q-2026-11-29-003 is already answered (\"Bankers\"), not open",
		"on to the next question",
		"q-2026-11-29-001 answered (option 1): CSV",
		"q-2026-11-29-002 was answered meanwhile by carol: on to the next question",
		"1 question answered", "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	qs := x.questions()
	for id, by := range map[string]string{"q-2026-11-29-001": "alice", "q-2026-11-29-002": "carol", "q-2026-11-29-003": "carol"} {
		if b := qs.Find(id); b == nil || b.Value("status") != "answered" || b.Value("answered_by") != by {
			t.Errorf("%s: got %v, want answered by %s", id, b, by)
		}
	}
}
