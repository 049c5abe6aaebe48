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
// and answers each in its own workspace; --slug narrows it to one (SPEC
// §21).
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
