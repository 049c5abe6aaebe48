package recovery

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const now = "2026-11-29T14:02:11Z"

func TestFingerprint(t *testing.T) {
	// Values from: printf '%s\0%s\0%s' "$command" "$exit" "$line" | sha256sum | cut -c1-12
	for _, tc := range []struct {
		command string
		exit    int
		line    string
		want    string
	}{
		{"devrites-engine state resolve q-2026-11-29-001 1", 5, "devrites-engine: state resolve: q-2026-11-29-001 is not open", "3f88575ca813"},
		{"make test", 2, "FAIL: TestX", "09b7aa18d132"},
		{"x", 0, "", "d7b3082b8861"},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.command, tc.exit), func(t *testing.T) {
			if got := Fingerprint(tc.command, tc.exit, tc.line); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	// The separator keeps the fields apart: moving a byte across it changes the name.
	if Fingerprint("ab", 1, "c") == Fingerprint("a", 1, "bc") {
		t.Error("fields are not separated")
	}
}

// TestLadder walks one fingerprint from direct to parked: three corrections
// without progress spend each level, progress resets the level's count.
func TestLadder(t *testing.T) {
	steps := []struct {
		progress bool
		action   Action
		level    string
		attempts int
		state    string
	}{
		{false, Retry, Direct, 1, Open},
		{true, Retry, Direct, 0, Open},
		{false, Retry, Direct, 1, Open},
		{false, Retry, Direct, 2, Open},
		{false, EscalateTo(SharedRootCause), SharedRootCause, 0, Open},
		{false, Retry, SharedRootCause, 1, Open},
		{false, Retry, SharedRootCause, 2, Open},
		{true, Retry, SharedRootCause, 0, Open},
		{false, Retry, SharedRootCause, 1, Open},
		{false, Retry, SharedRootCause, 2, Open},
		{false, EscalateTo(DiagnosticAmplification), DiagnosticAmplification, 0, Open},
		{false, Retry, DiagnosticAmplification, 1, Open},
		{false, Retry, DiagnosticAmplification, 2, Open},
		{false, EscalateTo(BoundaryRedesign), BoundaryRedesign, 0, Open},
		{false, Retry, BoundaryRedesign, 1, Open},
		{false, Retry, BoundaryRedesign, 2, Open},
		{false, ParkedNow, BoundaryRedesign, 3, Parked},
		{true, ParkedNow, BoundaryRedesign, 3, Parked},
		{false, ParkedNow, BoundaryRedesign, 3, Parked},
	}
	l, _ := Parse(nil)
	const fp = "0123456789ab"
	for i, s := range steps {
		e, act, err := l.Record(fp, s.progress, "", now)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if act != s.action || e.Level != s.level || e.Attempts != s.attempts || e.State != s.state {
			t.Fatalf("step %d (progress %v): got %s %s/%d/%s, want %s %s/%d/%s", i+1, s.progress,
				act, e.Level, e.Attempts, e.State, s.action, s.level, s.attempts, s.state)
		}
	}
	if e, _ := l.Get(fp); e.Total != 17 {
		t.Errorf("total: got %d, want 17 (a parked entry counts nothing)", e.Total)
	}
	// Reopen goes back to direct, keeping the total.
	e, changed, err := l.Reopen(fp, now)
	if err != nil || !changed || e.Level != Direct || e.Attempts != 0 || e.State != Open || e.Total != 17 {
		t.Fatalf("reopen: got %+v, %v, %v", e, changed, err)
	}
	if _, changed, _ := l.Reopen(fp, now); changed {
		t.Error("reopening an open entry changed it")
	}
	if _, _, err := l.Reopen("ffffffffffff", now); !errors.Is(err, ErrUnknown) {
		t.Errorf("reopen unknown: got %v, want ErrUnknown", err)
	}
}

func TestResolverFailed(t *testing.T) {
	l, _ := Parse(nil)
	const fp = "3f88575ca813"
	for i, want := range []Action{Retry, StoppedNow, StoppedNow} {
		e, act, err := l.ResolverFailed(fp, "note", now)
		if err != nil || act != want || e.Attempts != i+1 {
			t.Fatalf("failure %d: got %s, %+v, %v; want %s", i+1, act, e, err, want)
		}
	}
	if e, _ := l.Get(fp); e.State != Stopped || e.Level != Resolver {
		t.Fatalf("got %+v, want a stopped resolver entry", e)
	}
	if _, _, err := l.Record(fp, false, "", now); !errors.Is(err, ErrKind) {
		t.Errorf("record on a resolver entry: got %v, want ErrKind", err)
	}
	if got := l.ReopenAll(now); len(got) != 1 || got[0].State != Open || got[0].Attempts != 0 {
		t.Fatalf("reopen all: got %+v", got)
	}
	if _, act, _ := l.ResolverFailed(fp, "", now); act != Retry {
		t.Errorf("after reopen: got %s, want retry", act)
	}
	l.Record("0123456789ab", false, "", now)
	if _, _, err := l.ResolverFailed("0123456789ab", "", now); !errors.Is(err, ErrKind) {
		t.Errorf("resolver failure on a ladder entry: got %v, want ErrKind", err)
	}
}

const sample = "# Recovery\r\n\r\nkept text\r\n\r\n" +
	"| fingerprint | level | attempts | total | state | updated_at | note |\r\n" +
	"| --- | --- | --- | --- | --- | --- | --- |\r\n" +
	"| 0123456789ab | shared-root-cause | 1 | 4 | open | 2026-11-28T10:00:00Z | a \\| b |\r\n" +
	"| 3f88575ca813 | resolver | 2 | 2 | stopped | 2026-11-28T10:00:00Z |  |\r\n" +
	"\r\ntrailing text, no newline"

func TestParseRoundTrip(t *testing.T) {
	for _, in := range []string{"", sample, "# Recovery\n", "| fingerprint | level | attempts | total | state | updated_at | note |\n| --- | --- | --- | --- | --- | --- | --- |"} {
		l, probs := Parse([]byte(in))
		if len(probs) > 0 {
			t.Fatalf("%q: %v", in, probs)
		}
		if got := string(l.Bytes()); got != in {
			t.Errorf("round trip: got %q, want %q", got, in)
		}
	}
	l, _ := Parse([]byte(sample))
	es := l.Entries()
	if len(es) != 2 || es[0].Note != "a | b" || es[0].Line != 7 || es[1].State != Stopped {
		t.Fatalf("entries: %+v", es)
	}
}

// TestEdits: an edit replaces or adds one row, in the file's line ending,
// and keeps every other byte.
func TestEdits(t *testing.T) {
	l, _ := Parse([]byte(sample))
	l.Record("0123456789ab", true, "x | y", now)
	l.Record("aaaaaaaaaaaa", false, "", now)
	want := strings.Replace(sample, "| 0123456789ab | shared-root-cause | 1 | 4 | open | 2026-11-28T10:00:00Z | a \\| b |",
		"| 0123456789ab | shared-root-cause | 0 | 5 | open | "+now+" | x \\| y |", 1)
	want = strings.Replace(want, "|  |\r\n\r\n", "|  |\r\n| aaaaaaaaaaaa | direct | 1 | 1 | open | "+now+" |  |\r\n\r\n", 1)
	if got := string(l.Bytes()); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	again, probs := Parse(l.Bytes())
	if len(probs) > 0 || len(again.Entries()) != 3 || again.Entries()[2].Line != 9 {
		t.Fatalf("re-parse: %v %+v", probs, again.Entries())
	}
	if e, _ := l.Get("aaaaaaaaaaaa"); e.Line != 9 {
		t.Errorf("line of the new row: got %d, want 9", e.Line)
	}

	// A file without a table gets one at its end; an empty file gets a title too.
	for _, tc := range []struct{ in, want string }{
		{"", strings.Join(intro, "\n") + "\n" + headerRow() + "\n" + separatorRow() + "\n| aaaaaaaaaaaa | direct | 1 | 1 | open | " + now + " |  |\n"},
		{"# Notes\nno newline", "# Notes\nno newline\n\n" + headerRow() + "\n" + separatorRow() + "\n| aaaaaaaaaaaa | direct | 1 | 1 | open | " + now + " |  |\n"},
	} {
		l, _ := Parse([]byte(tc.in))
		e, _, _ := l.Record("aaaaaaaaaaaa", false, "", now)
		if got := string(l.Bytes()); got != tc.want {
			t.Errorf("%q: got:\n%s\nwant:\n%s", tc.in, got, tc.want)
		}
		if n := strings.Count(tc.want, "\n"); e.Line != n {
			t.Errorf("%q: line %d, want %d", tc.in, e.Line, n)
		}
	}
}

func TestParseProblems(t *testing.T) {
	head := headerRow() + "\n" + separatorRow() + "\n"
	row := func(cells ...string) string { return "| " + strings.Join(cells, " | ") + " |\n" }
	for _, tc := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"header", "| fingerprint | level |\n", 1, "the table header is not"},
		{"separator", headerRow() + "\n| x |\n", 2, "the line under the header is not"},
		{"cells", head + "| 0123456789ab | direct |\n", 3, "2 cells, want 7"},
		{"fingerprint", head + row("0123456789AB", "direct", "0", "0", "open", now, ""), 3, `fingerprint "0123456789AB" is not 12 lower-case hex digits`},
		{"level", head + row("0123456789ab", "retry-harder", "0", "0", "open", now, ""), 3, `level "retry-harder" is not one of`},
		{"attempts", head + row("0123456789ab", "direct", "-1", "0", "open", now, ""), 3, `attempts "-1" is not a whole number`},
		{"huge", head + row("0123456789ab", "direct", "0", "99999999999999999999", "open", now, ""), 3, `total "99999999999999999999" is not a whole number`},
		{"over", head + row("0123456789ab", "direct", "4", "4", "open", now, ""), 3, "attempts 4 is more than 3"},
		{"state", head + row("0123456789ab", "direct", "0", "0", "stopped", now, ""), 3, `state "stopped" is not open or parked`},
		{"resolver-state", head + row("0123456789ab", "resolver", "0", "0", "parked", now, ""), 3, `state "parked" is not open or stopped`},
		{"time", head + row("0123456789ab", "direct", "0", "0", "open", "yesterday", ""), 3, `updated_at "yesterday" is not a time`},
		{"duplicate", head + row("0123456789ab", "direct", "0", "0", "open", now, "") + row("0123456789ab", "direct", "1", "1", "open", now, ""), 4, "fingerprint 0123456789ab is also on line 3"},
		{"utf8", "# R\n\xff\n", 2, "not valid UTF-8"},
		{"nul", "# R\x00\n", 1, "binary content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := Parse([]byte(tc.in))
			if len(probs) == 0 {
				t.Fatalf("no problem, want line %d: %s", tc.line, tc.want)
			}
			if p := probs[0]; p.Line != tc.line || !strings.Contains(p.Text, tc.want) {
				t.Errorf("got line %d: %s; want line %d: %s", p.Line, p.Text, tc.line, tc.want)
			}
		})
	}
}

