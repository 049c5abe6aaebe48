package mdstore

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var stateKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// valueSeeds are answers a person can send: the fuzz targets start from them.
var valueSeeds = []string{
	"",
	"yes",
	"  leading and trailing  ",
	"line one\nline two",
	"ends with a newline\n",
	"ends with blank lines\n\n\n",
	"\n",
	"\n\n  indented after blanks",
	"## q-2026-01-01-001\nstatus: open",
	"status: open",
	"| status | running |\n| --- | --- |",
	"a | b \\| c \\",
	"```\n## q-2026-01-01-002\n",
	"~~~\nunclosed",
	"日本語 — «ça» ∑ 🚀\n\tTabbed",
	"|",
	"|2-",
	"  \n  ",
	"\u00a0nbsp\u00a0",
	"# Questions",
	"- Status: running",
}

func seedFiles(f *testing.F, glob string) [][]byte {
	var out [][]byte
	for _, b := range fixtures(f, glob) {
		out = append(out, b)
	}
	return out
}

// FuzzQuestionsRoundTrip: parsing and writing back gives the same bytes;
// setting a field changes that field and nothing else.
func FuzzQuestionsRoundTrip(f *testing.F) {
	for i, file := range seedFiles(f, "questions-*.md") {
		for j, v := range valueSeeds {
			f.Add(file, uint8(i+j), []string{"answer", "status", "new_field", "Question", "example"}[j%5], v)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, pick uint8, key, value string) {
		q := ParseQuestions(data)
		if got := q.Bytes(); !bytes.Equal(got, data) {
			t.Fatalf("write back: got %q, want %q", got, data)
		}
		checkContent(t, q, data, nil)
		blocks := q.Blocks()
		if len(blocks) == 0 {
			return
		}
		key, value = fieldKey(key), cleanValue(value)
		target := q.Find(blocks[int(pick)%len(blocks)].QID)
		if target.Row() {
			// A register row keeps its own columns, and a cell one line.
			fs := target.Fields()
			if len(fs) == 0 || !FitsCell(value) {
				return
			}
			key = fs[int(pick)%len(fs)].Key
		}
		if _, _, form := headingID(lineOf(q.d, target.head)); form == nameForm && NormKey(key) == "status" && !questionStatus(value) {
			value = "answered" // a named block is one while its status is a question's
		}
		ti := 0
		for i, b := range blocks {
			if b == target {
				ti = i
			}
		}
		before := make([][]KV, len(blocks))
		for i, b := range blocks {
			before[i] = fieldList(b)
		}
		prefix := linesBytes(q.d, 0, target.head)
		suffix := linesBytes(q.d, target.end, q.d.count())

		if err := q.Set(target.QID, KV{key, value}); err != nil {
			t.Fatal(err)
		}
		checkContent(t, q, q.Bytes(), data)
		again := ParseQuestions(q.Bytes())
		if got, want := len(again.Blocks()), len(blocks); got != want {
			t.Fatalf("after Set %s=%q: got %d blocks, want %d\n%s", key, value, got, want, q.Bytes())
		}
		nb := again.Blocks()[ti]
		if got, ok := nb.Get(key); !ok || got != value {
			t.Fatalf("after Set %s=%q: got %q (present %v), want %q\n%s", key, value, got, ok, value, q.Bytes())
		}
		if got, want := withoutKey(fieldList(nb), key), withoutKey(before[ti], key); !sameKVs(got, want) {
			t.Fatalf("other fields of the block: got %q, want %q\n%s", got, want, q.Bytes())
		}
		for i, b := range again.Blocks() {
			if i != ti && !sameKVs(fieldList(b), before[i]) {
				t.Fatalf("block %d changed: got %q, want %q", i, fieldList(b), before[i])
			}
		}
		if got := linesBytes(again.d, 0, nb.head); got != prefix {
			t.Fatalf("bytes before the block: got %q, want %q", got, prefix)
		}
		if got := linesBytes(again.d, nb.end, again.d.count()); got != suffix {
			t.Fatalf("bytes after the block: got %q, want %q", got, suffix)
		}
	})
}

