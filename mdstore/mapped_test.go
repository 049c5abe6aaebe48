//go:build linux

package mdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// bigQuestions is a questions.md past mapMin: n engine blocks, all open.
func bigQuestions(n int) string {
	var b strings.Builder
	b.WriteString("# Questions\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n## q-2026-11-29-%03d\nstatus: open\ngate: blocking\nquestion: Which retry policy for service %d?\nsla: 15m\n", i, i)
	}
	return b.String()
}

// needMapping skips a test where files are never mapped.
func needMapping(t *testing.T) {
	t.Helper()
	if !fineTimes(t.TempDir()) {
		t.Skip("no fine-grained change times here: files are never mapped")
	}
}

// meddling is a file's new content, written out while another program
// changes a mapped file in place (meddle), as one that ignores the lock
// may: the first time only.
type meddling struct {
	Content
	done   *bool
	meddle func() error
}

func (c meddling) WriteTo(w io.Writer) (int64, error) {
	if !*c.done {
		*c.done = true
		if err := c.meddle(); err != nil {
			return 0, err
		}
	}
	return c.Content.WriteTo(w)
}

// rewrite rewrites the file at path in place: same size, other bytes.
func rewrite(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, bytes.Replace(b, []byte("service 7?"), []byte("service 8?"), 1), 0o644)
}

// lastByte keeps a byte read, so that the read is made.
var lastByte byte

// answer is a transaction that answers one question of questions.md.
func answer(id string) func(tx *Tx) (bool, error) {
	return func(tx *Tx) (bool, error) {
		b, err := tx.Read(QuestionsFile)
		if err != nil {
			return false, err
		}
		q := ParseQuestions(b)
		if err := q.Set(id, KV{"status", "answered"}, KV{"answer", "yes"}); err != nil {
			return false, err
		}
		tx.WriteContent(QuestionsFile, q)
		return tx.files[QuestionsFile].mapped, nil
	}
}

// A transaction of a Mapped workspace maps the files past mapMin and reads
// smaller ones, and writes the same bytes as one that copies them.
func TestMappedReadsWriteTheSame(t *testing.T) {
	needMapping(t)
	src := bigQuestions(2000)
	var out []string
	for _, mapped := range []bool{false, true} {
		ws := txWorkspace(t, map[string]string{QuestionsFile: src, StateFile: "# State\n"})
		ws.Mapped = mapped
		got, err := Transact(context.Background(), ws, time.Second, answer("q-2026-11-29-1000"))
		if err != nil {
			t.Fatal(err)
		}
		if got != mapped {
			t.Fatalf("Mapped %v: questions.md mapped %v", mapped, got)
		}
		small, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (bool, error) {
			_, err := tx.Read(StateFile)
			return tx.files[StateFile].mapped, err
		})
		if err != nil || small {
			t.Fatalf("a file under mapMin: mapped %v (%v)", small, err)
		}
		b, err := os.ReadFile(ws.Path(QuestionsFile))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if out[0] != out[1] {
		t.Fatal("a mapped transaction wrote other bytes than a copying one")
	}
	if !strings.Contains(out[1], "## q-2026-11-29-1000\nstatus: answered\n") {
		t.Fatal("the answer was not written")
	}
}

