package mdstore

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseStateEncodings(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		encoding string
		cursor   map[string]string
		awaiting string // qid, "" when none
		schema   int
	}{
		{"table", "state-table.md", Table, map[string]string{
			"phase": "build", "status": "awaiting_human", "active_slice": "3 — payments",
			"next_action": `/rite-resolve q-2026-11-29-001 "<answer>"`, "schema": "3"},
			"q-2026-11-29-001", 3},
		{"table CRLF", "state-table-crlf.md", Table, map[string]string{
			"phase": "spec", "status": "running", "active_slice": "", "next_action": "/rite-spec"},
			"", 3},
		{"bullets", "state-bullets.md", Bullets, map[string]string{
			"phase": "build", "status": "awaiting_human", "active_slice": "3 — payments",
			"slice_mode": "HITL", "next_action": `/rite-resolve q-2026-11-29-001 "<answer>"`},
			"q-2026-11-29-001", 2},
		{"bullets BOM no final newline", "state-bullets-bom-nofinal.md", Bullets, map[string]string{
			"status": "running", "next_action": "/rite-build — ça marche «ok» 日本", "phase": ""},
			"", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := fixture(t, tt.file)
			s := ParseState(data)
			if got := s.Encoding(); got != tt.encoding {
				t.Errorf("encoding: got %s, want %s", got, tt.encoding)
			}
			for k, want := range tt.cursor {
				if got, ok := s.Get(k); !ok || got != want {
					t.Errorf("%s: got %q (present %v), want %q", k, got, ok, want)
				}
			}
			if got := s.AwaitingQID(); got != tt.awaiting {
				t.Errorf("awaiting qid: got %q, want %q", got, tt.awaiting)
			}
			if n, err := s.Schema(); err != nil || n != tt.schema {
				t.Errorf("schema: got %d (%v), want %d", n, err, tt.schema)
			}
			if got := s.Bytes(); !bytes.Equal(got, data) {
				t.Errorf("write back: got %q, want %q", got, data)
			}
		})
	}
}

func TestStateFencedAndOtherSections(t *testing.T) {
	s := ParseState(fixture(t, "state-bullets.md"))
	// The fenced "- Status: running", "| status | fake |" and the Notes
	// section's "- Status: not-the-cursor" are not cursor entries.
	var statuses []string
	for _, e := range s.Cursor() {
		if e.Canon == "status" {
			statuses = append(statuses, e.Value)
		}
	}
	if got := strings.Join(statuses, ","); got != "awaiting_human" {
		t.Errorf("status entries: got %q, want %q", got, "awaiting_human")
	}
	s = ParseState([]byte("# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n```\n| status | fake |\n```\n"))
	if got := len(s.Cursor()); got != 1 {
		t.Errorf("cursor entries: got %d, want 1", got)
	}
	s = ParseState([]byte("# State\n```\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | fake |\n```\n- Status: running\n"))
	if got, want := s.Encoding(), Bullets; got != want {
		t.Errorf("a fenced ## Cursor: got encoding %s, want %s", got, want)
	}
	if got, _ := s.Get("status"); got != "running" {
		t.Errorf("status: got %q, want %q", got, "running")
	}
}

