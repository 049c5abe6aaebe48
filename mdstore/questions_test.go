package mdstore

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func qids(q *Questions) []string {
	out := []string{}
	for _, b := range q.Blocks() {
		out = append(out, b.QID)
	}
	return out
}

func TestParseQuestionsBlocks(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"spec fixture", string(fixture(t, "questions-spec.md")), []string{"q-2026-11-29-001", "q-2026-11-29-002"}},
		{"fenced fixture", string(fixture(t, "questions-fenced.md")), []string{"q-2026-01-01-001", "q-2026-01-01-1000"}},
		{"legacy fixture", string(fixture(t, "questions-legacy.md")), []string{"q-2025-12-31-001", "q-2025-12-31-002"}},
		{"four-digit suffix", "## q-2026-01-01-1234\n", []string{"q-2026-01-01-1234"}},
		{"five-digit suffix", "## q-2026-01-01-00001\n", []string{"q-2026-01-01-00001"}},
		{"two-digit suffix is not a qid", "## q-2026-01-01-01\n", []string{}},
		{"trailing spaces", "## q-2026-01-01-001  \n", []string{"q-2026-01-01-001"}},
		{"last line ends in a lone CR", "## q-2026-01-01-001\r", []string{"q-2026-01-01-001"}},
		{"indented heading is not a block", " ## q-2026-01-01-001\n", []string{}},
		{"level-3 heading is not a block", "### q-2026-01-01-001\n", []string{}},
		{"text after the qid", "## q-2026-01-01-001 done\n", []string{}},
		{"backtick fence", "```\n## q-2026-01-01-001\n```\n## q-2026-01-01-002\n", []string{"q-2026-01-01-002"}},
		{"tilde fence", "~~~~\n## q-2026-01-01-001\n~~~\n~~~~\n## q-2026-01-01-002\n", []string{"q-2026-01-01-002"}},
		{"fence never closed", "## q-2026-01-01-001\n```\n## q-2026-01-01-002\n", []string{"q-2026-01-01-001"}},
		{"fence in an answer does not swallow", "## q-2026-01-01-001\nanswer: |\n  ```\n## q-2026-01-01-002\n", []string{"q-2026-01-01-001", "q-2026-01-01-002"}},
		{"fence in an older-form value does not swallow", "## q-2026-01-01-001\nanswer:\n  ```\n## q-2026-01-01-002\n", []string{"q-2026-01-01-001", "q-2026-01-01-002"}},
		{"field-like line in fenced prose is not a value", "# Q\n```\nkey: |\n  ```\n## q-2026-01-01-001\n", []string{"q-2026-01-01-001"}},
		{"indented fence in a block opens", "## q-2026-01-01-001\n  ```\n## q-2026-01-01-002\n", []string{"q-2026-01-01-001"}},
		{"prose looking like a field outside blocks", "# Q\nExample: |\n  ```\n## q-2026-01-01-001\n  ```\n## q-2026-01-01-002\n", []string{"q-2026-01-01-002"}},
		{"CRLF", string(fixture(t, "questions-crlf.md")), []string{"q-2026-03-01-001", "q-2026-03-01-002"}},
		{"BOM", string(fixture(t, "questions-bom-nofinal.md")), []string{"q-2026-04-01-001", "q-2026-04-01-002"}},
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
		})
	}
}

func TestParseQuestionsBlockEnds(t *testing.T) {
	q := ParseQuestions(fixture(t, "questions-fenced.md"))
	b := q.Find("q-2026-01-01-001")
	if b == nil {
		t.Fatal("q-2026-01-01-001 not found")
	}
	want := []KV{
		{"status", "open"},
		{"question", "Keep the example?"},
		{"example", "```\n## q-2026-01-01-002\nstatus: answered\n```\n"},
		{"answer", "~~~\n- Status: running\n| status | running |"},
	}
	if got := fieldList(b); !sameKVs(got, want) {
		t.Errorf("fields: got %q, want %q", got, want)
	}
	// The block ends at "## Notes": the line after the fence there is not
	// one of its fields.
	if got, ok := b.Get("status"); !ok || got != "open" {
		t.Errorf("status: got %q, want %q", got, "open")
	}
	lines := strings.Split(string(fixture(t, "questions-fenced.md")), "\n")
	if got := lines[b.end]; got != "## Notes" {
		t.Errorf("block ends before %q, want %q", got, "## Notes")
	}
	last := q.Find("q-2026-01-01-1000")
	if got := last.Value("question"); got != "four-digit suffix" {
		t.Errorf("question: got %q, want %q", got, "four-digit suffix")
	}
}