// FuzzFieldValue: any text a person sends, stored as an answer with Set or
// in a new block with Append, reads back byte for byte and forges nothing.
func FuzzFieldValue(f *testing.F) {
	files := seedFiles(f, "questions-*.md")
	for i, v := range valueSeeds {
		f.Add(files[i%len(files)], v, i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, value string, appendNew bool) {
		value = cleanValue(value)
		q := ParseQuestions(data)
		before := q.Blocks()
		var want [][]KV
		for _, b := range before {
			want = append(want, fieldList(b))
		}
		n := len(before)
		const id = "q-2099-12-31-999999"
		if appendNew || n == 0 {
			if q.Find(id) != nil {
				return
			}
			q.Append(id, KV{"status", "open"}, KV{"answer", value}, KV{"after", "x"})
			want = append(want, []KV{{"status", "open"}, {"answer", value}, {"after", "x"}})
			n++
		} else {
			target := before[0]
			if target.Row() && !FitsCell(value) {
				return // refused: a register cell holds one line
			}
			if err := q.Set(target.QID, KV{"status", "answered"}, KV{"answer", value}, KV{"answered_by", "human"}); err != nil {
				t.Fatal(err)
			}
			blk := ParseQuestions(q.Bytes()).Blocks()[0]
			if got := blk.Value("answered_by"); got != "human" && !target.Row() { // a register keeps only its columns
				t.Fatalf("answered_by: got %q, want %q\n%s", got, "human", q.Bytes())
			}
			want[0] = fieldList(blk) // checked below by value
			if got := blk.Value("status"); got != "answered" {
				t.Fatalf("status: got %q, want %q\n%s", got, "answered", q.Bytes())
			}
		}
		again := ParseQuestions(q.Bytes())
		if got := len(again.Blocks()); got != n {
			t.Fatalf("value %q: got %d blocks, want %d\n%s", value, got, n, q.Bytes())
		}
		var edited *Block
		for i, b := range again.Blocks() {
			if !sameKVs(fieldList(b), want[i]) {
				t.Fatalf("value %q: block %d: got %q, want %q\n%s", value, i, fieldList(b), want[i], q.Bytes())
			}
			if (appendNew || len(before) == 0) && i == n-1 || !(appendNew || len(before) == 0) && i == 0 {
				edited = b
			}
		}
		if _, kept := edited.Get("answer"); !kept && edited.Row() {
			return // a register without an Answer column keeps no answer
		}
		if got := edited.Value("answer"); got != value {
			t.Fatalf("answer: got %q, want %q\n%s", got, value, q.Bytes())
		}
		// No line of the value may start at column 0.
		if strings.Contains(value, "\n") {
			for _, l := range strings.Split(string(q.Bytes()), "\n") {
				l = strings.TrimSuffix(l, "\r") // a CRLF file's line ending, not text
				if strings.HasPrefix(l, "## q-2026-01-01-00") && !bytes.Contains(data, []byte(l)) {
					t.Fatalf("forged heading %q", l)
				}
			}
		}
	})
}

