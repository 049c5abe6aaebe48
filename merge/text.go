package merge

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Files are handled as lines that keep their endings, so that what the merge
// does not change keeps its bytes (CRLF, a missing final newline).

const utf8BOM = "\ufeff"

// text is a file split into lines; each line carries its ending ("\n",
// "\r\n", or "" for a last line without one).
type text struct {
	bom   bool
	lines []string
	nl    string // the ending new lines get: the file's first, else "\n"
}

// splitText cuts b into lines, in mdstore's line model (Form, CutLines).
// The lines share b's memory (no copy of a file of megabytes is made): b
// must not change afterwards.
func splitText(b []byte) text {
	s, bom, nl := mdstore.Form(view(b))
	return text{bom: bom, lines: mdstore.CutLines(s), nl: nl}
}

// view is b as a string that shares b's memory: b must not change while
// the string is in use.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// splitLines cuts s into lines that keep their endings; they share s.
func splitLines(s string) []string { return mdstore.CutLines(s) }

// lastLine is the last of the lines s holds.
func lastLine(s string) string {
	return s[strings.LastIndexByte(strings.TrimSuffix(s, "\n"), '\n')+1:]
}

// body is a line without its ending.
func body(l string) string {
	l = strings.TrimSuffix(l, "\n")
	return strings.TrimSuffix(l, "\r")
}

func hasEOL(l string) bool { return strings.HasSuffix(l, "\n") }

// withEOL gives every line the ending nl, keeping a last line without one
// as it is.
func withEOL(lines []string, nl string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if hasEOL(l) {
			l = body(l) + nl
		}
		out[i] = l
	}
	return out
}

func isBlankLine(l string) bool { return strings.TrimSpace(l) == "" }