func TestFieldValues(t *testing.T) {
	tests := []struct {
		name, body, key, want string
	}{
		{"plain", "status: open\n", "status", "open"},
		{"key case and spelling", "Answered_By: human\n", "answered by", "human"},
		{"value with colons", "url: http://example.com/a:b\n", "url", "http://example.com/a:b"},
		{"empty", "answer:\n", "answer", ""},
		{"clip", "answer: |\n  one\n  two\n\nnext: x\n", "answer", "one\ntwo\n"},
		{"strip", "answer: |-\n  one\n  two\nnext: x\n", "answer", "one\ntwo"},
		{"keep", "answer: |+\n  one\n  \n  \nnext: x\n", "answer", "one\n\n\n"},
		{"keep, blank lines are separators", "answer: |+\n  one\n\n\n", "answer", "one\n"},
		{"indentation digit", "answer: |2-\n    indented\n  flush\n", "answer", "  indented\nflush"},
		{"indentation digit before chomping", "answer: |2+\n   x\n  \n", "answer", " x\n\n"},
		{"chomping before digit", "answer: |-4\n      x\n", "answer", "  x"},
		{"indentation detected from first text line", "answer: |\n\n    deep\n     deeper\n", "answer", "\ndeep\n deeper\n"},
		{"empty lines inside", "answer: |-\n  a\n\n  b\n", "answer", "a\n\nb"},
		{"scalar without body", "answer: |\nnext: x\n", "answer", ""},
		{"only blank lines", "answer: |+\n  \n", "answer", "\n"},
		{"older form", "question:\n  Which database?\n  Postgres or SQLite.\n\nnext: x\n", "question", "Which database?\nPostgres or SQLite."},
		{"plain continued", "question: Which\n  database?\n", "question", "Which database?"},
		{"plain continued after empty line", "question: Which\n\n  database?\n", "question", "Which\ndatabase?"},
		{"heading-like value line", "answer: |-\n  ## q-2026-01-01-009\n  # Title\n", "answer", "## q-2026-01-01-009\n# Title"},
		{"unknown field", "reviewer-note: keep me\n", "reviewer-note", "keep me"},
		{"header-like value is one line", "answer: |x\n", "answer", "|x"},
		{"non-ASCII", "question: Ünïcödé — 日本語？\n", "question", "Ünïcödé — 日本語？"},
		{"tab after colon", "gate:\tblocking\n", "gate", "blocking"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ParseQuestions([]byte("## q-2026-01-01-001\n" + tt.body))
			b := q.Find("q-2026-01-01-001")
			got, ok := b.Get(tt.key)
			if !ok || got != tt.want {
				t.Fatalf("got %q (present %v), want %q", got, ok, tt.want)
			}
		})
	}
}

func TestNotFields(t *testing.T) {
	tests := []string{
		"http://example.com",
		"a:b",
		"1st: x",
		" indented: x",
		"- bullet: x",
		"key.name: x",
	}
	for _, line := range tests {
		t.Run(line, func(t *testing.T) {
			b := ParseQuestions([]byte("## q-2026-01-01-001\n" + line + "\n")).Blocks()[0]
			if got := fieldList(b); len(got) != 0 {
				t.Fatalf("got fields %q, want none", got)
			}
		})
	}
}

