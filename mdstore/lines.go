package mdstore

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// line is one line of a file: its text without the line ending, and the ending
// itself ("\n", "\r\n", or "" for a last line without one). A last line
// that ends in a lone "\r" has the ending "\r": a CRLF cut short.
type line struct {
	text string
	eol  ending
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
	d := doc{nl: lf, noFence: noFence}
	if strings.HasPrefix(s, utf8BOM) {
		d.bom = true
		s = s[len(utf8BOM):]
	}
	d.lines, d.src = splitLines(s), s
	if len(d.lines) > 0 && (d.lines[0].eol == lf || d.lines[0].eol == crlf) {
		d.nl = d.lines[0].eol // the first line's ending, if it has a whole one
	}
	return d
}

// lazyDoc is splitString without the split, for a file without fenced
// code: its lines are cut when something needs them, and an edit cuts only
// the stretch it changes (focus). A file of a thousand questions is twenty
// thousand lines, of which a resolve changes one block's.
func lazyDoc(s string) doc {
	if hasMarker(s) {
		return split(s, false)
	}
	d := doc{nl: lf, noFence: true, lazy: true}
	if strings.HasPrefix(s, utf8BOM) {
		d.bom = true
		s = s[len(utf8BOM):]
	}
	d.src, d.post, d.postN = s, s, lineCount(s)
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		d.nl = crlf
	}
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
	head, tail := splitLines(d.pre), splitLines(d.post)
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
		d.lines = splitLines(d.src[off:end])
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

// parallelSplit is the size from which splitLines shares the work between
// two goroutines: a file of 10,000 questions is 5 MB.
const parallelSplit = 1 << 20

// splitLines cuts s into lines, with room for a few more (a question
// block, appended; no more than the file has, for a small one). From
// parallelSplit bytes on, the second half (from a line start near the
// middle) is cut by a goroutine of its own, into its part of the same
// slice.
func splitLines(s string) []line {
	i := -1
	if len(s) >= parallelSplit {
		i = strings.IndexByte(s[len(s)/2:], '\n')
	}
	if i < 0 {
		n := lineCount(s)
		lines := make([]line, n, n+min(n, 64))
		fillLines(lines, s)
		return lines
	}
	head, tail := s[:len(s)/2+i+1], s[len(s)/2+i+1:]
	var n2 int
	counted := Go(func() { n2 = lineCount(tail) })
	n1 := lineCount(head)
	counted()
	n := n1 + n2
	lines := make([]line, n, n+64)
	filled := Go(func() { fillLines(lines[n1:], tail) })
	fillLines(lines[:n1], head)
	filled()
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
// A last line that ends in a lone "\r" keeps it as its ending.
func fillLines(dst []line, s string) {
	for k := range dst {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			dst[k] = line{text: s}
			if strings.HasSuffix(s, "\r") {
				dst[k] = line{text: s[:len(s)-1], eol: cr}
			}
			return
		}
		l := line{text: s[:i], eol: lf}
		if strings.HasSuffix(l.text, "\r") {
			l.text, l.eol = l.text[:len(l.text)-1], crlf
		}
		dst[k] = l
		s = s[i+1:]
	}
}

// byteLen is the length of what bytes returns.
func (d *doc) byteLen() int {
	n := len(d.pre) + len(d.post)
	if d.bom {
		n += len(utf8BOM)
	}
	for _, l := range d.lines {
		n += len(l.text) + len(l.eol.String())
	}
	return n
}

func (d *doc) bytes() []byte {
	var b bytes.Buffer
	b.Grow(d.byteLen())
	_, _ = d.writeTo(&b) // a bytes.Buffer takes every write
	return b.Bytes()
}

// writeTo writes the bytes that bytes returns, without building them
// whole. A run of lines that is still a stretch of the text they were cut
// from (unedited) goes out straight from it, in one piece, as do a lazy
// doc's text before and after its window; other lines are gathered in
// pieces of up to 16 KB.
func (d *doc) writeTo(w io.Writer) (int64, error) {
	buf := make([]byte, 0, min(d.byteLen()-len(d.pre)-len(d.post), 16<<10))
	var n int64
	write := func(p []byte) error {
		if len(p) == 0 {
			return nil
		}
		k, err := w.Write(p)
		n += int64(k)
		return err
	}
	put := func(parts ...string) error { // through the buffer
		size := 0
		for _, p := range parts {
			size += len(p)
		}
		if len(buf)+size > cap(buf) {
			if err := write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		for _, p := range parts {
			buf = append(buf, p...) // a piece longer than the buffer grows it
		}
		return nil
	}
	out := func(run string) error { // a long run straight, after what the buffer holds
		if len(run) < 4<<10 {
			return put(run)
		}
		if err := write(buf); err != nil {
			return err
		}
		buf = buf[:0]
		return write(unsafe.Slice(unsafe.StringData(run), len(run)))
	}
	if d.bom {
		buf = append(buf, utf8BOM...)
	}
	if err := out(d.pre); err != nil {
		return n, err
	}
	for i := 0; i < len(d.lines); {
		j, run := d.unedited(i)
		var err error
		if j > i {
			err = out(run)
		} else {
			l := d.lines[i]
			err, j = put(l.text, l.eol.String()), i+1
		}
		if err != nil {
			return n, err
		}
		i = j
	}
	if err := out(d.post); err != nil {
		return n, err
	}
	return n, write(buf)
}

// unedited returns the run of lines from i that are, byte for byte, a
// stretch of src: the index after its last line, and the stretch. A line
// with text is in the run when its text is the very memory of src where
// the run has come to (lines are cut from src sharing its memory, an edit
// makes new strings); an empty line, when its ending is src's there. The
// run is empty when line i has no text in src.
func (d *doc) unedited(i int) (int, string) {
	l := d.lines[i]
	if l.text == "" || d.src == "" {
		return i, ""
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(d.src)))
	p := uintptr(unsafe.Pointer(unsafe.StringData(l.text)))
	if p < base || p >= base+uintptr(len(d.src)) {
		return i, ""
	}
	start := int(p - base)
	at, j := start, i
	for ; j < len(d.lines); j++ {
		l := d.lines[j]
		if l.text != "" && (uintptr(unsafe.Pointer(unsafe.StringData(l.text))) != base+uintptr(at) || at+len(l.text) > len(d.src)) {
			break
		}
		eol := l.eol.String()
		if !strings.HasPrefix(d.src[at+len(l.text):], eol) {
			break
		}
		at += len(l.text) + len(eol)
	}
	return j, d.src[start:at]
}