// A mapped file that another program cuts short in place makes the next
// read of the pages past its end fault: Catch turns that into an error of
// kind ErrBusy naming the file, in the goroutine that faulted or in the one
// that waits for it (Go), and nothing is written.
func TestMappedFileCutShort(t *testing.T) {
	needMapping(t)
	for _, where := range []string{"here", "in a goroutine"} {
		t.Run(where, func(t *testing.T) {
			src := bigQuestions(2000)
			ws := txWorkspace(t, map[string]string{QuestionsFile: src})
			ws.Mapped = true
			var inner error
			err := Catch(func() {
				_, inner = Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
					b, err := tx.Read(QuestionsFile)
					if err != nil || !tx.files[QuestionsFile].mapped {
						return 0, fmt.Errorf("not mapped: %v", err)
					}
					if err := os.Truncate(ws.Path(QuestionsFile), 0); err != nil {
						return 0, err
					}
					tx.Write(QuestionsFile, []byte("never written\n"))
					touch := func() { lastByte = b[len(b)-1] }
					if where == "here" {
						touch()
					} else {
						Go(touch)()
					}
					return 0, nil
				})
			})
			if inner != nil {
				t.Fatalf("the transaction returned %v, want a fault", inner)
			}
			if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), QuestionsFile+": cut short while it was read") {
				t.Fatalf("got %v, want ErrBusy naming %s", err, QuestionsFile)
			}
			if b, _ := os.ReadFile(ws.Path(QuestionsFile)); len(b) != 0 {
				t.Fatalf("questions.md holds %q, want it as the other program left it", b)
			}
		})
	}
}

// A mapped file rewritten in place, before the commit or while the commit
// copies it to its temporary file, is read again: the transaction runs on
// the new bytes, and the other program's change is kept.
func TestMappedFileRewrittenInPlace(t *testing.T) {
	needMapping(t)
	for _, when := range []string{"before the commit", "during the commit"} {
		t.Run(when, func(t *testing.T) {
			ws := txWorkspace(t, map[string]string{QuestionsFile: bigQuestions(2000)})
			ws.Mapped = true
			path, runs, done := ws.Path(QuestionsFile), 0, false
			_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
				runs++
				b, err := tx.Read(QuestionsFile)
				if err != nil {
					return 0, err
				}
				q := ParseQuestions(b)
				if err := q.Set("q-2026-11-29-1000", KV{"status", "answered"}); err != nil {
					return 0, err
				}
				if when == "before the commit" && runs == 1 {
					if err := rewrite(path); err != nil {
						return 0, err
					}
				}
				tx.WriteContent(QuestionsFile, meddling{q, &done, func() error { return rewrite(path) }})
				if when == "before the commit" {
					done = true
				}
				return 0, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if runs != 2 {
				t.Fatalf("the transaction ran %d times, want 2", runs)
			}
			b, _ := os.ReadFile(path)
			if !bytes.Contains(b, []byte("service 8?")) || !bytes.Contains(b, []byte("## q-2026-11-29-1000\nstatus: answered\n")) {
				t.Fatal("the result lacks the other program's change or the answer")
			}
		})
	}
}

// A mapped decisions.md takes an entry in the spare room of its last page,
// without a copy of the file (the mapping is private: the file does not
// see it), and the entry is appended to the file in place.
func TestMappedAppendInTheLastPage(t *testing.T) {
	needMapping(t)
	log := "# Decisions\n" + strings.Repeat("\n## q-2026-11-29-001 answered\nanswer: yes\n", 3000)
	log = log[:len(log)-len(log)%os.Getpagesize()] + "\n" // room for an entry in the last page
	ws := txWorkspace(t, map[string]string{DecisionsFile: log})
	ws.Mapped = true
	path := ws.Path(DecisionsFile)
	ino := inode(t, path)
	shared, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (bool, error) {
		b, err := tx.Read(DecisionsFile)
		if err != nil || !tx.files[DecisionsFile].mapped {
			return false, fmt.Errorf("not mapped: %v", err)
		}
		out := AppendRecord(b, "q-2026-11-29-002 answered", KV{"answer", "no"})
		tx.Write(DecisionsFile, out)
		return unsafe.SliceData(out) == unsafe.SliceData(b), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !shared {
		t.Error("the entry was appended to a copy of the file")
	}
	if inode(t, path) != ino {
		t.Error("decisions.md was replaced, not appended to")
	}
	want := log + "\n## q-2026-11-29-002 answered\nanswer: no\n"
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("decisions.md ends %q, want %q", b[len(b)-80:], want[len(want)-80:])
	}
}