// trimBlankTail drops the blank lines at the end of lines.
func trimBlankTail(lines []string) []string {
	for len(lines) > 0 && isBlankLine(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// normalized is the digest of lines' text with LF endings and no trailing
// blank lines or trailing white space: two spellings of the same content
// have one.
func normalized(lines []string) [16]byte {
	h, line := sha256.New(), []byte(nil)
	for _, l := range trimBlankTail(lines) {
		line = append(append(line[:0], strings.TrimRight(body(l), " \t")...), '\n')
		h.Write(line)
	}
	return [16]byte(h.Sum(nil))
}

// readable refuses input that no parser of the engine reads cleanly.
func readable(name string, b []byte) error {
	if mdstore.InvalidUTF8Line(b) > 0 {
		return mdstore.Errorf(mdstore.ErrMalformed, "%s: not valid UTF-8", name)
	}
	if line := mdstore.NULLine(b); line > 0 {
		return mdstore.Errorf(mdstore.ErrMalformed, "%s: binary content (a NUL byte on line %d)", name, line)
	}
	return nil
}

// Conflict markers, as git writes them with its default marker size.
const (
	markOurs   = "<<<<<<< ours"
	markSep    = "======="
	markTheirs = ">>>>>>> theirs"
)

// piece is one stretch of the result: the same lines on both sides when it
// merged cleanly, else what ours and theirs would have there; or, on both
// sides, a stretch of ours' bytes copied as they are (copied).
type piece struct {
	ours, theirs []string
	copied       *span
}

func clean(lines []string) piece { return piece{ours: lines, theirs: lines} }

func (p piece) conflicted() bool {
	if len(p.ours) != len(p.theirs) {
		return true
	}
	for i := range p.ours {
		if p.ours[i] != p.theirs[i] {
			return true
		}
	}
	return false
}

// render joins the pieces. Where a piece conflicts, the lines both sides
// share at its start and end are written once and the rest between
// conflict markers. ours and theirs are the files each side's version of
// every conflict would give, for checking. Without a conflict the three
// are one slice: the file of megabytes is written once. The pieces copied
// from ours are read from c (nil when there are none); a failure to read
// them is c's err.
func render(bom bool, nl string, pieces []piece, c *copier) (merged, ours, theirs []byte) {
	if !slices.ContainsFunc(pieces, piece.conflicted) {
		var m bytes.Buffer
		m.Grow(len(utf8BOM) + linesSize(pieces, func(p piece) []string { return p.ours }))
		if bom {
			m.WriteString(utf8BOM)
		}
		for _, p := range pieces {
			if p.copied != nil {
				c.copyTo(&m, *p.copied)
			}
			for _, l := range p.ours {
				m.WriteString(l)
			}
		}
		return m.Bytes(), m.Bytes(), m.Bytes()
	}
	var m, o, t bytes.Buffer
	o.Grow(len(utf8BOM) + linesSize(pieces, func(p piece) []string { return p.ours }))
	t.Grow(len(utf8BOM) + linesSize(pieces, func(p piece) []string { return p.theirs }))
	m.Grow(o.Cap()) // and the conflicts' markers and other side, if any
	if bom {
		m.WriteString(utf8BOM)
		o.WriteString(utf8BOM)
		t.WriteString(utf8BOM)
	}
	lastEOL := true
	write := func(b *bytes.Buffer, lines []string) {
		for _, l := range lines {
			b.WriteString(l)
		}
	}
	for _, p := range pieces {
		if p.copied != nil {
			n := o.Len()
			c.copyTo(&o, *p.copied)
			t.Write(o.Bytes()[n:])
			m.Write(o.Bytes()[n:])
			lastEOL = o.Len() == n || bytes.HasSuffix(o.Bytes(), []byte("\n"))
		}
		write(&o, p.ours)
		write(&t, p.theirs)
		if !p.conflicted() {
			write(&m, p.ours)
			if len(p.ours) > 0 {
				lastEOL = hasEOL(p.ours[len(p.ours)-1])
			}
			continue
		}
		pre := 0
		for pre < len(p.ours) && pre < len(p.theirs) && p.ours[pre] == p.theirs[pre] {
			pre++
		}
		suf := 0
		for suf < len(p.ours)-pre && suf < len(p.theirs)-pre && p.ours[len(p.ours)-1-suf] == p.theirs[len(p.theirs)-1-suf] {
			suf++
		}
		write(&m, p.ours[:pre])
		if pre > 0 {
			lastEOL = hasEOL(p.ours[pre-1])
		}
		if !lastEOL {
			m.WriteString(nl)
		}
		side := func(lines []string) {
			write(&m, lines)
			if len(lines) > 0 && !hasEOL(lines[len(lines)-1]) {
				m.WriteString(nl)
			}
		}
		m.WriteString(markOurs + nl)
		side(p.ours[pre : len(p.ours)-suf])
		m.WriteString(markSep + nl)
		side(p.theirs[pre : len(p.theirs)-suf])
		m.WriteString(markTheirs + nl)
		lastEOL = true
		write(&m, p.ours[len(p.ours)-suf:])
		if suf > 0 {
			lastEOL = hasEOL(p.ours[len(p.ours)-1])
		}
	}
	return m.Bytes(), o.Bytes(), t.Bytes()
}

// linesSize is the size of one side of the pieces.
func linesSize(pieces []piece, side func(piece) []string) (n int) {
	for _, p := range pieces {
		if p.copied != nil {
			n += int(p.copied.to - p.copied.from)
		}
		for _, l := range side(p) {
			n += len(l)
		}
	}
	return n
}

// Markers returns a whole-file conflict: ours, then theirs, between conflict
// markers, with the base in the diff3 style. It is the answer when nothing
// better can be said about three versions of a file.
func Markers(base, ours, theirs []byte) []byte {
	var b bytes.Buffer
	side := func(mark string, data []byte) {
		b.WriteString(mark)
		b.WriteByte('\n')
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	side(markOurs, ours)
	side("||||||| base", base)
	side(markSep, theirs)
	b.WriteString(markTheirs + "\n")
	return b.Bytes()
}

// mapIDs replaces every question id in s that m renames.
func mapIDs(s string, m map[string]string) string {
	if len(m) == 0 {
		return s
	}
	return qid.Map(s, func(id string) string {
		if to, ok := m[id]; ok {
			return to
		}
		return id
	})
}

// describe shortens a value for a one-line message.
func describe(v string) string {
	v = strings.Join(strings.Fields(v), " ")
	if r := []rune(v); len(r) > 40 {
		v = string(r[:39]) + "…"
	}
	return fmt.Sprintf("%q", v)
}