func TestQuestionsSet(t *testing.T) {
	const file = "# Questions\n\n## q-2026-01-01-001\nstatus: open\nquestion: Which?\nnote: x\n\n## Notes\nkeep\n"
	tests := []struct {
		name string
		kvs  []KV
		want string
	}{
		{"update in place", []KV{{"status", "answered"}},
			"# Questions\n\n## q-2026-01-01-001\nstatus: answered\nquestion: Which?\nnote: x\n\n## Notes\nkeep\n"},
		{"key spelled differently keeps its spelling", []KV{{"Status", "answered"}},
			"# Questions\n\n## q-2026-01-01-001\nstatus: answered\nquestion: Which?\nnote: x\n\n## Notes\nkeep\n"},
		{"new fields at the end, in order", []KV{{"answer", "yes"}, {"status", "answered"}, {"answered_by", "human"}},
			"# Questions\n\n## q-2026-01-01-001\nstatus: answered\nquestion: Which?\nnote: x\nanswer: yes\nanswered_by: human\n\n## Notes\nkeep\n"},
		{"multi-line value becomes a block scalar", []KV{{"question", "line one\n## q-2026-01-01-002\nstatus: open"}},
			"# Questions\n\n## q-2026-01-01-001\nstatus: open\nquestion: |-\n    line one\n    ## q-2026-01-01-002\n    status: open\nnote: x\n\n## Notes\nkeep\n"},
		{"value with leading spaces", []KV{{"answer", "  indented\nflush\n"}},
			"# Questions\n\n## q-2026-01-01-001\nstatus: open\nquestion: Which?\nnote: x\nanswer: |4\n      indented\n    flush\n\n## Notes\nkeep\n"},
		{"empty value", []KV{{"note", ""}},
			"# Questions\n\n## q-2026-01-01-001\nstatus: open\nquestion: Which?\nnote:\n\n## Notes\nkeep\n"},
		{"block scalar back to one line", []KV{{"question", "a\nb"}, {"question", "short"}},
			"# Questions\n\n## q-2026-01-01-001\nstatus: open\nquestion: short\nnote: x\n\n## Notes\nkeep\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ParseQuestions([]byte(file))
			for _, kv := range tt.kvs {
				if err := q.Set("q-2026-01-01-001", kv); err != nil {
					t.Fatal(err)
				}
			}
			if got := string(q.Bytes()); got != tt.want {
				t.Fatalf("got\n%q\nwant\n%q", got, tt.want)
			}
			again := ParseQuestions(q.Bytes()).Find("q-2026-01-01-001")
			for _, kv := range tt.kvs[len(tt.kvs)-1:] {
				if got := again.Value(kv.Key); got != kv.Value {
					t.Errorf("%s reads back: got %q, want %q", kv.Key, got, kv.Value)
				}
			}
		})
	}
}

func TestQuestionsSetErrors(t *testing.T) {
	q := ParseQuestions(fixture(t, "questions-fenced.md"))
	for _, id := range []string{"q-2026-01-01-999", "q-2026-01-01-003", "q-2030-01-01-001"} {
		t.Run(id, func(t *testing.T) {
			if err := q.Set(id, KV{"status", "answered"}); !errors.Is(err, ErrNoQuestion) {
				t.Fatalf("got %v, want %v", err, ErrNoQuestion)
			}
			if got, want := q.Bytes(), fixture(t, "questions-fenced.md"); !bytes.Equal(got, want) {
				t.Fatalf("file changed: got %q, want %q", got, want)
			}
		})
	}
}

func TestQuestionsSetKeepsValueTail(t *testing.T) {
	// A kept trailing blank line of a value is a line of spaces: a new
	// field goes after it, not into the value.
	q := ParseQuestions([]byte("## q-2026-01-01-001\nanswer: |+\n  a\n  \n"))
	if err := q.Set("q-2026-01-01-001", KV{"answered_by", "human"}); err != nil {
		t.Fatal(err)
	}
	b := ParseQuestions(q.Bytes()).Blocks()[0]
	if got, want := b.Value("answer"), "a\n\n"; got != want {
		t.Errorf("answer: got %q, want %q", got, want)
	}
	if got, want := b.Value("answered_by"), "human"; got != want {
		t.Errorf("answered_by: got %q, want %q", got, want)
	}
}