func TestCanon(t *testing.T) {
	tests := []struct{ key, want string }{
		{"Next step", "next_action"},
		{"next_action", "next_action"},
		{"NEXT-STEP", "next_action"},
		{"qid", "question_id"},
		{"Question ID", "question_id"},
		{"Active slice", "active_slice"},
		{"Slice mode", "slice_mode"},
		{"Status", "status"},
		{"Return next action", "return_next_action"},
		{"Some New Key", "some_new_key"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := Canon(tt.key); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStateSchema(t *testing.T) {
	tests := []struct {
		name, file string
		want       int
		err        bool
	}{
		{"missing", "- Status: running\n", 2, false},
		{"three", "- Schema: 3\n", 3, false},
		{"newer", "# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| schema | 4 |\n", 4, false},
		{"not a number", "- Schema: three\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseState([]byte(tt.file)).Schema()
			if (err != nil) != tt.err || n != tt.want {
				t.Fatalf("got %d, %v; want %d, error %v", n, err, tt.want, tt.err)
			}
		})
	}
}

func TestStateSet(t *testing.T) {
	table := "# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n| active_slice |  |\n\n## Log\n- x\n"
	bullets := "# State\n\n- Status: running\n- Phase:\n\n## Awaiting human\n- qid: q-1\n"
	tests := []struct {
		name, file, key, value, want string
	}{
		{"table existing", table, "status", "awaiting_human",
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | awaiting_human |\n| active_slice |  |\n\n## Log\n- x\n"},
		{"table empty cell", table, "Active slice", "3 — payments",
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n| active_slice | 3 — payments |\n\n## Log\n- x\n"},
		{"table new key", table, "next_action", "/rite-build",
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n| active_slice |  |\n| next_action | /rite-build |\n\n## Log\n- x\n"},
		{"table pipes and backslashes", table, "next_action", `a|b \ c\`,
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n| active_slice |  |\n| next_action | a\\|b \\ c\\\\ |\n\n## Log\n- x\n"},
		{"table multi-line folds", table, "status", "a\nb\r\n  c",
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | a b c |\n| active_slice |  |\n\n## Log\n- x\n"},
		{"table without rows", "# State\n## Cursor\n| Key | Value |\n| --- | --- |\n\n## Log\n", "status", "running",
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n\n## Log\n"},
		{"table with a stray row", "# State\n## Cursor\n| x |\n", "status", "running",
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n\n| x |\n"},
		{"table row without closing pipe emptied", "## Cursor\n| Key | Value |\n| --- | --- |\n| status | running", "status", "",
			"## Cursor\n| Key | Value |\n| --- | --- |\n| status | |"},
		{"table without a table", "# State\n## Cursor\n\n## Log\n", "status", "running",
			"# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n\n## Log\n"},
		{"bullets existing", bullets, "status", "awaiting_human",
			"# State\n\n- Status: awaiting_human\n- Phase:\n\n## Awaiting human\n- qid: q-1\n"},
		{"bullets empty value", bullets, "phase", "build",
			"# State\n\n- Status: running\n- Phase: build\n\n## Awaiting human\n- qid: q-1\n"},
		{"bullets alias", bullets + "", "next_action", "/rite-build",
			"# State\n\n- Status: running\n- Phase:\n- Next step: /rite-build\n\n## Awaiting human\n- qid: q-1\n"},
		{"bullets first key", "# State\n\n## Log\n", "status", "running",
			"# State\n- Status: running\n\n## Log\n"},
		{"bullets no-break space before value", "- Status: \u00a0running\n", "status", "blocked",
			"- Status: \u00a0blocked\n"},
		{"CRLF", "# State\r\n- Status: running\r\n", "next_action", "x",
			"# State\r\n- Status: running\r\n- Next step: x\r\n"},
		{"no final newline", "- Status: running", "next_action", "x",
			"- Status: running\n- Next step: x"},
		{"BOM", "\ufeff- Status: running\n", "status", "blocked", "\ufeff- Status: blocked\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseState([]byte(tt.file))
			s.Set(Canon(tt.key), tt.value)
			if got := string(s.Bytes()); got != tt.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tt.want)
			}
			if got, want := mustGet(t, ParseState(s.Bytes()), tt.key), OneLine(tt.value); got != want {
				t.Fatalf("reads back: got %q, want %q", got, want)
			}
		})
	}
}

func mustGet(t *testing.T, s *State, key string) string {
	t.Helper()
	v, ok := s.Get(key)
	if !ok {
		t.Fatalf("%s missing in %q", key, s.Bytes())
	}
	return v
}

func TestStateAwaitingRoundTrip(t *testing.T) {
	files := map[string]string{
		"table with log":       "# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n\n## Log\n- x\n",
		"table without log":    "# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n",
		"ends with blank line": "# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n\n",
		"no final newline":     "# State\n- Status: running",
		"bullets with notes":   "# State\n- Status: running\n\n## Notes\n- Status: x\n",
		"CRLF":                 "# State\r\n- Status: running\r\n\r\n## Log\r\n- x\r\n",
		"BOM non-ASCII":        "\ufeff# État\n- Status: «running»\n",
		"fixture CRLF":         string(fixture(t, "state-table-crlf.md")),
		"fixture BOM":          string(fixture(t, "state-bullets-bom-nofinal.md")),
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			s := ParseState([]byte(file))
			s.SetAwaiting(KV{"question_id", "q-2026-01-01-001"}, KV{"gate", "blocking"}, KV{"question", "Which | one?\nReally"})
			again := ParseState(s.Bytes())
			if got := again.AwaitingQID(); got != "q-2026-01-01-001" {
				t.Fatalf("awaiting qid: got %q, want %q\n%s", got, "q-2026-01-01-001", s.Bytes())
			}
			if got, _ := lookup(again.Awaiting(), "question"); got != "Which | one? Really" {
				t.Errorf("question: got %q, want %q", got, "Which | one? Really")
			}
			if got, want := again.Encoding(), ParseState([]byte(file)).Encoding(); got != want {
				t.Errorf("encoding: got %s, want %s", got, want)
			}
			if strings.Contains(file, "\r\n") && strings.Count(string(s.Bytes()), "\n") != strings.Count(string(s.Bytes()), "\r\n") {
				t.Errorf("CRLF file got LF lines: %q", s.Bytes())
			}
			s.ClearAwaiting()
			if got := string(s.Bytes()); got != file {
				t.Fatalf("after ClearAwaiting: got %q, want %q", got, file)
			}
		})
	}
}

func TestStateReplaceAwaiting(t *testing.T) {
	s := ParseState(fixture(t, "state-bullets.md"))
	s.SetAwaiting(KV{"question_id", "q-2026-11-29-002"})
	again := ParseState(s.Bytes())
	if got := again.AwaitingQID(); got != "q-2026-11-29-002" {
		t.Fatalf("awaiting qid: got %q, want %q", got, "q-2026-11-29-002")
	}
	if got := strings.Count(string(s.Bytes()), "## Awaiting human"); got != 1 {
		t.Fatalf("awaiting sections: got %d, want 1", got)
	}
	if !strings.HasSuffix(string(s.Bytes()), "\n## Notes\n- Status: not-the-cursor\n") {
		t.Fatalf("Notes section changed: %q", s.Bytes())
	}
	s.ClearAwaiting()
	if again = ParseState(s.Bytes()); again.Awaiting() != nil {
		t.Fatalf("got awaiting %v, want none", again.Awaiting())
	}
	if got, _ := again.Get("status"); got != "awaiting_human" {
		t.Fatalf("status: got %q, want %q", got, "awaiting_human")
	}
}

func TestStateClearAwaitingTwice(t *testing.T) {
	s := ParseState([]byte("- Status: awaiting_human\n\n## Awaiting human\n- qid: q-1\n\n## Awaiting human\n- qid: q-0\n\n## Log\n"))
	s.ClearAwaiting()
	if got, want := string(s.Bytes()), "- Status: awaiting_human\n\n## Log\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := ParseState(s.Bytes()).AwaitingQID(); got != "" {
		t.Fatalf("awaiting qid: got %q, want none", got)
	}
}

func TestStateAppendLogAndDelete(t *testing.T) {
	tests := []struct {
		name, file, want string
		edit             func(*State)
	}{
		{"log after last line", "# State\n- Status: running\n\n## Log\n- a\n\n## Notes\n", "# State\n- Status: running\n\n## Log\n- a\n- b c\n\n## Notes\n",
			func(s *State) { s.AppendLog("b\nc") }},
		{"log empty section", "## Log\n", "## Log\n- b\n", func(s *State) { s.AppendLog("b") }},
		{"no log section", "- Status: running\n", "- Status: running\n", func(s *State) { s.AppendLog("b") }},
		{"log CRLF no final newline", "## Log\r\n- a", "## Log\r\n- a\r\n- b", func(s *State) { s.AppendLog("b") }},
		{"log after an unclosed fence", "## Log\n```\n- a\n", "## Log\n```\n- a\n```\n- b\n", func(s *State) { s.AppendLog("b") }},
		{"delete bullet", "- Status: running\n- Next step: x\n\n## Log\n", "- Status: running\n\n## Log\n", func(s *State) { s.Delete("next_action") }},
		{"delete row", "## Cursor\n| Key | Value |\n| --- | --- |\n| a | 1 |\n| b | 2 |\n", "## Cursor\n| Key | Value |\n| --- | --- |\n| b | 2 |\n", func(s *State) { s.Delete("a") }},
		{"delete missing key", "- Status: running\n", "- Status: running\n", func(s *State) { s.Delete("phase") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseState([]byte(tt.file))
			tt.edit(s)
			if got := string(s.Bytes()); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