// FuzzStateRoundTrip: parsing and writing state.md back gives the same
// bytes; Set changes one line; SetAwaiting then ClearAwaiting restores the
// file.
func FuzzStateRoundTrip(f *testing.F) {
	for i, file := range seedFiles(f, "state-*.md") {
		for j, v := range valueSeeds {
			f.Add(file, []string{"status", "next_action", "Active slice", "return_next_action", "qid"}[(i+j)%5], v)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, key, value string) {
		s := ParseState(data)
		if got := s.Bytes(); !bytes.Equal(got, data) {
			t.Fatalf("write back: got %q, want %q", got, data)
		}
		checkContent(t, s, data, nil)
		canon := Canon(key)
		if !stateKey.MatchString(canon) { // the engine's keys are ASCII words
			canon = "status"
		}
		value = cleanValue(value)
		cursor, awaiting, enc := entryList(s.Cursor()), entryList(s.Awaiting()), s.Encoding()
		hadAwaiting := s.Awaiting() != nil

		s.Set(canon, value)
		checkContent(t, s, s.Bytes(), data)
		again := ParseState(s.Bytes())
		if got, want := again.Encoding(), enc; got != want {
			t.Fatalf("encoding: got %s, want %s\n%s", got, want, s.Bytes())
		}
		if got, ok := again.Get(canon); !ok || got != OneLine(value) {
			t.Fatalf("Set %s=%q: got %q (present %v), want %q\n%s", canon, value, got, ok, OneLine(value), s.Bytes())
		}
		if got, want := withoutCanon(entryList(again.Cursor()), canon), withoutCanon(cursor, canon); !sameKVs(got, want) {
			t.Fatalf("other cursor entries: got %q, want %q\n%s", got, want, s.Bytes())
		}
		if got := entryList(again.Awaiting()); !sameKVs(got, awaiting) {
			t.Fatalf("awaiting: got %q, want %q\n%s", got, awaiting, s.Bytes())
		}
		if removed, added := lineDiff(data, s.Bytes()); removed > 1 || added > 4 { // at most a new table and a blank line
			t.Fatalf("Set changed %d lines and added %d:\n%q\n%q", removed, added, data, s.Bytes())
		}
		// What the edited state holds is what parsing its bytes gives, after
		// Set and after an entry added to the log.
		for _, edit := range []string{"Set", "AppendLog"} {
			if edit == "AppendLog" {
				s.AppendLog(value)
				again = ParseState(s.Bytes())
			}
			if fmt.Sprint(s.Cursor(), s.Awaiting(), s.Encoding(), s.sections, s.preambleEnd) !=
				fmt.Sprint(again.Cursor(), again.Awaiting(), again.Encoding(), again.sections, again.preambleEnd) {
				t.Fatalf("after %s, the index %+v %+v %+v, parsed again %+v %+v %+v\n%s", edit,
					s.Cursor(), s.Awaiting(), s.sections, again.Cursor(), again.Awaiting(), again.sections, s.Bytes())
			}
		}

		// SetAwaiting then ClearAwaiting, on the original file.
		s = ParseState(data)
		qid := strings.TrimSpace(OneLine(value))
		if qid == "" {
			qid = "q-2026-01-01-001"
		}
		s.SetAwaiting(KV{"question_id", qid}, KV{"question", value})
		again = ParseState(s.Bytes())
		if got := again.AwaitingQID(); got != qid {
			t.Fatalf("awaiting qid: got %q, want %q\n%s", got, qid, s.Bytes())
		}
		if got := entryList(again.Cursor()); !sameKVs(got, cursor) {
			t.Fatalf("cursor after SetAwaiting: got %q, want %q\n%s", got, cursor, s.Bytes())
		}
		s.ClearAwaiting()
		if again = ParseState(s.Bytes()); again.Awaiting() != nil {
			t.Fatalf("after ClearAwaiting: got %q, want no section\n%s", entryList(again.Awaiting()), s.Bytes())
		}
		// Bullets that follow a level-1 heading after the first section
		// become cursor keys once that section goes: the bullet form's rule
		// (keys stand before the first "## ") says so. Other files keep
		// their cursor.
		if got := entryList(again.Cursor()); !sameKVs(got, cursor) && !(hadAwaiting && levelOneAfterSection(data)) {
			t.Fatalf("cursor after ClearAwaiting: got %q, want %q\n%s", got, cursor, s.Bytes())
		}
		// A fence left open at the end is closed for the section and stays
		// closed after it goes.
		orig := ParseState(data)
		openFence := orig.d.fenceCloser(len(orig.d.lines), nil) != ""
		if !hadAwaiting && !openFence && !bytes.Equal(s.Bytes(), data) {
			t.Fatalf("SetAwaiting+ClearAwaiting: got %q, want %q", s.Bytes(), data)
		}
	})
}

func entryList(es []Entry) []KV {
	out := []KV{}
	for _, e := range es {
		out = append(out, KV{e.Canon, e.Value})
	}
	return out
}

func withoutCanon(kvs []KV, canon string) []KV {
	out := []KV{}
	dropped := false
	for _, kv := range kvs {
		if !dropped && kv.Key == canon {
			dropped = true
			continue
		}
		out = append(out, kv)
	}
	return out
}

// lineDiff counts the lines of a that b does not keep and the lines b adds,
// outside their common first and last lines.
func lineDiff(a, b []byte) (removed, added int) {
	la, lb := splitDoc(a).lines, splitDoc(b).lines
	p := 0
	// Texts only: a line ending moves when a line is added after a last
	// line without one.
	for p < len(la) && p < len(lb) && la[p].text == lb[p].text {
		p++
	}
	s := 0
	for s < len(la)-p && s < len(lb)-p && la[len(la)-1-s].text == lb[len(lb)-1-s].text {
		s++
	}
	return len(la) - p - s, len(lb) - p - s
}

// levelOneAfterSection reports whether a level-1 heading follows the first
// level-2 heading of a state.md.
func levelOneAfterSection(data []byte) bool {
	seen := false
	for _, l := range splitDoc(data).lines {
		switch headingLevel(l.text) {
		case 2:
			seen = true
		case 1:
			if seen {
				return true
			}
		}
	}
	return false
}

// checkContent checks that c writes out want and is Equal to it, and that
// it is Equal to other only when other is want.
func checkContent(t *testing.T, c Content, want, other []byte) {
	t.Helper()
	var b bytes.Buffer
	if n, err := c.WriteTo(&b); err != nil || n != int64(len(want)) || !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("WriteTo: got %q (%d, %v), want %q", b.Bytes(), n, err, want)
	}
	if !c.Equal(want) {
		t.Fatalf("Equal(%q) = false, want true", want)
	}
	if other != nil && c.Equal(other) != bytes.Equal(other, want) {
		t.Fatalf("Equal(%q) = %v, want %v", other, c.Equal(other), bytes.Equal(other, want))
	}
}