func TestQuestionsSetAfterSpacesLine(t *testing.T) {
	// A line of spaces at the end of a block is not a field's; a new field
	// goes after it, or the new value would take it in.
	q := ParseQuestions([]byte("## q-2026-01-01-001\nstatus: open\n   \n\n## Notes\n"))
	if err := q.Set("q-2026-01-01-001", KV{"answer", "\n"}); err != nil {
		t.Fatal(err)
	}
	want := "## q-2026-01-01-001\nstatus: open\n   \nanswer: |+\n    \n\n## Notes\n"
	if got := string(q.Bytes()); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := ParseQuestions(q.Bytes()).Blocks()[0].Value("answer"); got != "\n" {
		t.Fatalf("answer: got %q, want %q", got, "\n")
	}
}

func TestQuestionsSetOrphanIndentedLines(t *testing.T) {
	// Indented lines after a plain value continue it: an edit replaces
	// them with the value instead of letting a block scalar absorb them.
	q := ParseQuestions([]byte("## q-2026-01-01-001\nquestion: Which\n  database?\nstatus: open\n"))
	if err := q.Set("q-2026-01-01-001", KV{"question", "Which one?\nPostgres"}); err != nil {
		t.Fatal(err)
	}
	want := "## q-2026-01-01-001\nquestion: |-\n    Which one?\n    Postgres\nstatus: open\n"
	if got := string(q.Bytes()); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestQuestionsOpenFence(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"append after unclosed backticks", "# Q\n````go\ncode\n", "# Q\n````go\ncode\n````\n\n## q-2026-01-01-001\nstatus: open\n"},
		{"append after unclosed tildes", "# Q\n~~~\n", "# Q\n~~~\n~~~\n\n## q-2026-01-01-001\nstatus: open\n"},
		{"append after closed fence", "# Q\n```\ncode\n```\n", "# Q\n```\ncode\n```\n\n## q-2026-01-01-001\nstatus: open\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ParseQuestions([]byte(tt.file))
			q.Append("q-2026-01-01-001", KV{"status", "open"})
			if got := string(q.Bytes()); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if b := ParseQuestions(q.Bytes()).Find("q-2026-01-01-001"); b == nil || b.Value("status") != "open" {
				t.Fatalf("appended block not found in %q", q.Bytes())
			}
		})
	}
	t.Run("set into a block ending in an unclosed fence", func(t *testing.T) {
		q := ParseQuestions([]byte("## q-2026-01-01-001\nstatus: open\n```\n"))
		if err := q.Set("q-2026-01-01-001", KV{"answer", "x"}); err != nil {
			t.Fatal(err)
		}
		want := "## q-2026-01-01-001\nstatus: open\n```\n```\nanswer: x\n"
		if got := string(q.Bytes()); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		if got := ParseQuestions(q.Bytes()).Blocks()[0].Value("answer"); got != "x" {
			t.Fatalf("answer: got %q, want %q", got, "x")
		}
	})
}

func TestQuestionsAppend(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"title only", "# Questions\n", "# Questions\n\n## q-2026-01-01-001\nstatus: open\nanswer: |-\n    a\n    b\n"},
		{"ends with a blank line", "# Questions\n\n", "# Questions\n\n## q-2026-01-01-001\nstatus: open\nanswer: |-\n    a\n    b\n"},
		{"no final newline", "# Questions", "# Questions\n\n## q-2026-01-01-001\nstatus: open\nanswer: |-\n    a\n    b"},
		{"CRLF", "# Questions\r\n", "# Questions\r\n\r\n## q-2026-01-01-001\r\nstatus: open\r\nanswer: |-\r\n    a\r\n    b\r\n"},
		{"BOM", "\ufeff# Questions\n", "\ufeff# Questions\n\n## q-2026-01-01-001\nstatus: open\nanswer: |-\n    a\n    b\n"},
		{"lone CR at the end", "# Questions\r", "# Questions\r\n\n## q-2026-01-01-001\nstatus: open\nanswer: |-\n    a\n    b\r"},
		{"empty file", "", "## q-2026-01-01-001\nstatus: open\nanswer: |-\n    a\n    b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ParseQuestions([]byte(tt.file))
			q.Append("q-2026-01-01-001", KV{"status", "open"}, KV{"answer", "a\nb"})
			if got := string(q.Bytes()); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			if got := ParseQuestions(q.Bytes()).Find("q-2026-01-01-001").Value("answer"); got != "a\nb" {
				t.Fatalf("answer: got %q, want %q", got, "a\nb")
			}
		})
	}
}