// A mapped questions.md cut short while the commit copies it to its
// temporary file: whether the copy faults in the process (a short stretch,
// through the buffer) or in write(2) (a long one, which returns EFAULT),
// the command gets the error of kind ErrBusy that names the file, nothing
// is renamed and no temporary file is left.
func TestMappedFileCutShortWhileWritten(t *testing.T) {
	needMapping(t)
	for _, edited := range []string{"q-2026-11-29-001", "q-2026-11-29-1000"} {
		t.Run(edited, func(t *testing.T) {
			ws := txWorkspace(t, map[string]string{QuestionsFile: bigQuestions(2000)})
			ws.Mapped = true
			var inner error
			done := false
			err := Catch(func() {
				_, inner = Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
					b, err := tx.Read(QuestionsFile)
					if err != nil || !tx.files[QuestionsFile].mapped {
						return 0, fmt.Errorf("not mapped: %v", err)
					}
					q := ParseQuestions(b)
					if err := q.Set(edited, KV{"status", "answered"}); err != nil {
						return 0, err
					}
					tx.WriteContent(QuestionsFile, meddling{q, &done, func() error { return os.Truncate(ws.Path(QuestionsFile), 0) }})
					return 0, nil
				})
			})
			if err == nil {
				err = inner
			}
			if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), QuestionsFile+": cut short while it was read") {
				t.Fatalf("got %v, want ErrBusy naming %s", err, QuestionsFile)
			}
			entries, _ := os.ReadDir(ws.Dir)
			for _, e := range entries {
				if e.Name() != QuestionsFile && e.Name() != LockFile {
					t.Errorf("left behind: %s", e.Name())
				}
			}
			if b, _ := os.ReadFile(ws.Path(QuestionsFile)); len(b) != 0 {
				t.Errorf("questions.md holds %d bytes, want it as the other program left it", len(b))
			}
		})
	}
}

// A mapped decisions.md is checked again once the temporary files are
// written, as the files kept as lines are: cut short by another program
// while questions.md (copied) was written out, it makes the transaction
// run again, before anything is renamed, on what is left of it.
func TestMappedDecisionsCheckedAgain(t *testing.T) {
	needMapping(t)
	log := "# Decisions\n" + strings.Repeat("\n## q-2026-11-29-001 answered\nanswer: yes\n", 3000)
	log = log[:len(log)-len(log)%os.Getpagesize()] + "\n"
	ws := txWorkspace(t, map[string]string{DecisionsFile: log, QuestionsFile: "# Questions\n\n## q-2026-11-29-002\nstatus: open\n"})
	ws.Mapped = true
	runs, done := 0, false
	_, err := Transact(context.Background(), ws, time.Second, func(tx *Tx) (int, error) {
		runs++
		qb, err := tx.Read(QuestionsFile)
		if err != nil {
			return 0, err
		}
		db, err := tx.Read(DecisionsFile)
		if err != nil {
			return 0, err
		}
		q := ParseQuestions(qb)
		if err := q.Set("q-2026-11-29-002", KV{"status", "answered"}); err != nil {
			return 0, err
		}
		tx.WriteContent(QuestionsFile, meddling{q, &done, func() error { return os.Truncate(ws.Path(DecisionsFile), 4096) }})
		tx.Write(DecisionsFile, AppendRecord(db, "q-2026-11-29-002 answered", KV{"answer", "no"}))
		return 0, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 {
		t.Fatalf("the transaction ran %d times, want 2", runs)
	}
	qb, _ := os.ReadFile(ws.Path(QuestionsFile))
	db, _ := os.ReadFile(ws.Path(DecisionsFile))
	if !strings.Contains(string(qb), "status: answered") || !strings.HasPrefix(string(db), log[:4096]) ||
		!strings.HasSuffix(string(db), "## q-2026-11-29-002 answered\nanswer: no") { // cut mid-line: no final newline, as left
		t.Fatalf("questions.md %q; decisions.md of %d bytes ending %q", qb, len(db), db[max(0, len(db)-60):])
	}
}
