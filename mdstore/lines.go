package mdstore

import (
	"math"
	"slices"
	"strings"
)

// line is one line of a file: its text without the line ending, and the ending
// itself ("\n", "\r\n", or "" for a last line without one). A last line
// that ends in a lone "\r" has the ending "\r": a CRLF cut short.
type line struct {
	text string
	eol  ending
	// at is where text starts in the doc's src, plus one: 0 for a line
	// that is not src's bytes there (new, or edited by setText). A run of
	// lines whose at follow on from each other, each ending as src does
	// there, is a stretch of src and is written out from it.
	at uint32
}

// ending is a line ending, kept in a byte: a file of ten thousand questions
// has close to two hundred thousand lines.
type ending uint8

const (
	noEOL ending = iota
	lf
	crlf
	cr
)

var endings = [...]string{noEOL: "", lf: "\n", crlf: "\r\n", cr: "\r"}

func (e ending) String() string { return endings[e] }

// doc is a file split into lines so that edits can replace whole lines and
// leave every other byte as it was.
//
// A lazy doc (see lazyDoc) is split only where it is edited: lines holds
// the lines of one stretch of the file, the window, and pre and post are
// the text before and after it, as read. Line indexes are the file's all
// the same; whatever needs a line outside the window splits the whole file
// first (all), so a lazy doc reads and edits as a split one does.
type doc struct {
	bom   bool
	lines []line // every line, or the window's for a lazy doc
	src   string // the text the lines were cut from (edits leave it as it is)
	nl    ending // line ending for new lines: the file's first ending, else "\n"
	// noFence is true while no line holds "```" or "~~~": there is then no
	// fenced code, and nothing needs goldmark or a per-line search.
	noFence bool

	lazy      bool
	windowed  bool   // a lazy doc's window has been cut (focus)
	win       int    // index of the window's first line in the file
	pre, post string // the text before and after the window
	postN     int    // the lines of post
}

const utf8BOM = "\ufeff"

func splitDoc(b []byte) doc { return splitString(string(b)) }

// splitString splits s; the lines share its memory.
func splitString(s string) doc { return split(s, !hasMarker(s)) }

// split is splitString for s of which it is known whether it holds a fence
// marker.
func split(s string, noFence bool) doc {
	d := doc{noFence: noFence}
	s, d.bom, d.nl = form(s)
	d.lines, d.src = cutLines(s, 0), s
	return d
}

// Form is the shape of a file's text around its lines, as every reader of
// the workspace and the merge driver take it: body is s without a UTF-8
// byte order mark (bom reports one), sharing s's memory, and nl is the
// ending new lines get: the first line's if it has a whole one ("\n" or
// "\r\n"), else "\n".
func Form(s string) (body string, bom bool, nl string) {
	body, bom, e := form(s)
	return body, bom, e.String()
}

// form is Form with the ending as a doc keeps it.
func form(s string) (body string, bom bool, nl ending) {
	if strings.HasPrefix(s, utf8BOM) {
		bom, s = true, s[len(utf8BOM):]
	}
	nl = lf
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		nl = crlf
	}
	return s, bom, nl
}

// lazyDoc is splitString without the split, for a file without fenced
// code: its lines are cut when something needs them, and an edit cuts only
// the stretch it changes (focus). A file of a thousand questions is twenty
// thousand lines, of which a resolve changes one block's.
func lazyDoc(s string) doc {
	if hasMarker(s) {
		return split(s, false)
	}
	d := doc{noFence: true, lazy: true}
	s, d.bom, d.nl = form(s)
	d.src, d.post, d.postN = s, s, lineCount(s)
	return d
}

// count is the number of lines of the file.
func (d *doc) count() int { return d.win + len(d.lines) + d.postN }

// all splits a lazy doc whole and returns its lines; a doc split already
// returns its lines.
func (d *doc) all() []line {
	if !d.lazy {
		return d.lines
	}
	head, tail := cutLines(d.pre, 0), cutLines(d.post, len(d.src)-len(d.post))
	lines := make([]line, 0, len(head)+len(d.lines)+len(tail)+64)
	d.lines = append(append(append(lines, head...), d.lines...), tail...)
	d.lazy, d.windowed, d.win, d.pre, d.post, d.postN = false, false, 0, "", "", 0
	return d.lines
}

// holds reports whether the file's lines [from, to) are in lines: all of
// them for a doc split whole, else the window's.
func (d *doc) holds(from, to int) bool {
	return !d.lazy || from >= d.win && to <= d.win+len(d.lines)
}

// focus makes the lines [from, to) of a lazy doc, whose text is
// src[off:end], its window, when it has none yet; a window elsewhere makes
// the doc split whole. It is what an edit of a block calls first.
func (d *doc) focus(from, to, off, end int) {
	switch {
	case !d.lazy || d.windowed && d.holds(from, to):
	case d.windowed || from >= to:
		d.all()
	default:
		d.lines = cutLines(d.src[off:end], off)
		d.windowed, d.win, d.pre, d.post = true, from, d.src[:off], d.src[end:]
		d.postN = d.postN - to
	}
}