func TestQuestionsRename(t *testing.T) {
	file := fixture(t, "questions-fenced.md")
	tests := []struct {
		name string
		line int
		qid  string
		err  error
	}{
		{"block heading", 11, "q-2026-01-01-005", nil},
		{"four-digit block", 31, "q-2026-01-02-001", nil},
		{"heading inside a fence", 6, "q-2026-01-01-005", ErrNoQuestion},
		{"a field line", 12, "q-2026-01-01-005", ErrNoQuestion},
		{"line zero", 0, "q-2026-01-01-005", ErrNoQuestion},
		{"past the end", 1000, "q-2026-01-01-005", ErrNoQuestion},
		{"not a qid", 11, "q-1", ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ParseQuestions(file)
			err := q.Rename(tt.line, tt.qid)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %v, want %v", err, tt.err)
				}
				if !bytes.Equal(q.Bytes(), file) {
					t.Fatalf("file changed after a refused rename")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(q.Bytes()), "\n")
			if got, want := lines[tt.line-1], "## "+tt.qid; got != want {
				t.Errorf("line %d: got %q, want %q", tt.line, got, want)
			}
			if ParseQuestions(q.Bytes()).Find(tt.qid) == nil {
				t.Errorf("renamed block %s not found", tt.qid)
			}
			if got, want := len(lines), len(strings.Split(string(file), "\n")); got != want {
				t.Errorf("lines: got %d, want %d", got, want)
			}
		})
	}
}

func TestHeadingID(t *testing.T) {
	for _, tt := range []struct {
		line, id, label string
		form            int
	}{
		{"## q-2026-11-29-001", "q-2026-11-29-001", "", idForm}, {"## q-2026-11-29-001 \t", "q-2026-11-29-001", "", idForm},
		{"## q-2026-11-29-12345", "q-2026-11-29-12345", "", idForm},
		{"## q-2026-11-29-001 blocking", "q-2026-11-29-001", "blocking", idForm},
		{"## Q-012", "Q-012", "", idForm}, {"## Q-002 validating", "Q-002", "validating", idForm},
		{"## q-3 blocking", "q-3", "blocking", idForm}, {"## q-3\tEscalating ", "q-3", "Escalating", idForm},
		{"## q-3 \t blocking", "q-3", "blocking", idForm},
		{"## seal-important-accept", "seal-important-accept", "", nameForm},
		{"## seal-important-accept advisory", "seal-important-accept", "advisory", nameForm},
		{"## Notes", "Notes", "", nameForm},
		{"## q-2026-11-29-01", "", "", notID}, {"## q-2026-11-29-0a1", "", "", notID}, {"### q-2026-11-29-001", "", "", notID},
		{"##  q-2026-11-29-001", "", "", notID}, {"## q-2026-11-29-001 x", "", "", notID}, {"## q-2026-11-29-001 blocking now", "", "", notID},
		{"## q-2026-11-2-001", "", "", notID}, {"## q-2026/11/29-001", "", "", notID},
		{"## x-2026-11-29-001", "x-2026-11-29-001", "", nameForm}, {"## q-2026-11-29-", "", "", notID}, {"## Question register", "", "", notID},
		{"## q-notes", "", "", notID}, {"", "", "", notID},
	} {
		id, label, form := headingID(tt.line)
		if id != tt.id || label != tt.label || form != tt.form {
			t.Errorf("headingID(%q) = %q, %q, %d, want %q, %q, %d", tt.line, id, label, form, tt.id, tt.label, tt.form)
		}
	}
}