// FuzzLedger: parsing and writing back gives the same bytes; a correction
// recorded in a readable ledger changes one row (or adds one) and the
// result reads back with the entry as recorded.
func FuzzLedger(f *testing.F) {
	f.Add([]byte(sample), "0123456789ab", false, "n")
	f.Add([]byte(""), "aaaaaaaaaaaa", true, "")
	f.Add([]byte("# x\n| a |\n"), "aaaaaaaaaaaa", true, "|\\")
	f.Fuzz(func(t *testing.T, data []byte, fp string, progress bool, note string) {
		l, probs := Parse(data)
		if got := l.Bytes(); string(got) != string(data) {
			t.Fatalf("round trip: got %q, want %q", got, data)
		}
		if len(probs) > 0 || !ValidFingerprint(fp) || strings.ContainsAny(note, "\r\n\x00") || !utf8Valid(note) {
			return
		}
		before := len(l.Entries())
		e, _, err := l.Record(fp, progress, note, now)
		if err != nil {
			return
		}
		again, probs := Parse(l.Bytes())
		if len(probs) > 0 {
			t.Fatalf("after record: %v\n%q", probs, l.Bytes())
		}
		got, ok := again.Get(fp)
		if !ok || got != e {
			t.Fatalf("read back %+v, want %+v", got, e)
		}
		if n := len(again.Entries()); n != before && n != before+1 {
			t.Fatalf("%d entries, had %d", n, before)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
