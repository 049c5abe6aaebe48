package mdstore

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The question forms of DevRites workspaces (docs/formats.md): every
// one is a block, in file order, and the file reads back byte for byte.
func TestDevRitesQuestionForms(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"fixture", string(fixture(t, "questions-devrites.md")),
			[]string{"Q-001", "Q-002", "Q-003", "q-4", "seal-important-accept", "q-2026-03-02-001"}},
		{"CRLF fixture", string(fixture(t, "questions-devrites-crlf.md")), []string{"Q-010", "Q-011"}},
		{"upper-case numbered", "## Q-012\nstatus: open\n", []string{"Q-012"}},
		{"gate word after the id", "## Q-002 validating\nstatus: open\n## q-3 blocking\n", []string{"Q-002", "q-3"}},
		{"canonical id and gate word", "## q-2026-01-01-001 escalating\n", []string{"q-2026-01-01-001"}},
		{"other words after the id", "## Q-002 validating now\nstatus: open\n", []string{}},
		{"named block", "## seal-important-accept\nstatus: open\ngate: blocking\n", []string{"seal-important-accept"}},
		{"named block, blank line first", "## seal\n\nstatus: answered\n", []string{"seal"}},
		{"named block, status after other fields", "## seal\ngate: blocking\nquestion: |\n  a\n\n  b\nstatus: dropped\n", []string{"seal"}},
		{"named block with a gate word", "## seal-accept blocking\nstatus: open\n", []string{"seal-accept"}},
		{"named heading, unknown status", "## Rollout\nstatus: in progress\n", []string{}},
		{"named heading, prose first", "## Notes\nSee below.\nstatus: open\n", []string{}},
		{"named heading, bullet", "## Notes\n- status: open\n", []string{}},
		{"named heading, no status", "## Notes\nowner: ana\n", []string{}},
		{"named heading of two words", "## Release plan\nstatus: open\n", []string{}},
		{"named heading, level 3", "### seal\nstatus: open\n", []string{}},
		{"named heading, status in a fence", "## seal\n```\nstatus: open\n```\n", []string{}},
		{"named heading in a fence", "```\n## seal\nstatus: open\n```\n", []string{}},
		{"mistyped canonical id is not a name", "## q-2026-01-01-1\nstatus: open\n", []string{}},
		{"register", "## Question register\n\n| Question ID | Status |\n|---|---|\n| Q-001 | open |\n| Q-002 | answered |\n", []string{"Q-001", "Q-002"}},
		{"register ends at its section", "## Question register\n| Question ID | Status |\n|---|---|\n| Q-001 | open |\n## Notes\n| Question ID | Status |\n|---|---|\n| Q-002 | open |\n", []string{"Q-001"}},
		{"register without Status column", "## Question register\n| Question ID | Question |\n|---|---|\n| Q-001 | Why? |\n", []string{}},
		{"register without header", "## Question register\n| Q-001 | open |\n| Q-002 | open |\n", []string{}},
		{"register row with no id", "## Question register\n| Question ID | Status |\n|---|---|\n|  | open |\n| Q-002 | open |\n", []string{"Q-002"}},
		{"register in a fence", "## Question register\n```\n| Question ID | Status |\n|---|---|\n| Q-001 | open |\n```\n", []string{}},
		{"register then blocks", "## Question register\n| Question ID | Status |\n|---|---|\n| Q-001 | open |\n\n## Q-002\nstatus: open\n", []string{"Q-001", "Q-002"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ParseQuestions([]byte(tt.text))
			if got := qids(q); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if got := string(q.Bytes()); got != tt.text {
				t.Errorf("write back: got %q, want %q", got, tt.text)
			}
			// The fast path (no fences) and the full scan agree.
			if !strings.Contains(tt.text, "```") {
				fenced := ParseQuestions([]byte(tt.text + "\n```\nx\n```\n"))
				if got := qids(fenced); strings.Join(got, ",") != strings.Join(tt.want, ",") {
					t.Errorf("with a fence at the end: got %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestDevRitesFields(t *testing.T) {
	q := ParseQuestions(fixture(t, "questions-devrites.md"))
	tests := []struct {
		qid, key, want string
	}{
		{"Q-001", "status", "answered"},
		{"Q-001", "answer", "debug"},
		{"Q-002", "gate", "validating"},
		{"Q-002", "question", "Keep the CSV export?"},
		{"Q-002", "answer", ""},
		{"Q-002", "impact", "SLICE-003"},
		{"Q-003", "options", "1. Banker's rounding (Recommended) — logic: unbiased · business: matches ledger\n2. Round half up — simpler, biased upward on .5\n3. Something else — I'll describe it"},
		{"Q-003", "answer", ""},
		{"Q-003", "impact", "SLICE-002, SLICE-003"},
		{"seal-important-accept", "route", "security-oncall"},
	}
	for _, tt := range tests {
		t.Run(tt.qid+"/"+tt.key, func(t *testing.T) {
			b := q.Find(tt.qid)
			if b == nil {
				t.Fatalf("%s not found", tt.qid)
			}
			if got, ok := b.Get(tt.key); !ok || got != tt.want {
				t.Errorf("got %q (present %v), want %q", got, ok, tt.want)
			}
		})
	}
	if got := q.Find("Q-003").Label(); got != "blocking" {
		t.Errorf("Q-003 label: got %q, want %q", got, "blocking")
	}
	if !q.Find("Q-002").Row() || q.Find("Q-003").Row() {
		t.Errorf("Row: Q-002 is a register row, Q-003 a heading block")
	}
	if _, ok := q.Find("Q-002").Get("question id"); ok {
		t.Errorf("the Question ID cell is the id, not a field")
	}
	if got := q.Find("Q-002").Line(); got != 15 {
		t.Errorf("Q-002 line: got %d, want 15", got)
	}
}

// Resolving a register row edits its Status and Answer cells in place: the
// table keeps its form, and only that line changes.
func TestRegisterSet(t *testing.T) {
	tests := []struct {
		name, row string
		kvs       []KV
		want      string
	}{
		{"empty answer cell", "| Q-002 | open | validating | Keep? |  | SLICE-003 |",
			[]KV{{"status", "answered"}, {"answered_at", "2026-03-02T10:00:00Z"}, {"answer", "Keep it"}, {"answered_by", "human"}},
			"| Q-002 | answered | validating | Keep? | Keep it | SLICE-003 |"},
		{"one-space cell", "| Q-002 | open | validating | Keep? | | SLICE-003 |",
			[]KV{{"Status", "dropped"}, {"Answer", "not needed"}},
			"| Q-002 | dropped | validating | Keep? | not needed | SLICE-003 |"},
		{"cell with text", "| Q-002 | open | validating | Keep? | tbd | SLICE-003 |",
			[]KV{{"answer", "yes"}},
			"| Q-002 | open | validating | Keep? | yes | SLICE-003 |"},
		{"no padding", "|Q-002|open|validating|Keep?||SLICE-003|",
			[]KV{{"status", "answered"}, {"answer", "yes"}},
			"|Q-002|answered|validating|Keep?| yes |SLICE-003|"},
		{"missing cells", "| Q-002 | open |",
			[]KV{{"status", "answered"}, {"answer", "yes"}},
			"| Q-002 | answered | | | yes |"},
		{"missing cells, no closing pipe", "| Q-002",
			[]KV{{"status", "answered"}},
			"| Q-002 | answered |"},
		{"last cell without its pipe, emptied", "| Q-002 | open | validating | Keep? | x | SLICE-003",
			[]KV{{"impact", ""}},
			"| Q-002 | open | validating | Keep? | x | |"},
	}
	const head = "# Questions\n\n## Question register\n| Question ID | Status | Gate | Question | Answer | Impact |\n| --- | --- | --- | --- | --- | --- |\n"
	const tail = "\n## Q-003\nstatus: open\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ParseQuestions([]byte(head + tt.row + "\n" + tail))
			if err := q.Set("Q-002", tt.kvs...); err != nil {
				t.Fatal(err)
			}
			if got, want := string(q.Bytes()), head+tt.want+"\n"+tail; got != want {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
			again := ParseQuestions(q.Bytes())
			if got := qids(again); strings.Join(got, ",") != "Q-002,Q-003" {
				t.Fatalf("blocks after the edit: %q", got)
			}
		})
	}
}

func TestRegisterSetRefused(t *testing.T) {
	file := []byte("## Question register\n| Question ID | Status | Answer |\n|---|---|---|\n| Q-1 | open | |\n")
	for _, v := range []string{"a | b", "two\nlines", "cr\r", " padded", "trailing ", `ends in \`} {
		t.Run(v, func(t *testing.T) {
			if FitsCell(v) {
				t.Errorf("FitsCell(%q) = true, want false", v)
			}
			q := ParseQuestions(file)
			if err := q.Set("Q-1", KV{"status", "answered"}, KV{"answer", v}); !errors.Is(err, ErrMalformed) {
				t.Fatalf("got %v, want %v", err, ErrMalformed)
			}
			if !bytes.Equal(q.Bytes(), file) {
				t.Fatalf("file changed: %q", q.Bytes())
			}
		})
	}
	for _, v := range []string{"yes", "Banker's rounding — logic: unbiased", "C:\\dir\\x", "日本語"} {
		if !FitsCell(v) {
			t.Errorf("FitsCell(%q) = false, want true", v)
		}
	}
}

func TestRenameKeepsGateWord(t *testing.T) {
	q := ParseQuestions([]byte("## q-2026-01-01-001 blocking\nstatus: open\n\n## q-2026-01-01-001\nstatus: open\n\n## Question register\n| Question ID | Status |\n|---|---|\n| q-2026-01-01-001 | open |\n"))
	if err := q.Rename(1, "q-2026-01-01-002"); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.SplitN(string(q.Bytes()), "\n", 2)[0], "## q-2026-01-01-002 blocking"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := q.Rename(10, "q-2026-01-01-003"); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("renaming a register row: got %v, want %v", err, ErrNoQuestion)
	}
}

// A closed fenced example is text: a heading in it is neither a block nor
// swallows what follows; doctor lists it as fenced, not unclosed.
func TestFencedExampleHeadings(t *testing.T) {
	q := ParseQuestions(fixture(t, "questions-devrites.md"))
	for _, h := range q.Headings() {
		if h.Text == "## Q-099" && (!h.Fenced || h.Unclosed) {
			t.Errorf("## Q-099: fenced %v, unclosed %v; want fenced, closed", h.Fenced, h.Unclosed)
		}
	}
	if q.Find("Q-099") != nil {
		t.Errorf("Q-099 is in a fenced example, not a block")
	}
}

// DevRites' migrate leaves header-less "| key | value |" rows among
// bullets: they are the cursor, and new keys go after the last of them.
func TestStateMigrateRows(t *testing.T) {
	src := fixture(t, "state-migrate.md")
	s := ParseState(src)
	if got := s.Encoding(); got != Rows {
		t.Fatalf("encoding: got %s, want %s", got, Rows)
	}
	want := []KV{{"phase", "build"}, {"run_mode", "hitl"}, {"status", "running"}, {"slice_mode", "AFK"},
		{"active_slice", "SLICE-002"}, {"next_action", "(resume: `/rite-build (Claude) / $rite-build (Codex)` to continue the workflow)"},
		{"risk", "medium"}, {"schema", "4"}}
	if got := entryList(s.Cursor()); !sameKVs(got, want) {
		t.Fatalf("cursor: got %q, want %q", got, want)
	}
	if n, err := s.Schema(); n != 4 || err != nil {
		t.Fatalf("schema: got %d, %v, want 4", n, err)
	}

	s.Set("status", "awaiting_human")
	s.Set("slice_mode", "HITL")
	s.Set("stop_reason", "a | b")
	s.SetAwaiting(KV{"question_id", "q-2026-03-02-001"}, KV{"gate", "blocking"})
	wantText := strings.Replace(strings.Replace(strings.Replace(string(src),
		"| status | running |", "| status | awaiting_human |", 1),
		"- Slice mode: AFK", "- Slice mode: HITL", 1),
		"| schema | 4 |\n", "| schema | 4 |\n| stop_reason | a \\| b |\n", 1)
	wantText = strings.Replace(wantText, "## Log", "## Awaiting human\n| question_id | q-2026-03-02-001 |\n| gate | blocking |\n\n## Log", 1)
	if got := string(s.Bytes()); got != wantText {
		t.Fatalf("got\n%s\nwant\n%s", got, wantText)
	}
	again := ParseState(s.Bytes())
	if got := again.AwaitingQID(); got != "q-2026-03-02-001" {
		t.Errorf("awaiting: got %q", got)
	}
	if got, _ := again.Get("stop_reason"); got != "a | b" {
		t.Errorf("stop_reason: got %q", got)
	}
	s.ClearAwaiting()
	s.Delete("stop_reason")
	s.Set("status", "running")
	s.Set("slice_mode", "AFK")
	if got := s.Bytes(); !bytes.Equal(got, src) {
		t.Errorf("back to the start: got\n%s\nwant\n%s", got, src)
	}
}

func TestStateTableForms(t *testing.T) {
	tests := []struct {
		name, text, enc, status, awaited string
		schema                           int
	}{
		{"DevRites v5", string(fixture(t, "state-devrites-v5.md")), Table, "awaiting_human", "Q-003", 4},
		{"header-less rows only", "# State\n| status | done |\n| schema | 3 |\n", Rows, "done", "", 3},
		{"header-less awaiting rows", "# State\n- Status: awaiting_human\n\n## Awaiting human\n| question_id | Q-1 |\n- gate: blocking\n", Bullets, "awaiting_human", "Q-1", 2},
		{"header table in the preamble", "# State\n| Key | Value |\n|:---|---:|\n| status | blocked |\n", Rows, "blocked", "", 2},
		{"cursor rows without a header", "# State\n## Cursor\n| status | running |\n| schema | 4 |\n", Table, "running", "", 4},
		{"rows in a fence are not read", "# State\n```\n| status | blocked |\n```\n- Status: running\n", Bullets, "running", "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseState([]byte(tt.text))
			if got := s.Encoding(); got != tt.enc {
				t.Errorf("encoding: got %s, want %s", got, tt.enc)
			}
			if got, _ := s.Get("status"); got != tt.status {
				t.Errorf("status: got %q, want %q", got, tt.status)
			}
			if got := s.AwaitingQID(); got != tt.awaited {
				t.Errorf("awaiting: got %q, want %q", got, tt.awaited)
			}
			if got, err := s.Schema(); got != tt.schema || err != nil {
				t.Errorf("schema: got %d, %v, want %d", got, err, tt.schema)
			}
			if got := string(s.Bytes()); got != tt.text {
				t.Errorf("write back: got %q", got)
			}
		})
	}
}

// decisions.md of DevRites v3+ is an ADR log, often ending in a "## Decision
// log" table: a record appended after it is separated by a blank line, so
// that it never becomes a row of the table, and the log keeps its bytes.
func TestAppendRecordAfterDecisionTable(t *testing.T) {
	const table = "# Decisions\n\n## DEC-001 — Banker's rounding\n- Status: accepted\n- Related: Q-003\n\n## Decision log\n\n| ID | Decision | Related |\n| --- | --- | --- |\n| DEC-001 | Banker's rounding | Q-003 |"
	rec := "## Q-002 answered\nanswer: Keep it\n"
	tests := []struct{ name, in, want string }{
		{"final newline", table + "\n", table + "\n\n" + rec},
		{"no final newline", table, table + "\n\n" + rec[:len(rec)-1]},
		{"blank line after", table + "\n\n", table + "\n\n" + rec},
		{"CRLF", strings.ReplaceAll(table, "\n", "\r\n") + "\r\n", strings.ReplaceAll(table+"\n\n"+rec, "\n", "\r\n")},
		{"fenced example above", "```\n## q-1 answered\n```\n" + table + "\n", "```\n## q-1 answered\n```\n" + table + "\n\n" + rec},
		{"fence left open", table + "\n```\n", table + "\n```\n```\n\n" + rec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendRecord([]byte(tt.in), "Q-002 answered", KV{"answer", "Keep it"}))
			if got != tt.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tt.want)
			}
			d := splitString(got)
			if mask := d.fenced(nil); mask[len(d.lines)-1] {
				t.Errorf("the record is inside fenced code")
			}
		})
	}
}
