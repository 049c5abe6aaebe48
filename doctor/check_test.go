package doctor

import (
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

const goodState = "# State\n\n| Key | Value |\n|---|---|\n| schema | 4 |\n| status | running |\n"

// The checks find what is wrong in the files themselves, each once, with
// its line; a clean pair of files has no finding.
func TestCheckerFindsWhatDoesNotRead(t *testing.T) {
	qs := "# Questions\n\n## q-2026-11-29-001\nstatus: open\ngate: blocking\nsla: 4h\n\n" +
		"## q-2026-11-29-002\nstatus: opne\ngate: sometimes\nsla: soon\n"
	for _, tc := range []struct {
		name, state, questions string
		want                   []string // kinds, in order
	}{
		{"clean", goodState, "# Questions\n\n## q-2026-11-29-001\nstatus: open\ngate: blocking\nsla: 4h\n", nil},
		{"bad block", goodState, qs, []string{"unknown-status", "parse", "unknown-gate"}},
		{"conflict", goodState + "<<<<<<< ours\n=======\n>>>>>>> theirs\n", "", []string{"conflict"}},
		{"schema too new", strings.Replace(goodState, "| 4 |", "| 9 |", 1), "", []string{"schema"}},
		{"unknown cursor status", strings.Replace(goodState, "running", "asleep", 1), "", []string{"unknown-status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Checker{Schema: 4}
			c.State(mdstore.ParseState([]byte(tc.state)), []byte(tc.state))
			c.Questions(mdstore.ParseQuestions([]byte(tc.questions)), []byte(tc.questions), false)
			var got []string
			for _, f := range c.Findings {
				got = append(got, f.Kind)
				if f.Severity == SevError && f.Line == 0 && f.Kind != "schema" {
					t.Errorf("%s: no line: %+v", f.Kind, f)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %q, want %q (%+v)", got, tc.want, c.Findings)
			}
		})
	}
}

// A refused state (schema too new) is reported as refused, and a
// duplicate qid in it is then not offered to --fix.
func TestCheckerRefused(t *testing.T) {
	state := strings.Replace(goodState, "| 4 |", "| 9 |", 1)
	c := &Checker{Schema: 4}
	if !c.State(mdstore.ParseState([]byte(state)), []byte(state)) {
		t.Fatal("a schema newer than the binary's was not refused")
	}
	qs := "# Questions\n\n## q-2026-11-29-001\nstatus: open\ngate: blocking\n\n## q-2026-11-29-001\nstatus: open\ngate: blocking\n"
	c = &Checker{Schema: 4}
	c.Questions(mdstore.ParseQuestions([]byte(qs)), []byte(qs), true)
	if len(c.Findings) != 1 || c.Findings[0].Kind != "duplicate-qid" || c.Findings[0].Fixable {
		t.Errorf("got %+v, want one duplicate-qid, not fixable", c.Findings)
	}
}

// With ErrorsOnly, the guard's mode, only the unclean blocks the caller
// names are worded, and warnings are not.
func TestCheckerErrorsOnly(t *testing.T) {
	qs := "# Questions\n\n## q-2026-11-29-001\nstatus: answered\ngate: blocking\n\n## q-2026-11-29-002\nstatus: opne\ngate: blocking\n"
	parsed := mdstore.ParseQuestions([]byte(qs))
	var unclean []*mdstore.Block
	for _, b := range parsed.Blocks() {
		v, ok := b.Peek("status", "gate", "sla")
		if !FieldsRead(b, v, ok) {
			unclean = append(unclean, b)
		}
	}
	c := &Checker{Schema: 4, ErrorsOnly: true, Unclean: unclean}
	c.Questions(parsed, []byte(qs), false)
	if len(c.Findings) != 1 || c.Findings[0].Kind != "unknown-status" || c.Findings[0].Line != 8 {
		t.Errorf("got %+v, want only q-2026-11-29-002's unknown status (line 8)", c.Findings)
	}
}