// A block taken before an edit that moved its lines still reads its own
// fields, not whatever lines now stand where it was.
func TestBlockReadAfterEdit(t *testing.T) {
	q := ParseQuestions([]byte("# Questions\n\n## q-2026-11-29-001\nstatus: open\n\n## q-2026-11-29-002\nstatus: open\nanswer: two\n\n## q-2026-11-29-002\nstatus: dropped\n"))
	blocks := q.Blocks()
	if err := q.Set("q-2026-11-29-001", KV{"status", "answered"}, KV{"answer", "a\nb\nc"}, KV{"choice", "1"}); err != nil {
		t.Fatal(err)
	}
	if got, want := blocks[1].Value("answer"), "two"; got != want {
		t.Errorf("second block's answer after the edit: got %q, want %q", got, want)
	}
	if got, want := blocks[2].Value("status"), "dropped"; got != want {
		t.Errorf("duplicate block's status after the edit: got %q, want %q", got, want)
	}
	// Set read the edited block before changing it; that block keeps what
	// it read, and a fresh look finds the edit.
	if got, want := blocks[0].Value("status"), "open"; got != want {
		t.Errorf("edited block, read before the edit: got %q, want %q", got, want)
	}
	if got, want := q.Find("q-2026-11-29-001").Value("status"), "answered"; got != want {
		t.Errorf("edited block found again: got %q, want %q", got, want)
	}
}

// A block renamed by doctor keeps its own fields, and a handle on another
// block with the old qid keeps its own too.
func TestRenameKeepsHandles(t *testing.T) {
	q := ParseQuestions([]byte("## q-2026-01-01-001\nstatus: first\n\n## q-2026-01-01-001\nstatus: second\n"))
	first, second := q.Blocks()[0], q.Blocks()[1]
	if err := q.Rename(first.Line(), "q-2026-01-01-002"); err != nil {
		t.Fatal(err)
	}
	if got, want := first.Value("status"), "first"; got != want {
		t.Errorf("renamed block: got %q, want %q", got, want)
	}
	if got, want := first.QID, "q-2026-01-01-002"; got != want {
		t.Errorf("renamed block's qid: got %q, want %q", got, want)
	}
	if got, want := second.Value("status"), "second"; got != want {
		t.Errorf("the other block: got %q, want %q", got, want)
	}
	if got, want := q.Find("q-2026-01-01-002").Value("status"), "first"; got != want {
		t.Errorf("found by its new qid: got %q, want %q", got, want)
	}
}

// The fast path of AppendRecord agrees with a full parse when a later line
// starts with U+FEFF, which is text there, not a byte order mark.
func TestAppendRecordFEFFLine(t *testing.T) {
	for _, in := range []string{
		"# Decisions\n\n## q-2026-01-01-001 answered\nanswer: yes\n\ufeff",
		"# Decisions\n\ufeff  ",
		"   \n\ufeff",
		"\ufeff# Decisions\n",
	} {
		got := AppendRecord([]byte(in), "q-2026-01-01-002 answered", KV{"answer", "no"})
		q := ParseQuestions([]byte(in))
		q.d.appendBlock("## q-2026-01-01-002 answered", []KV{{"answer", "no"}}, q.opaque)
		if want := q.d.bytes(); !bytes.Equal(got, want) {
			t.Errorf("AppendRecord(%q):\ngot  %q\nwant %q", in, got, want)
		}
	}
}

// Set with one key given twice (as NormKey reads it) sets it as setting the
// pairs in turn would: the first spelling, the last value, one field. The
// same field replaced twice in one edit used to cut lines that were gone.
func TestSetKeyGivenTwice(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"## q-0\nstAtus: \n ", "## q-0\nstAtus: answered"}, // no final newline, as read
		{"## q-2026-11-29-001\nstatus: open\n", "## q-2026-11-29-001\nstatus: open\nAnswer: two\n"},
		{"## Question register\n|QID|StAtus \n|-\n|A| 000000000", "## Question register\n|QID|StAtus \n|-\n|A| answered"}, // a register row
	} {
		for _, q := range []*Questions{ParseQuestions([]byte(tc.in)), splitQuestions([]byte(tc.in))} {
			id := q.Blocks()[0].QID
			kvs := []KV{{"stAtus", "0"}, {"status", "answered"}}
			if strings.Contains(tc.in, "open") {
				kvs = []KV{{"Answer", "one"}, {"answer", "two"}}
			}
			if err := q.Set(id, kvs...); err != nil {
				t.Fatal(err)
			}
			if got := string(q.Bytes()); got != tc.want {
				t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
			}
		}
	}
}
