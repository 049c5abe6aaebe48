package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

func TestParseOptionsForms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"numbered", "1. A (Recommended)\n2. B\n3. Something else — I'll describe it\n", []string{"A (Recommended)", "B", "Something else — I'll describe it"}},
		{"numbered, older form", "1. A\n2) B", []string{"A", "B"}},
		{"continued line", "1. A\n   more about A\n2. B", []string{"A more about A", "B"}},
		{"bullets", "- A (Recommended)\n- B\n* C", []string{"A (Recommended)", "B", "C"}},
		{"numbered with sub-bullets", "1. A\n  - detail\n2. B", []string{"A - detail", "B"}},
		{"one unnumbered line", "just text", []string{"just text"}},
		{"empty", "", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := question.ParseOptions(tt.in); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Questions DevRites wrote: the gate from the heading when there is no gate
// field, the gate's default SLA when there is no sla, and overdue from it.
func TestFromBlockDevRites(t *testing.T) {
	qs := mdstore.ParseQuestions([]byte("# Questions\n\n## Q-002 validating\nstatus: open\nraised_at: 2026-03-02T08:00:00Z\n\n" +
		"## q-3 blocking\nstatus: open\ngate: advisory\nraised_at: 2026-03-02T08:00:00Z\n\n" +
		"## Q-004\nstatus: open\ngate: blocking\nsla: 1h\nraised_at: 2026-03-02T11:50:00Z\n\n" +
		"## Question register\n| Question ID | Status | Gate |\n|---|---|---|\n| Q-005 | open | escalating |\n"))
	now := time.Date(2026, 3, 2, 12, 30, 0, 0, time.UTC)
	tests := []struct {
		qid, gate, sla string
		overdue        bool
	}{
		{"Q-002", "validating", "4h", true},
		{"q-3", "advisory", "none", false}, // the field wins over the heading
		{"Q-004", "blocking", "1h", false}, // its own sla wins
		{"Q-005", "escalating", "24h", false},
	}
	for _, tt := range tests {
		t.Run(tt.qid, func(t *testing.T) {
			q := question.FromBlock(qs.Find(tt.qid), now)
			if q.Gate != tt.gate || q.SLA != tt.sla || q.Overdue != tt.overdue {
				t.Errorf("got gate %q, sla %q, overdue %v; want %q, %q, %v", q.Gate, q.SLA, q.Overdue, tt.gate, tt.sla, tt.overdue)
			}
		})
	}
}
