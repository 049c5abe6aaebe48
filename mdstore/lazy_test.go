package mdstore

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// splitQuestions is ParseQuestions with the file split into lines from the
// start: the reading a lazy doc must agree with.
func splitQuestions(b []byte) *Questions {
	q := &Questions{d: splitString(unsafe.String(unsafe.SliceData(b), len(b)))}
	q.index()
	return q
}

// lazySeeds are files that take each path of a lazy doc: engine blocks,
// CRLF, a BOM, no final newline, '#' in text, level-1 headings, headings
// that are not column 0, duplicate and unsorted qids, a named block and a
// register (which a lazy doc reads from lines), values on several lines.
var lazySeeds = []string{
	"# Questions\n\n## q-2026-11-29-001\nstatus: open\ngate: blocking\nsla: 15m\n",
	"# Questions\r\n\r\n## q-2026-11-29-001\r\nstatus: answered\r\nanswer: |\r\n  two\r\n  lines\r\n\r\n## q-2026-11-29-002\r\nstatus: open\r\n",
	"\ufeff## Q-001 validating\nstatus: open\n#not a heading\n ## not column 0\n## q-3\nstatus: open",
	"## q-2026-11-29-002\nstatus: open\n\n## q-2026-11-29-001\nstatus: open\n\n## q-2026-11-29-002\nstatus: dropped\nanswer: dup\n",
	"# A\n## Notes\ntext # with a hash\n# B\n## q-2026-11-29-010\nstatus: open\noptions: |\n  1. One\n  2. Two\n\n   \nsla: 4h\n#\n##\n",
	"## seal-important-accept\nstatus: open\ngate: blocking\n\n## q-2026-11-29-001\nstatus: open\n",
	"## Question register\n\n| Question ID | Status | Answer |\n| --- | --- | --- |\n| Q-001 | open | |\n\n## q-2026-11-29-001\nstatus: open\n",
	"## q-2026-11-29-001\nstatus: open\nquestion: plain\n  continued\n\tand tabbed\nanswer:\n  older form\r",
	"## q-2026-11-29-001\nstatus: open\n\n\n",
	"",
	"## q-2026-11-29-999\nstatus: open\n## q-2026-11-29-1000\nstatus: open\n## q-2026-11-29-999\nstatus: open\n",
	"## Q-013\nstatus: open\nanswer:\n\n## Question register\n\n| Question ID | Status | Answer |\n| --- | --- | --- |\n| Q-013 | open | |\n",
	"# Decisions\n\n## q-2026-11-29-001 answered\nanswer: |-\n  see\n  ## q-2026-11-29-999999 was the old one\n  ```sh\n## q-2026-11-29-002\nstatus: open\n",
}

// FuzzLazyAgreesWithSplit: a lazy doc reads every block, field and
// heading as the same file split into lines does, and each edit (Set on
// one block or two, Append, then Set) gives the same bytes and blocks.
func FuzzLazyAgreesWithSplit(f *testing.F) {
	for i, s := range lazySeeds {
		for j, v := range valueSeeds[:6] {
			f.Add([]byte(s), uint8(i+j), uint8(j), []string{"status", "answer", "new_field", "sla"}[j%4], v)
		}
	}
	for i, file := range seedFiles(f, "questions-*.md") {
		f.Add(file, uint8(i), uint8(i), "answer", "yes")
	}
	f.Fuzz(func(t *testing.T, data []byte, pick, mode uint8, key, value string) {
		key, value = fieldKey(key), cleanValue(value)
		lazy, split := ParseQuestions(data), splitQuestions(data)
		if got := lazy.Bytes(); !bytes.Equal(got, data) {
			t.Fatalf("write back: got %q, want %q", got, data)
		}
		checkContent(t, lazy, data, nil)
		sameBlocks(t, "as read", lazy, split, true)
		blocks := split.Blocks()
		edit := func(q *Questions) (string, []byte) {
			if len(blocks) == 0 {
				q.Append("q-2099-12-31-001", KV{"status", "open"}, KV{key, value})
				return "", q.Bytes()
			}
			first := blocks[int(pick)%len(blocks)].QID
			var errs []string
			set := func(id string) {
				if err := q.Set(id, KV{key, value}, KV{"status", "answered"}); err != nil {
					errs = append(errs, err.Error())
				}
			}
			switch mode % 4 {
			case 0:
				set(first)
			case 1:
				set(first)
				set(blocks[(int(pick)+1)%len(blocks)].QID)
			case 2:
				q.Append("q-2099-12-31-001", KV{"status", "open"}, KV{key, value})
				set(first)
			case 3:
				q.Append("q-2099-12-31-001", KV{"status", "open"}, KV{key, value})
				q.Append("q-2099-12-31-002", KV{"status", "open"})
			}
			return strings.Join(errs, "; "), q.Bytes()
		}
		lerr, lout := edit(lazy)
		serr, sout := edit(split)
		if lerr != serr || !bytes.Equal(lout, sout) {
			t.Fatalf("edit %d: lazy gave %q (errors %q), split gave %q (errors %q)", mode%4, lout, lerr, sout, serr)
		}
		checkContent(t, lazy, lout, data)
		sameBlocks(t, "after the edit", lazy, split, false)
	})
}

