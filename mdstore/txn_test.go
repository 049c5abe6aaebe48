package mdstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func txWorkspace(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Workspace{Dir: dir}
}

// A writer that ignores the lock and changes a file between the read and
// the write, even to the same size, makes the transaction run again on
// what it wrote; one that only touches the file, or writes the same bytes,
// does not.
func TestTransactSeesWriterIgnoringLock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(path string) error
		runs   int
	}{
		{"same size", func(p string) error { return os.WriteFile(p, []byte("# Questions\nB\n"), 0o644) }, 2},
		{"longer", func(p string) error { return os.WriteFile(p, []byte("# Questions\nA\nB\n"), 0o644) }, 2},
		{"replaced", func(p string) error {
			if err := os.WriteFile(p+".new", []byte("# Questions\nC\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(p+".new", p)
		}, 2},
		{"touched", func(p string) error { now := time.Now().Add(time.Second); return os.Chtimes(p, now, now) }, 1},
		{"same bytes", func(p string) error { return os.WriteFile(p, []byte("# Questions\nA\n"), 0o644) }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := txWorkspace(t, map[string]string{QuestionsFile: "# Questions\nA\n"})
			path := ws.Path(QuestionsFile)
			runs := 0
			_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
				runs++
				b, err := tx.Read(QuestionsFile)
				if err != nil {
					return 0, err
				}
				if runs == 1 {
					if err := tc.change(path); err != nil {
						t.Fatal(err)
					}
				}
				tx.Write(QuestionsFile, append(bytes.Clone(b), "edited\n"...))
				return 0, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if runs != tc.runs {
				t.Errorf("got %d runs, want %d", runs, tc.runs)
			}
			got, _ := os.ReadFile(path)
			if !strings.HasSuffix(string(got), "\nedited\n") || strings.Count(string(got), "edited") != 1 {
				t.Errorf("got %q, want the writer's content and one edit", got)
			}
		})
	}
}

