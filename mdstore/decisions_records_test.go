package mdstore

import "testing"

func TestDecisionRecordsEdit(t *testing.T) {
	in := "\ufeff# Decisions\r\n\r\n## q-2026-11-29-001 answered\r\nquestion: A?\r\nanswer: yes\r\n\r\n## q-2026-11-29-002 answered\r\nquestion: A?\r\nanswer: yes\r\n"
	recs := DecisionRecords([]byte(in))
	if len(recs) != 2 || recs[0].Question != "A?" || recs[1].Line != 7 {
		t.Fatalf("records %+v", recs)
	}
	got := string(RetitleDecision([]byte(in), 3, "q-2026-11-29-002 answered"))
	want := "\ufeff# Decisions\r\n\r\n## q-2026-11-29-002 answered\r\nquestion: A?\r\nanswer: yes\r\n\r\n## q-2026-11-29-002 answered\r\nquestion: A?\r\nanswer: yes\r\n"
	if got != want {
		t.Errorf("retitled:\n%q\nwant\n%q", got, want)
	}
	again := DecisionRecords([]byte(got))
	if !again[0].Same(again[1]) || recs[0].Same(recs[1]) {
		t.Errorf("Same: retitled copies %v, different titles %v; want true, false", again[0].Same(again[1]), recs[0].Same(recs[1]))
	}
	if got, want := string(RemoveDecision([]byte(got), again[1])), "\ufeff# Decisions\r\n\r\n## q-2026-11-29-002 answered\r\nquestion: A?\r\nanswer: yes\r\n\r\n"; got != want {
		t.Errorf("removed:\n%q\nwant\n%q", got, want)
	}
}

// RecordsQuestion is the one rule by which a decision names its question.
func TestRecordsQuestion(t *testing.T) {
	for _, c := range []struct {
		name                              string
		asked, raised, question, raisedAt string
		want                              bool
	}{
		{"same text and raise time", "Ship it?", "2026-11-29T10:00:00Z", "Ship it?", "2026-11-29T10:00:00Z", true},
		{"same text, raised at another time: another question", "Ship it?", "2026-11-29T10:00:00Z", "Ship it?", "2026-11-29T11:00:00Z", false},
		{"same text, the decision copied no raise time", "Ship it?", "", "Ship it?", "2026-11-29T11:00:00Z", true},
		{"same text, the question has no raise time", "Ship it?", "2026-11-29T10:00:00Z", "Ship it?", " ", true},
		{"white-space runs are one space", "Ship\n  it? ", " 2026-11-29T10:00:00Z", "Ship it?", "2026-11-29T10:00:00Z ", true},
		{"another text at the same time", "Log level?", "2026-11-29T10:00:00Z", "Ship it?", "2026-11-29T10:00:00Z", false},
		{"no text copied: the id's question", " ", "2026-11-29T10:00:00Z", "Ship it?", "2026-11-29T11:00:00Z", true},
	} {
		if got := RecordsQuestion(c.asked, c.raised, c.question, c.raisedAt); got != c.want {
			t.Errorf("%s: RecordsQuestion = %v, want %v", c.name, got, c.want)
		}
	}
}
