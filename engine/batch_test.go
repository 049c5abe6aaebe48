package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

func TestParseBatchReportsEveryBadLine(t *testing.T) {
	in := "# answers\nq-2026-11-29-001: 1\nno colon here\n--frob q-2026-11-29-002: x\n\nq-2026-11-29-003 also none\n--drop q-2026-11-29-004: ok\n"
	_, err := engine.ParseBatch(in)
	if !errors.Is(err, engine.ErrBadArgs) {
		t.Fatalf("got %v, want %v", err, engine.ErrBadArgs)
	}
	if got, want := err.Error(), "batch line 3: no ':' after the qid (and 2 more bad lines)"; got != want {
		t.Errorf("message: got %q, want %q", got, want)
	}
	hints := strings.Join(mdstore.Hints(err), "\n")
	for _, want := range []string{"also batch line 4: unknown flag", "also batch line 6: no ':' after the qid", "nothing was applied"} {
		if !strings.Contains(hints, want) {
			t.Errorf("hints %q lack %q", hints, want)
		}
	}
}

func TestParseBatch(t *testing.T) {
	got, err := engine.ParseBatch("q-1: yes: really\r\n--drop q-2:  gone \n--reject q-3: redo\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Resolution{
		{QID: "q-1", Kind: question.StatusAnswered, Text: "yes: really", Line: 1},
		{QID: "q-2", Kind: question.StatusDropped, Text: "gone", Line: 2},
		{QID: "q-3", Kind: question.StatusRejected, Text: "redo", Line: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// FuzzParseBatch: a batch either parses into entries that name their line
// and carry no line break, or fails as bad arguments; it never panics.
func FuzzParseBatch(f *testing.F) {
	for _, s := range []string{"q-2026-11-29-001: 1\n", "--drop q: x\n--reject q: y", "# c\n\n", "x", "q:\r\n", "--drop"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := engine.ParseBatch(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadArgs) {
				t.Fatalf("ParseBatch(%q): %v, want bad arguments", s, err)
			}
			return
		}
		if len(items) == 0 {
			t.Fatalf("ParseBatch(%q): no entries and no error", s)
		}
		for _, it := range items {
			if it.Line < 1 || strings.ContainsAny(it.QID+it.Text, "\n") {
				t.Fatalf("ParseBatch(%q): bad entry %+v", s, it)
			}
		}
	})
}

// A batch read once keeps its bad lines: IDs names the entries that parse,
// for finding the workspace, and ResolveBatch reports the bad lines with
// the problems the questions have, applying nothing.
func TestReadBatchKeepsBadLines(t *testing.T) {
	e := newEngine(t)
	id := pausedQuestion(t, e, engine.RaiseRequest{})
	b, err := engine.ReadBatch(id + ": 1\nno colon here\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := b.IDs(); len(got) != 1 || got[0] != id {
		t.Fatalf("IDs: got %q, want [%s]", got, id)
	}
	_, err = e.ResolveBatch(context.Background(), b, "")
	if got, want := fmt.Sprint(err), "batch line 2: no ':' after the qid"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	q, err := e.Get(id)
	if err != nil || q.Status != question.StatusOpen {
		t.Fatalf("got %v, %v; want the question still open", q.Status, err)
	}
}
