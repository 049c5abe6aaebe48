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