// sameBlocks compares the blocks, fields and headings of a lazy and a split
// reading of one file. peek: Peek and Holds before the fields are read,
// which reads a lazy doc's text.
func sameBlocks(t *testing.T, when string, lazy, split *Questions, peek bool) {
	t.Helper()
	lb, sb := lazy.Blocks(), split.Blocks()
	if len(lb) != len(sb) {
		t.Fatalf("%s: %d blocks lazily, %d split", when, len(lb), len(sb))
	}
	for i := range sb {
		l, s := lb[i], sb[i]
		describe := func(b *Block) string {
			return fmt.Sprintf("%s lines %d-%d label %q nth %d row %v", b.QID, b.Line(), b.End(), b.Label(), b.nth, b.Row())
		}
		if describe(l) != describe(s) {
			t.Fatalf("%s: block %d: lazily %s, split %s", when, i, describe(l), describe(s))
		}
		if peek {
			lv, lf := l.Peek("status", "gate", "sla", "options")
			sv, sf := s.Peek("status", "gate", "sla", "options")
			if lv != sv || lf != sf {
				t.Fatalf("%s: %s: Peek lazily %q %v, split %q %v", when, s.QID, lv, lf, sv, sf)
			}
			for _, kv := range []KV{{"status", "open"}, {"answer", "yes"}, {"options", "1. One\n2. Two"}} {
				if lh, sh := l.Holds(kv.Key, kv.Value), s.Holds(kv.Key, kv.Value); lh != sh {
					t.Fatalf("%s: %s: Holds(%q, %q) lazily %v, split %v", when, s.QID, kv.Key, kv.Value, lh, sh)
				}
			}
		}
		lf, sf := l.Fields(), s.Fields()
		if fmt.Sprint(lf) != fmt.Sprint(sf) {
			t.Fatalf("%s: %s: fields lazily %+v, split %+v", when, s.QID, lf, sf)
		}
	}
	if lh, sh := fmt.Sprint(lazy.Headings()), fmt.Sprint(split.Headings()); lh != sh {
		t.Fatalf("%s: headings lazily %s, split %s", when, lh, sh)
	}
}

// TestLazyDocStaysLazy: reading every block's fields and a resolve's edit
// leave all but the edited block's lines uncut, and the text before and
// after it is written as it was read.
func TestLazyDocStaysLazy(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Questions\n")
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, "\n## q-2026-11-29-%03d\nstatus: open\ngate: blocking\noptions: |\n  1. One\n  2. Two\nsla: 15m\n", i)
	}
	data := []byte(b.String())
	q := ParseQuestions(data)
	for _, blk := range q.Blocks() {
		if v, ok := blk.Peek("status", "sla"); !ok[0] || v[1] != "15m" {
			t.Fatalf("%s: Peek got %q %v", blk.QID, v, ok)
		}
		if got := len(parseOptionsForTest(blk.Value("options"))); got != 2 {
			t.Fatalf("%s: %d options", blk.QID, got)
		}
	}
	if !q.d.lazy || q.d.windowed || len(q.d.lines) != 0 {
		t.Fatalf("reading cut the doc: lazy %v, windowed %v, %d lines", q.d.lazy, q.d.windowed, len(q.d.lines))
	}
	if err := q.Set("q-2026-11-29-100", KV{"status", "answered"}, KV{"answer", "yes"}); err != nil {
		t.Fatal(err)
	}
	if !q.d.lazy || len(q.d.lines) > 10 {
		t.Fatalf("Set cut more than its block: lazy %v, %d lines in the window", q.d.lazy, len(q.d.lines))
	}
	var w writeCounter
	if _, err := q.WriteTo(&w); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(data), "## q-2026-11-29-100\nstatus: open\n", "## q-2026-11-29-100\nstatus: answered\n", 1)
	want = strings.Replace(want, "sla: 15m\n\n## q-2026-11-29-101", "sla: 15m\nanswer: yes\n\n## q-2026-11-29-101", 1)
	if got := w.b.String(); got != want {
		t.Fatalf("written:\n%s\nwant:\n%s", got, want)
	}
	if w.writes != 3 {
		t.Fatalf("%d writes, want 3: the text before the block, the block, the text after it", w.writes)
	}
}

type writeCounter struct {
	b      bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.b.Write(p)
}

// parseOptionsForTest splits an options value into its lines.
func parseOptionsForTest(v string) []string { return strings.Split(strings.TrimSpace(v), "\n") }
