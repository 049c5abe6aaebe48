package app

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The questions of two clones after a rebase (docs/formats.md): b's backups
// question holds q-2026-11-29-001, which a's deploy question had.
const (
	deployAlone = `# Questions

## q-2026-11-29-001
status: open
slice:
gate: blocking
question: Deploy window?
options: |
    1. Friday (Recommended)
    2. Monday
    3. Something else — I'll describe it
proposed: Friday
sla: 15m
raised_at: 2026-11-29T14:02:11Z
`
	rebased = `# Questions

## q-2026-11-29-001
status: open
slice:
gate: blocking
question: Delete the old prod backups?
options: |
    1. Yes, delete them (Recommended)
    2. No
    3. Something else — I'll describe it
proposed: Yes, delete them
sla: 15m
raised_at: 2026-11-29T14:05:00Z

## q-2026-11-29-002
status: open
slice:
gate: blocking
question: Deploy window?
options: |
    1. Friday (Recommended)
    2. Monday
    3. Something else — I'll describe it
proposed: Friday
sla: 15m
raised_at: 2026-11-29T14:02:11Z
renumbered_from: q-2026-11-29-001
`
)

func (x *tty) writeQuestions(text string) {
	x.t.Helper()
	if err := os.WriteFile(filepath.Join(x.dir, ".devrites", "work", "pay", "questions.md"), []byte(text), 0o644); err != nil {
		x.t.Fatal(err)
	}
}

// TestTerminalAmbiguousID: the prompt of `state resolve <qid>` is not
// shown for an id two open questions have had: exit 6 naming both, with
// the command for each; nothing written.
func TestTerminalAmbiguousID(t *testing.T) {
	x := newTTY(t)
	x.writeQuestions(rebased)
	before := x.files()
	x.start("state", "resolve", "q-2026-11-29-001")
	s := x.waitFor("EXIT=", 1)
	for _, want := range []string{"q-2026-11-29-001 is ambiguous", "Delete the old prod backups?", "Deploy window?",
		"--fingerprint 27d379fbeebf q-2026-11-29-002", "EXIT=6"} {
		if !strings.Contains(strings.ReplaceAll(s, "\n", ""), want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains("\n"+s, "\nanswer>") { // the prompt starts a line; "<answer>" in a hint is no prompt
		t.Errorf("a prompt was shown:\n%s", s)
	}
	if !maps.EqualFunc(before, x.files(), func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Error("files changed")
	}
}

// TestTerminalPromptFollowsQuestion: the prompt shows a's question; a
// rebase renumbers it while the person reads; the answer typed is
// recorded on it under its new id, and b's question, which holds the id
// now, stays open as it was.
func TestTerminalPromptFollowsQuestion(t *testing.T) {
	x := newTTY(t)
	x.writeQuestions(deployAlone)
	x.start("state", "resolve", "--by", "ann", "q-2026-11-29-001")
	if s := x.waitFor("answer>", 1); !strings.Contains(s, "Deploy window?") {
		t.Fatalf("the prompt is not of the deploy question:\n%s", s)
	}
	x.writeQuestions(rebased)
	x.keys("1", "Enter")
	s := x.waitFor("EXIT=", 1)
	if !strings.Contains(s, "q-2026-11-29-002 answered (option 1): Friday") || !strings.Contains(s, "EXIT=0") {
		t.Errorf("want a's question answered under its new id:\n%s", s)
	}
	qs := x.questions()
	if b := qs.Find("q-2026-11-29-001"); b == nil || b.Value("status") != "open" || b.Value("answer") != "" || b.Value("question") != "Delete the old prod backups?" {
		t.Errorf("b's question: %v, want open and unanswered", b)
	}
	if b := qs.Find("q-2026-11-29-002"); b == nil || b.Value("status") != "answered" || b.Value("answer") != "Friday" {
		t.Errorf("a's question: %v, want answered Friday", b)
	}
}
