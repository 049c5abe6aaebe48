package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mcp"
)

// TestUnsignedHoldsAgent: under a require-signature rule, an answer the
// agent relayed (never signed) does not let it go on: check says stop and
// wait_for_answer says, at its timeout, that the answer waits for its
// signature and which command signs it (docs/signing.md).
func TestUnsignedHoldsAgent(t *testing.T) {
	p := newProject(t)
	rules := "- id: r-1\n  gate: blocking\n  action: require-signature\n"
	if err := os.WriteFile(filepath.Join(p.dir, ".devrites", "rules.yaml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := p.connect("agent", nil, nil)
	id := call[mcp.RaiseOutput](t, cs, "raise_question", map[string]any{"gate": "blocking", "question": "Ship it?", "options": []string{"Yes", "No"}}).QID
	call[mcp.RelayOutput](t, cs, "relay_answer", map[string]any{"qid": id, "choice": 1, "by": "alice"})
	want := id + " answered, not yet signed: sign it with devrites-engine sign " + id
	if c := call[mcp.CheckOutput](t, cs, "check", nil); c.Verdict != "stop" || c.Reason != want {
		t.Errorf("check: %+v, want stop: %s", c, want)
	}
	w := call[mcp.WaitOutput](t, cs, "wait_for_answer", map[string]any{"qid": id, "timeout_seconds": 0.2})
	if w.Result != want || w.Resume != "devrites-engine sign "+id || w.Status != "answered" || !strings.Contains(w.Question.Unsigned, "no signature") {
		t.Errorf("wait_for_answer: %+v, want %q", w, want)
	}
}
