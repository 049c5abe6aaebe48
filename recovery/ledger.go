package recovery

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/mdstore"
)

// File is the ledger's name in the feature directory.
const File = mdstore.RecoveryFile

// Levels: the correction ladder in order, and resolver for failures of the
// resolver command.
const (
	Direct                  = "direct"
	SharedRootCause         = "shared-root-cause"
	DiagnosticAmplification = "diagnostic-amplification"
	BoundaryRedesign        = "boundary-redesign"
	Resolver                = "resolver"
)

// Ladder is the order in which spent levels escalate.
var Ladder = []string{Direct, SharedRootCause, DiagnosticAmplification, BoundaryRedesign}

// States of an entry.
const (
	Open    = "open"
	Parked  = "parked"
	Stopped = "stopped"
)

// Spend is how many corrections without progress spend a level.
const Spend = 3

// maxCount bounds attempts and total in a file: larger numbers are a
// problem, never an overflow.
const maxCount = 999999

// Errors of ledger edits. The caller words the message.
var (
	ErrUnknown = errors.New("unknown fingerprint")
	ErrKind    = errors.New("fingerprint of the other kind")
)

// columns is the ledger's table header.
var columns = []string{"fingerprint", "level", "attempts", "total", "state", "updated_at", "note"}

// Entry is one row of the ledger.
type Entry struct {
	Fingerprint string `json:"fingerprint"`
	Level       string `json:"level"`
	Attempts    int    `json:"attempts"` // no-progress corrections at Level (resolver: failures)
	Total       int    `json:"total"`    // every correction or failure recorded
	State       string `json:"state"`
	UpdatedAt   string `json:"updated_at"`
	Note        string `json:"note"`
	Line        int    `json:"line,omitempty"` // in recovery.md; 0 until written
}

// Problem is a line of recovery.md that cannot be read.
type Problem struct {
	Line int
	Text string
}

// Ledger is recovery.md as lines, with the rows of its table.
type Ledger struct {
	bom    bool
	lines  []mdstore.Line
	nl     string
	header int // index of the header line, -1 when there is no table
	end    int // index after the last row
	byFP   map[string]*Entry
	order  []*Entry
}

const utf8BOM = "\ufeff"

// Parse reads recovery.md; a missing file is an empty b. It reports every
// line it cannot read; a ledger with problems must not be written.
func Parse(b []byte) (*Ledger, []Problem) {
	l := &Ledger{header: -1, byFP: map[string]*Entry{}}
	l.lines, l.bom, l.nl = mdstore.Lines(b)
	var probs []Problem
	for i, ln := range l.lines {
		if !utf8.ValidString(ln.Text) {
			probs = append(probs, Problem{i + 1, "not valid UTF-8"})
		}
		if strings.IndexByte(ln.Text, 0) >= 0 {
			probs = append(probs, Problem{i + 1, "binary content (a NUL byte)"})
		}
	}
	if n := mdstore.ConflictLine(b); n > 0 {
		probs = append(probs, Problem{n, "unresolved merge conflict"})
	}
	for i, ln := range l.lines {
		if !mdstore.IsRow(ln.Text) {
			continue
		}
		cells := mdstore.RowCells(ln.Text)
		if len(cells) == 0 || !strings.EqualFold(cells[0], "fingerprint") {
			continue
		}
		l.header = i
		if !sameColumns(cells) {
			probs = append(probs, Problem{i + 1, "the table header is not " + headerRow()})
			return l, probs
		}
		if i+1 >= len(l.lines) || !isSeparator(l.lines[i+1].Text) {
			probs = append(probs, Problem{i + 2, "the line under the header is not " + separatorRow()})
			return l, probs
		}
		l.end = i + 2
		for j := i + 2; j < len(l.lines) && mdstore.IsRow(l.lines[j].Text); j++ {
			e, msg := parseRow(l.lines[j].Text)
			if msg == "" {
				if prev, dup := l.byFP[e.Fingerprint]; dup {
					msg = fmt.Sprintf("fingerprint %s is also on line %d", e.Fingerprint, prev.Line)
				}
			}
			if msg != "" {
				probs = append(probs, Problem{j + 1, msg})
			} else {
				e.Line = j + 1
				l.byFP[e.Fingerprint] = &e
				l.order = append(l.order, &e)
			}
			l.end = j + 1
		}
		break
	}
	return l, probs
}

func headerRow() string { return "| " + strings.Join(columns, " | ") + " |" }
func separatorRow() string {
	return strings.TrimSuffix(strings.Repeat("| --- ", len(columns)), " ") + " |"
}

func sameColumns(cells []string) bool {
	if len(cells) != len(columns) {
		return false
	}
	for i, c := range cells {
		if !strings.EqualFold(c, columns[i]) {
			return false
		}
	}
	return true
}

var separatorCell = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^:?-{3,}:?$`) })

func isSeparator(t string) bool {
	if !mdstore.IsRow(t) {
		return false
	}
	cells := mdstore.RowCells(t)
	if len(cells) != len(columns) {
		return false
	}
	for _, c := range cells {
		if !separatorCell().MatchString(c) {
			return false
		}
	}
	return true
}

var fingerprintRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{12}$`) })

// ValidFingerprint reports whether s is 12 lower-case hex digits.
func ValidFingerprint(s string) bool { return fingerprintRE().MatchString(s) }

