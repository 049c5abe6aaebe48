package app

import (
	"bytes"
	"testing"

	"github.com/devrites/devrites-engine/doctor"
)

// doctor --json writes its report a finding at a time; the bytes are those
// print writes for the whole report (every field of doctor.Report, in
// order, as encoding/json writes it).
func TestDoctorJSONIsPrints(t *testing.T) {
	findings := []doctor.Finding{
		{Severity: doctor.SevError, Kind: "drift", File: "state.md", Line: 7, Problem: `awaits "q-2026-11-29-007" <answer> & more`, Mend: "run: devrites-engine doctor --fix", Fixable: true},
		{Severity: doctor.SevWarning, Kind: "missing-file", File: "decisions.md", Problem: "missing: é\t\u2028", Mend: "nothing to do"},
	}
	for _, r := range []*doctor.Report{
		{Workspace: "/tmp/a", OK: true, Findings: []doctor.Finding{}, Repairs: []doctor.Repair{}},
		{Workspace: `/tmp/"odd" <dir>\`, Errors: 1, Warnings: 1, Findings: findings,
			Repairs: []doctor.Repair{{Kind: "drift", File: "state.md", Line: 3, Did: "state.md awaits q-1"}, {Kind: "temp-file", File: ".state.md123", Did: "removed"}}},
		{Workspace: "/w", Warnings: 1, Findings: findings[1:], Repairs: []doctor.Repair{}},
	} {
		var want, got bytes.Buffer
		(&env{json: true, stdout: &want}).print(r, "")
		printDoctorJSON(&got, r)
		if got.String() != want.String() {
			t.Errorf("printDoctorJSON:\n%s\nprint:\n%s", got.String(), want.String())
		}
	}
}
