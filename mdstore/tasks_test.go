package mdstore

import (
	"testing"
)

func TestParseTasks(t *testing.T) {
	in := "# Tasks\n\n## SLICE-003 — payments\n- Mode: HITL\n- Gate: Blocking\nSLA: 15m\nCheckpoint: Which rounding?\n\n" +
		"```md\n## SLICE-009 — an example in a fence\nGate: advisory\n```\n\n" +
		"## Slice 04: export\n* Mode: AFK\n* Checkpoint: none\n\n## Notes\nGate: escalating\n"
	got := ParseTasks([]byte(in))
	want := []Slice{
		{Number: 3, Name: "payments", Mode: "HITL", Gate: "blocking", SLA: "15m", Checkpoint: "Which rounding?", Line: 3},
		{Number: 4, Name: "export", Mode: "AFK", Line: 14},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d slices %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("slice %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if got, want := want[0].Label(), "3 — payments"; got != want {
		t.Errorf("Label: got %q, want %q", got, want)
	}
}

func TestParseTasksCRLFAndHugeNumber(t *testing.T) {
	got := ParseTasks([]byte("## SLICE-001 — a\r\nGate: validating\r\n## SLICE-99999999999999999999 — b\r\nGate: blocking\r\n"))
	if len(got) != 1 || got[0].Gate != "validating" || got[0].Name != "a" {
		t.Errorf("got %+v, want one slice 1 — a, gate validating", got)
	}
}