// parseRow reads a data row, or says what is wrong with it.
func parseRow(t string) (Entry, string) {
	cells := mdstore.RowCells(t)
	if len(cells) != len(columns) {
		return Entry{}, fmt.Sprintf("%d cells, want %d (%s)", len(cells), len(columns), strings.Join(columns, ", "))
	}
	e := Entry{Fingerprint: cells[0], Level: cells[1], State: cells[4], UpdatedAt: cells[5], Note: mdstore.UnescapeCell(cells[6])}
	if !ValidFingerprint(e.Fingerprint) {
		return e, fmt.Sprintf("fingerprint %q is not 12 lower-case hex digits", e.Fingerprint)
	}
	resolver := e.Level == Resolver
	if !resolver && ladderIndex(e.Level) < 0 {
		return e, fmt.Sprintf("%s: level %q is not one of %s, %s", e.Fingerprint, e.Level, strings.Join(Ladder, ", "), Resolver)
	}
	for _, c := range []struct {
		name string
		text string
		dst  *int
	}{{"attempts", cells[2], &e.Attempts}, {"total", cells[3], &e.Total}} {
		n, err := strconv.Atoi(c.text)
		if err != nil || n < 0 || n > maxCount || strings.TrimLeft(c.text, "0123456789") != "" {
			return e, fmt.Sprintf("%s: %s %q is not a whole number from 0 to %d", e.Fingerprint, c.name, c.text, maxCount)
		}
		*c.dst = n
	}
	switch {
	case !resolver && e.State != Open && e.State != Parked:
		return e, fmt.Sprintf("%s: state %q is not open or parked", e.Fingerprint, e.State)
	case resolver && e.State != Open && e.State != Stopped:
		return e, fmt.Sprintf("%s: state %q is not open or stopped (a resolver failure)", e.Fingerprint, e.State)
	case !resolver && e.Attempts > Spend:
		return e, fmt.Sprintf("%s: attempts %d is more than %d", e.Fingerprint, e.Attempts, Spend)
	}
	if _, err := time.Parse(time.RFC3339, e.UpdatedAt); err != nil {
		return e, fmt.Sprintf("%s: updated_at %q is not a time such as 2026-11-29T14:02:11Z", e.Fingerprint, e.UpdatedAt)
	}
	return e, ""
}

func ladderIndex(level string) int {
	for i, l := range Ladder {
		if l == level {
			return i
		}
	}
	return -1
}

func renderRow(e Entry) string {
	return "| " + strings.Join([]string{e.Fingerprint, e.Level, strconv.Itoa(e.Attempts), strconv.Itoa(e.Total),
		e.State, e.UpdatedAt, mdstore.EscapeCell(e.Note)}, " | ") + " |"
}

// Entries returns the rows in file order.
func (l *Ledger) Entries() []Entry {
	out := make([]Entry, 0, len(l.order))
	for _, e := range l.order {
		out = append(out, *e)
	}
	return out
}

// Get returns the entry of a fingerprint.
func (l *Ledger) Get(fp string) (Entry, bool) {
	e, ok := l.byFP[fp]
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// intro is what a new recovery.md starts with, above the table.
var intro = []string{
	"# Recovery",
	"",
	"Attempts to correct each failure, by fingerprint. Three corrections without progress spend a level:",
	"direct → shared-root-cause → diagnostic-amplification → boundary-redesign → parked.",
	"",
}

// put writes e's row: in place when the fingerprint has one, else after the
// last row, adding the table (and, to an empty file, a title) when there is
// none.
func (l *Ledger) put(e Entry) Entry {
	e.Note = strings.Join(strings.Fields(e.Note), " ")
	if old, ok := l.byFP[e.Fingerprint]; ok {
		e.Line = old.Line
		l.lines[e.Line-1].Text = renderRow(e)
		*old = e
		return e
	}
	at, table := l.end, l.header < 0
	var add []string
	if table {
		at = len(l.lines)
		if at == 0 {
			add = append(add, intro...)
		} else if strings.TrimSpace(l.lines[at-1].Text) != "" {
			add = append(add, "")
		}
		add = append(add, headerRow(), separatorRow())
	}
	add = append(add, renderRow(e))
	l.insert(at, add)
	if table {
		l.header = at + len(add) - 3
	}
	l.end = at + len(add)
	e.Line = l.end
	p := e
	l.byFP[e.Fingerprint] = &p
	l.order = append(l.order, &p)
	return e
}

// insert puts texts before line index at. Lines after it move down, so the
// entries below are renumbered. A last line with no ending, or with a
// lone "\r" (which ends a line only at the end of the file), gets a whole
// ending when lines are added after it, as in mdstore's splice; unlike
// splice, which keeps a file's short last ending on its new last line,
// every line the ledger adds ends whole: the ledger is the engine's own
// file, and an entry appended later needs no repair of the one before.
func (l *Ledger) insert(at int, texts []string) {
	if at > 0 && at == len(l.lines) {
		switch l.lines[at-1].EOL {
		case "":
			l.lines[at-1].EOL = l.nl
		case "\r":
			l.lines[at-1].EOL = "\r\n"
		}
	}
	add := make([]mdstore.Line, len(texts))
	for i, t := range texts {
		add[i] = mdstore.Line{Text: t, EOL: l.nl}
	}
	l.lines = append(l.lines[:at], append(add, l.lines[at:]...)...)
	for _, e := range l.order {
		if e.Line > at {
			e.Line += len(texts)
		}
	}
}

// Bytes is the ledger as recovery.md holds it.
func (l *Ledger) Bytes() []byte {
	var b strings.Builder
	if l.bom {
		b.WriteString(utf8BOM)
	}
	for _, ln := range l.lines {
		b.WriteString(ln.Text)
		b.WriteString(ln.EOL)
	}
	return []byte(b.String())
}