// at returns the index in lines of the file's line i, splitting a lazy doc
// whole when line i is outside its window.
func (d *doc) at(i int) int {
	if !d.holds(i, i+1) {
		d.all()
	}
	return i - d.win
}

// line returns the file's line i.
func (d *doc) line(i int) line { return d.lines[d.at(i)] }

// splitLines cuts s into lines, with room for a few more (a question
// block, appended; no more than the file has, for a small one).
func splitLines(s string) []line { return cutLines(s, -1) }

// cutLines is splitLines for s that starts at offset base of a doc's src:
// its lines know where they are in src (line.at). A negative base, or a src
// too large for line.at, gives lines that do not.
func cutLines(s string, base int) []line {
	n := lineCount(s)
	lines := make([]line, n, n+min(n, 64))
	if base+len(s) >= math.MaxUint32 {
		base = -1
	}
	fillLines(lines, s, base)
	return lines
}

// lineCount is how many lines fillLines makes of s.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// fillLines cuts s into lines, into dst, which has room for exactly them.
// The lines know their offsets from base on (line.at), unless base is
// negative.
func fillLines(dst []line, s string, base int) {
	off := 0
	for k := range dst {
		text, eol, next := cut(s, off)
		dst[k] = line{text: text, eol: eol}
		if base >= 0 {
			dst[k].at = uint32(base + off + 1)
		}
		off = next
	}
}

// cut returns the line of s that starts at byte off: its text, its ending
// and the offset after it. It is the one line model of every file the
// engine reads or merges: "\n" ends a line, a "\r" before it belongs to
// the ending, and a last line that ends in a lone "\r" keeps it as its
// ending (a CRLF cut short).
func cut(s string, off int) (text string, eol ending, next int) {
	i := strings.IndexByte(s[off:], '\n')
	if i < 0 {
		if strings.HasSuffix(s, "\r") {
			return s[off : len(s)-1], cr, len(s)
		}
		return s[off:], noEOL, len(s)
	}
	text, next = s[off:off+i], off+i+1
	if strings.HasSuffix(text, "\r") {
		return text[:len(text)-1], crlf, next
	}
	return text, lf, next
}

// CutLines cuts s into lines that keep their endings, sharing s's memory,
// by the same line model (cut): the form the merge driver works in.
func CutLines(s string) []string {
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for off := 0; off < len(s); {
		_, _, next := cut(s, off)
		out = append(out, s[off:next])
		off = next
	}
	return out
}

// newLines turns texts into lines ending with the file's line ending.
func (d *doc) newLines(texts ...string) []line {
	out := make([]line, len(texts))
	for i, t := range texts {
		out[i] = line{text: t, eol: d.nl}
	}
	return out
}

// splice replaces lines [from, to) with repl. A file whose last line has no
// line ending, or a lone "\r", keeps that shape: inserting after such a line
// completes its ending ("\r" becomes "\r\n") and moves the short ending to
// the new last line, and removing the last lines moves it to the line that
// is last after them.
func (d *doc) splice(from, to int, repl []line) {
	if !d.holds(from, to) || d.lazy && len(repl) == 0 && to-from == len(d.lines) {
		d.all() // outside the window, or emptying it
	}
	from, to = from-d.win, to-d.win
	atEnd := to == len(d.lines) && d.post == ""
	var tail ending // the last line's short ending, if it has one
	short := false
	if n := len(d.lines); n > 0 && (d.lines[n-1].eol == noEOL || d.lines[n-1].eol == cr) {
		tail, short = d.lines[n-1].eol, true
	}
	if atEnd && short && from > 0 && from == len(d.lines) && len(repl) > 0 {
		d.lines[from-1].eol = d.nl
		if tail == cr {
			d.lines[from-1].eol = crlf
		}
	}
	for _, l := range repl {
		d.noFence = d.noFence && !hasMarker(l.text)
	}
	d.lines = slices.Replace(d.lines, from, to, repl...) // in place when it fits
	if atEnd && short && len(d.lines) > 0 {
		d.lines[len(d.lines)-1].eol = tail
	}
}

// setText replaces the text of line i.
func (d *doc) setText(i int, text string) {
	l := &d.lines[d.at(i)]
	l.text, l.at = text, 0
	d.noFence = d.noFence && !hasMarker(text)
}

// size is the length of the lines' text, without their endings.
func (d *doc) size() int {
	n := 0
	for _, l := range d.all() {
		n += len(l.text)
	}
	return n
}

// Line is a line of a file as every reader of the workspace cuts it (the
// one line model): its text, and its ending ("\n", "\r\n", "\r" for a last
// line cut short, "" for a last line without one).
type Line struct{ Text, EOL string }

// Lines cuts b into lines, for the files other packages keep (recovery.md),
// as questions.md and state.md are cut: a UTF-8 byte order mark is not part
// of the first line (bom reports it), and nl is the ending new lines get,
// the file's first, else "\n".
func Lines(b []byte) (lines []Line, bom bool, nl string) {
	d := splitDoc(b)
	lines = make([]Line, len(d.lines))
	for i, l := range d.lines {
		lines[i] = Line{Text: l.text, EOL: l.eol.String()}
	}
	return lines, d.bom, d.nl.String()
}