// equal reports whether bytes would return b.
func (d *doc) equal(b []byte) bool {
	if d.byteLen() != len(b) {
		return false // an edit that changes the size: no byte need be compared
	}
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if d.bom {
		var ok bool
		if s, ok = strings.CutPrefix(s, utf8BOM); !ok {
			return false
		}
	}
	s, ok := strings.CutPrefix(s, d.pre)
	if !ok {
		return false
	}
	for _, l := range d.lines {
		eol := l.eol.String()
		if !strings.HasPrefix(s, l.text) || !strings.HasPrefix(s[len(l.text):], eol) {
			return false
		}
		s = s[len(l.text)+len(eol):]
	}
	return s == d.post
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

// headingLevel returns the level (1 to 6) of a line that is a heading, or 0.
// It is the one heading rule of every file the engine reads or merges
// (state.md, questions.md, decisions.md; the engine, doctor, the merge
// driver and qid allocation alike): "#" to "######" at column 0, then a
// blank or the end of the line. The callers pass only lines outside fenced
// code that are not a field's value. An indented line is never a heading:
// values are written indented by four spaces, so no text a person or an
// agent wrote can become one, and a value written by an older version (two
// spaces) cannot either. Setext headings are not recognised: a "---" line
// under a field would otherwise turn the field into a heading.
func headingLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if rest := s[n:]; rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0
	}
	return n
}

// headingTitle returns the text of an ATX heading without its marks.
func headingTitle(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "#")
	s = strings.TrimSpace(s)
	return strings.TrimSpace(strings.TrimRight(s, "#"))
}

// fenced reports, for each line, whether it is content of a fenced code block,
// by CommonMark's rules as goldmark implements them. Lines marked opaque are
// blanked before parsing: they hold field values, which are data and can never
// open or close a fence.
func (d *doc) fenced(opaque []bool) []bool {
	mask := make([]bool, len(d.all()))
	if !d.hasFenceMarker(len(d.lines), opaque) {
		return mask // the common case: no goldmark, no copy of the file
	}
	var src bytes.Buffer
	src.Grow(d.size() + len(d.lines))
	starts := make([]int, len(d.lines))
	for i, l := range d.lines {
		starts[i] = src.Len()
		if opaque != nil && opaque[i] {
			src.WriteByte('\n')
			continue
		}
		src.WriteString(l.text)
		src.WriteByte('\n')
	}
	source := src.Bytes()
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	)
	root := p.Parse(text.NewReader(source))
	lineAt := func(off int) int {
		lo, hi := 0, len(starts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if starts[mid] <= off {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if fc, ok := n.(*ast.FencedCodeBlock); ok {
			segs := fc.Lines()
			for i := 0; i < segs.Len(); i++ {
				mask[lineAt(segs.At(i).Start)] = true
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return mask
}

var fenceOpening = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^ {0,3}(`{3,}|~{3,})") })

// fenceCloser returns the line that closes a fenced code block still open
// at line index at, or "" when a column-0 line inserted there would not be
// inside fenced code. Only a fence outside any list or quote can be open
// there: a column-0 line ends those, and the fences in them. Lines marked
// opaque are hidden from the fence finder, as in fenced.
func (d *doc) fenceCloser(at int, opaque []bool) string {
	if !d.hasFenceMarker(at, opaque) {
		return ""
	}
	d.all()
	probe := doc{lines: append(append(make([]line, 0, at+1), d.lines[:at]...), line{text: "x"})}
	var op []bool
	if opaque != nil {
		op = append(append(make([]bool, 0, at+1), opaque[:at]...), false)
	}
	mask := probe.fenced(op)
	if !mask[at] {
		return ""
	}
	// Every line between the opening fence and at is the block's content.
	for i := at - 1; i >= 0; i-- {
		if mask[i] {
			continue
		}
		if m := fenceOpening().FindStringSubmatch(d.lines[i].text); m != nil {
			return m[1]
		}
		break
	}
	return ""
}

// hasFenceMarker reports whether any of the first n lines that are not
// opaque holds "```" or "~~~": without one there is no fenced code.
func (d *doc) hasFenceMarker(n int, opaque []bool) bool {
	if d.noFence {
		return false
	}
	for i, l := range d.all()[:n] {
		if opaque != nil && opaque[i] {
			continue
		}
		if hasMarker(l.text) {
			return true
		}
	}
	return false
}

func hasMarker(s string) bool { return strings.Contains(s, "```") || strings.Contains(s, "~~~") }

// setText replaces the text of line i.
func (d *doc) setText(i int, text string) {
	d.lines[d.at(i)].text = text
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