// An appended block extends the index in place; the index is the one a
// fresh parse of the new bytes gives, for every fixture, an id the file
// already has included.
func TestAppendIndexesAsParse(t *testing.T) {
	for name, b := range fixtures(t, "questions-*.md") {
		for _, id := range []string{"q-2026-11-30-001", "q-2026-11-29-001", "Q-001"} {
			q := ParseQuestions(bytes.Clone(b))
			q.Blocks()
			q.Append(id, KV{"status", "open"}, KV{"options", "1. a\n2. b\n"})
			got, want := q.Blocks(), ParseQuestions(q.Bytes()).Blocks()
			if len(got) != len(want) {
				t.Fatalf("%s + %s: got %d blocks, want %d", name, id, len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.QID != w.QID || g.Line() != w.Line() || g.End() != w.End() || g.nth != w.nth || !slices.Equal(fieldList(g), fieldList(w)) {
					t.Errorf("%s + %s: block %d: got %s %d-%d #%d %v, want %s %d-%d #%d %v", name, id, i,
						g.QID, g.Line(), g.End(), g.nth, fieldList(g), w.QID, w.Line(), w.End(), w.nth, fieldList(w))
				}
			}
		}
	}
}

// decisions.md's entries start at column-0 level-2 headings outside fenced
// code; a field's value is data, whatever its lines hold, with or without a
// fence elsewhere in the file.
func TestDecisionEntries(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"# Decisions\n\n## q-2026-11-29-001 answered\nanswer: a\n\n## DEC-004 Use Go\n", []string{"q-2026-11-29-001 answered", "DEC-004 Use Go"}},
		{"\ufeff## first\r\n### not\r\n## second\r\n", []string{"first", "second"}},
		{"## a\n#### b\n  ## c\n ## d\n##e\n## f", []string{"a", "f"}},
		{"", nil},
		{"## q-2026-11-29-001 answered\nanswer: |-\n  see\n  ## q-2026-11-29-999999 was the old one\n    ```sh\n  more\nanswered_by: human\n\n## q-2026-11-29-002 answered\nanswer: b\n",
			[]string{"q-2026-11-29-001 answered", "q-2026-11-29-002 answered"}},
		{"## q-2026-11-29-001 answered\nanswer: |-\n  ```sh\n## q-2026-11-29-002 answered\n```\n## inside\n```\n## q-2026-11-29-003 answered\n",
			[]string{"q-2026-11-29-001 answered", "q-2026-11-29-002 answered", "q-2026-11-29-003 answered"}},
	} {
		if got := decisionTitles([]byte(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// decisionTitles is the titles of DecisionEntries, in file order.
func decisionTitles(b []byte) []string {
	var out []string
	for _, e := range DecisionEntries(b) {
		out = append(out, e.Title)
	}
	return out
}

// AppendRecord gives the same bytes whether or not b has room after it, and
// leaves b's own bytes as they were.
func TestAppendRecordInPlace(t *testing.T) {
	for _, in := range []string{
		"# Decisions\n", "# Decisions\n\n## q-1 answered\nanswer: a\n", "# Decisions\r\n\r\n## x\r\nanswer: b", "# D\n\n",
		"\ufeff# D\n", "# D\n```\nopen fence\n", "# D\nlast line without newline", "",
	} {
		want := string(AppendRecord([]byte(in), "q-2026-11-29-002 answered", KV{"answer", "yes"}))
		b := append(make([]byte, 0, len(in)+4096), in...)
		got := string(AppendRecord(b, "q-2026-11-29-002 answered", KV{"answer", "yes"}))
		if got != want {
			t.Errorf("%q: with room got %q, want %q", in, got, want)
		}
		if string(b) != in {
			t.Errorf("%q: b became %q", in, b)
		}
	}
}

// HasDecision finds an entry by its title, outside fenced code only.
func TestHasDecision(t *testing.T) {
	for _, tc := range []struct {
		in, title string
		want      bool
	}{
		{"# Decisions\n\n## q-2026-11-29-001 answered\n", "q-2026-11-29-001 answered", true},
		{"# Decisions\n\n## q-2026-11-29-001 answered\n", "q-2026-11-29-001 dropped", false},
		{"# D\n```\n## q-2026-11-29-001 answered\n```\n", "q-2026-11-29-001 answered", false},
		{"# D\n```\nx\n```\n\n## q-2026-11-29-001 answered\r\n", "q-2026-11-29-001 answered", true},
		{"\ufeff## first", "first", true},
	} {
		if got := HasDecision([]byte(tc.in), tc.title); got != tc.want {
			t.Errorf("HasDecision(%q, %q) = %v, want %v", tc.in, tc.title, got, tc.want)
		}
	}
}

// splitLines gives the lines strings.Cut finds, whatever the endings and
// however the file ends.
func TestSplitLines(t *testing.T) {
	for _, tail := range []string{"", "last", "last\r", "\r\n", "\n\n"} {
		for _, nl := range []string{"\n", "\r\n"} {
			var b strings.Builder
			for i := 0; b.Len() < 64<<10; i++ {
				fmt.Fprintf(&b, "line %d%s", i, nl)
				if i%7 == 0 {
					b.WriteString(nl) // a blank line
				}
			}
			b.WriteString(tail)
			s := b.String()
			var want []line
			for rest := s; rest != ""; {
				l, r, found := strings.Cut(rest, "\n")
				switch {
				case found && strings.HasSuffix(l, "\r"):
					want = append(want, line{text: l[:len(l)-1], eol: crlf})
				case found:
					want = append(want, line{text: l, eol: lf})
				case strings.HasSuffix(l, "\r"):
					want = append(want, line{text: l[:len(l)-1], eol: cr})
				default:
					want = append(want, line{text: l})
				}
				rest = r
			}
			if got := splitLines(s); !slices.Equal(got, want) {
				t.Errorf("tail %q, endings %q: got %d lines, want %d (or different ones)", tail, nl, len(got), len(want))
			}
		}
	}
}

// A decision appended to decisions.md does not end the commit: a file
// written in the same transaction after decisions.md is written too.
func TestAppendThenAnotherFile(t *testing.T) {
	ws := txWorkspace(t, map[string]string{DecisionsFile: "# Decisions\n"})
	_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
		b, err := tx.Read(DecisionsFile)
		if err != nil {
			return 0, err
		}
		tx.Write(DecisionsFile, append(b, "\n## q-2026-11-29-001 answered\nanswer: yes\n"...))
		tx.Write("ledger.md", []byte("# Ledger\n"))
		return 0, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(ws.Path("ledger.md")); err != nil || string(b) != "# Ledger\n" {
		t.Fatalf("the other file: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(ws.Path(DecisionsFile)); !strings.HasSuffix(string(b), "answer: yes\n") {
		t.Fatalf("decisions.md: %q", b)
	}
}
