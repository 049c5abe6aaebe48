package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustAtTerminal: the warning an untrusted AFK file prints names no
// command; the agent that runs trust anyway (no terminal) is refused and
// the next blocking question is not auto-picked; a person at a terminal
// trusts it, and it takes effect.
func TestTrustAtTerminal(t *testing.T) {
	x := newTTY(t)
	afk := filepath.Join(x.dir, ".devrites", "AFK")
	if err := os.WriteFile(afk, []byte("allow_gates: [blocking]\nnotify: touch FIRED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := x.run("question", "raise", "--gate", "blocking", "--question", "Delete the production S3 bucket?", "--option", "Delete it")
	if !strings.Contains(out, "paused") || strings.Contains(out, "devrites-engine trust "+afk) || !strings.Contains(out, "a person must review it and run `devrites-engine trust` at a terminal") {
		t.Fatalf("raise with an untrusted AFK file:\n%s", out)
	}
	x.run("state", "resolve", "--drop", "q-2026-11-29-001", "not now")
	if out := x.run("trust", afk); !strings.Contains(out, "trust needs a person at a terminal: nothing was written") {
		t.Fatalf("trust without a terminal: %s", out)
	}
	if out := x.run("trust", "--list"); strings.Contains(out, afk) {
		t.Fatalf("the agent's trust was recorded: %s", out)
	}
	if out := x.run("question", "raise", "--gate", "blocking", "--question", "Delete the production S3 bucket?", "--option", "Delete it"); !strings.Contains(out, "paused") {
		t.Fatalf("auto-picked after the agent's trust:\n%s", out)
	}
	x.run("state", "resolve", "--drop", "q-2026-11-29-002", "not now")

	x.start("trust", afk)
	x.waitFor("EXIT=0", 1)
	if s := x.screen(); !strings.Contains(s, "trusted "+afk) {
		t.Fatalf("trust at a terminal:\n%s", s)
	}
	if out := x.run("question", "raise", "--gate", "blocking", "--question", "Log level?", "--option", "info"); !strings.Contains(out, "auto-picked") {
		t.Fatalf("not auto-picked once a person trusted it:\n%s", out)
	}
}

// TestRulesAtTerminal: an always-approve rule is a person's act: the agent's
// rules add and state resolve --always are refused and write nothing; at a
// terminal both work, and the rule is the workspace's (slug pay).
func TestRulesAtTerminal(t *testing.T) {
	x := newTTY(t)
	rules := filepath.Join(x.dir, ".devrites", "rules.yaml")
	if out := x.run("rules", "add", "--tag", "chore", "--action", "always-approve", "--by", "alice"); !strings.Contains(out, "an always-approve rule needs a person at a terminal") {
		t.Fatalf("rules add without a terminal: %s", out)
	}
	if _, err := os.Stat(rules); err == nil {
		t.Fatal("rules.yaml was written")
	}
	x.start("rules", "add", "--breakpoint", "pay.rounding", "--action", "always-approve", "--by", "alice")
	x.waitFor("EXIT=0", 1)
	if s := x.screen(); !strings.Contains(s, "always-approve  breakpoint pay.rounding  (workspace pay)") {
		t.Fatalf("rules add at a terminal:\n%s", s)
	}
	b, err := os.ReadFile(rules)
	if err != nil || !strings.Contains(string(b), "slug: pay") {
		t.Fatalf("rules.yaml: %s %v", b, err)
	}
	x.run("question", "raise", "--gate", "blocking", "--breakpoint", "pay.fx", "--question", "FX?", "--option", "ECB")
	if out := x.run("state", "resolve", "--always", "q-2026-11-29-001", "1"); !strings.Contains(out, "state resolve --always needs a person at a terminal") {
		t.Fatalf("--always without a terminal: %s", out)
	}
	x.endSession()
	x.start("state", "resolve", "--always", "q-2026-11-29-001", "1")
	x.waitFor("EXIT=0", 1)
	if s := x.screen(); !strings.Contains(s, "always approve breakpoint pay.fx (workspace pay)") {
		t.Fatalf("--always at a terminal:\n%s", s)
	}
	if q := x.questions().Find("q-2026-11-29-001"); q == nil || q.Value("answered_via") != "terminal" {
		t.Fatalf("answered_via: %v", q)
	}
}

// endSession ends the session start began, so that another can start.
func (x *tty) endSession() {
	x.t.Helper()
	if out, err := exec.Command("tmux", "-S", x.sock, "kill-session", "-t", "t").CombinedOutput(); err != nil {
		x.t.Fatalf("tmux kill-session: %v\n%s", err, out)
	}
}
