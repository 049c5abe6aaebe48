package mdstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// A decision that fits in the page where decisions.md ends is appended in
// place (same inode); one that would cross into the next page, or a change
// that is not an append, replaces the file by rename. The bytes are the
// same either way.
func TestDecisionsAppend(t *testing.T) {
	page := os.Getpagesize()
	entry := "\n## q-2026-11-29-002 answered\nanswer: yes\n"
	for _, tc := range []struct {
		name, before, after string
		inPlace             bool
	}{
		{"fits", "# Decisions\n", "# Decisions\n" + entry, true},
		{"fills the page", strings.Repeat("x", page-len(entry)), strings.Repeat("x", page-len(entry)) + entry, true},
		{"crosses a page", strings.Repeat("x", page-len(entry)+1), strings.Repeat("x", page-len(entry)+1) + entry, false},
		{"starts a page", strings.Repeat("x", page), strings.Repeat("x", page) + entry, true},
		{"not an append", "# Decisions\nold\n", "# Decisions\nnew\n" + entry, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := txWorkspace(t, map[string]string{DecisionsFile: tc.before})
			path := ws.Path(DecisionsFile)
			ino := inode(t, path)
			_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
				if _, err := tx.Read(DecisionsFile); err != nil {
					return 0, err
				}
				tx.Write(DecisionsFile, []byte(tc.after))
				return 0, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.after {
				t.Errorf("got %q, want %q", got, tc.after)
			}
			if same := inode(t, path) == ino; same != tc.inPlace {
				t.Errorf("appended in place: got %v, want %v", same, tc.inPlace)
			}
		})
	}
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
func TestDecisionHeadings(t *testing.T) {
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
		if got := DecisionHeadings([]byte(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
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

// A decision that cannot be appended in place (the file cannot be opened
// for writing, or is not the one read) is left to the rename, which needs
// only the directory: appendInPage says it did nothing, without an error.
func TestAppendInPageLeavesItToTheRename(t *testing.T) {
	dir := t.TempDir()
	orig, data := []byte("# Decisions\n"), []byte("# Decisions\n\n## q-1 answered\n")
	if done, err := appendInPage(filepath.Join(dir, "missing.md"), orig, data); done || err != nil {
		t.Errorf("missing file: got %v, %v; want false, nil", done, err)
	}
	other := filepath.Join(dir, "other.md")
	if err := os.WriteFile(other, []byte("# Decisions, edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if done, err := appendInPage(other, orig, data); done || err != nil {
		t.Errorf("another size: got %v, %v; want false, nil", done, err)
	}
	if b, _ := os.ReadFile(other); string(b) != "# Decisions, edited\n" {
		t.Errorf("another size: the file became %q", b)
	}
}

// splitLines cuts a large text in two halves on two goroutines and gives
// the lines one pass gives, whatever the endings and wherever the middle
// falls.
func TestSplitLinesInHalves(t *testing.T) {
	for _, tail := range []string{"", "last", "last\r", "\r\n", "\n\n"} {
		for _, nl := range []string{"\n", "\r\n"} {
			var b strings.Builder
			for i := 0; b.Len() < parallelSplit+1000; i++ {
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

// A gate that fails stops the commit before anything is seen written: the
// files keep their bytes and no temporary file is left, whether the gate
// is waited for after a temporary file was written, before an append, or
// at the end of a commit that writes nothing, and whether its check ends
// before the commit comes to it or after. One that passes lets every
// write through.
func TestGate(t *testing.T) {
	refused := fmt.Errorf("refused")
	files := map[string]string{QuestionsFile: "# Questions\n", StateFile: "# State\n", DecisionsFile: "# Decisions\n"}
	for _, tc := range []struct {
		name  string
		write func(tx *Tx)
	}{
		{"questions.md as lines", func(tx *Tx) {
			tx.WriteContent(QuestionsFile, ParseQuestions([]byte("# Questions\n\n## q-2026-11-29-001\nstatus: open\n")))
		}},
		{"state.md as bytes", func(tx *Tx) { tx.Write(StateFile, []byte("# State\nnew\n")) }},
		{"an append to decisions.md", func(tx *Tx) { tx.Write(DecisionsFile, []byte("# Decisions\n\n## q-2026-11-29-001 answered\n")) }},
		{"nothing", func(tx *Tx) {}},
	} {
		for _, pass := range []bool{false, true} {
			for _, late := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s, passes %v, late %v", tc.name, pass, late), func(t *testing.T) {
					ws := txWorkspace(t, files)
					_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
						for name := range files {
							if _, err := tx.Read(name); err != nil {
								return 0, err
							}
						}
						check := make(chan error, 1)
						send := func() {
							if pass {
								check <- nil
							} else {
								check <- refused
							}
						}
						if late {
							time.AfterFunc(20*time.Millisecond, send)
						} else {
							send()
						}
						tx.Gate(check)
						tc.write(tx)
						return 0, nil
					})
					if pass != (err == nil) || !pass && err != refused {
						t.Fatalf("got error %v", err)
					}
					entries, _ := os.ReadDir(ws.Dir)
					changed := 0
					for _, e := range entries {
						b, _ := os.ReadFile(filepath.Join(ws.Dir, e.Name()))
						want, known := files[e.Name()]
						switch {
						case !known && e.Name() != LockFile:
							t.Errorf("left behind: %s", e.Name())
						case known && string(b) != want:
							changed++
						}
					}
					if want := map[bool]int{false: 0, true: 1}[pass && tc.name != "nothing"]; changed != want {
						t.Errorf("%d files changed, want %d", changed, want)
					}
				})
			}
		}
	}
}

// A decision appended in place does not end the commit: a file written in
// the same transaction after decisions.md is written too.
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
