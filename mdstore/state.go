package mdstore

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unsafe"
)

// Encoding names the forms of state.md.
const (
	Table   = "table"   // "## Cursor" with a Key | Value table (DevRites v3+, init)
	Bullets = "bullets" // schema 2 and hand-written: "- Status: …" lines
	// Rows is the form DevRites' migrate leaves: "| key | value |" rows
	// without a header row or a "## Cursor" heading, among bullets, before
	// the first "## " heading.
	Rows = "rows"
)

// State is a parsed state.md.
type State struct {
	d        doc
	encoding string
	sections []section
	cursor   []Entry
	awaiting []Entry
	// preambleEnd is the first "## " heading: bullet-form keys stand above it.
	preambleEnd int
}

type section struct {
	norm      string // normalized title
	head, end int    // heading line; first line after the section
}

// Entry is one key and value of the cursor or the awaiting section.
type Entry struct {
	Key   string // as written
	Canon string // canonical key: "next_action" for "Next step"
	Value string
	line  int
	vs    int // value span within the line text
	ve    int
	cell  [2]int // the whole cell between its pipes, for table rows
	table bool
}

// Line is the entry's 1-based line number.
func (e Entry) Line() int { return e.line + 1 }

var aliases = map[string]string{
	"nextstep":         "next_action",
	"qid":              "question_id",
	"activeslice":      "active_slice",
	"slicemode":        "slice_mode",
	"nextaction":       "next_action",
	"questionid":       "question_id",
	"stopreason":       "stop_reason",
	"returnnextaction": "return_next_action",
	"raisedat":         "raised_at",
	"blockingslices":   "blocking_slices",
}

// Canon returns the canonical name of a state.md key: "Next step" and
// "next_action" are both "next_action".
func Canon(key string) string {
	n := NormKey(key)
	if c, ok := aliases[n]; ok {
		return c
	}
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(key) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under = false
		} else {
			under = true
		}
	}
	return b.String()
}

// bulletNames are the names the bullet form uses for keys it writes.
var bulletNames = map[string]string{
	"next_action": "Next step",
	"question_id": "qid",
}

func bulletName(canon string, cursor bool) string {
	if n, ok := bulletNames[canon]; ok && (cursor || canon == "question_id") {
		return n
	}
	if !cursor {
		return canon
	}
	s := strings.ReplaceAll(canon, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// ParseState parses state.md. It never fails; Schema reports a schema the
// engine must refuse.
//
// As ParseQuestions, the result shares b's memory, so b must not be
// changed while the result is in use.
func ParseState(b []byte) *State {
	s := &State{d: splitString(unsafe.String(unsafe.SliceData(b), len(b)))}
	s.index()
	return s
}

func (s *State) index() {
	lines := s.d.lines
	fenced := s.d.fenced(nil)
	s.sections = s.sections[:0]
	firstSection := len(lines)
	for i, l := range lines {
		if fenced[i] {
			continue
		}
		switch headingLevel(l.text) {
		case 1:
			if n := len(s.sections); n > 0 && s.sections[n-1].end == -1 {
				s.sections[n-1].end = i
			}
		case 2:
			if n := len(s.sections); n > 0 && s.sections[n-1].end == -1 {
				s.sections[n-1].end = i
			}
			if firstSection == len(lines) {
				firstSection = i
			}
			s.sections = append(s.sections, section{norm: NormKey(headingTitle(l.text)), head: i, end: -1})
		}
	}
	if n := len(s.sections); n > 0 && s.sections[n-1].end == -1 {
		s.sections[n-1].end = len(lines)
	}
	s.preambleEnd = firstSection
	s.readEntries(fenced)
}

// readEntries reads the cursor's and the awaited question's entries, in
// the sections index found.
func (s *State) readEntries(fenced []bool) {
	s.cursor, s.awaiting = nil, nil
	if c := s.section("cursor"); c != nil {
		s.encoding = Table
		s.cursor = s.entries(c.head+1, c.end, fenced)
	} else {
		s.encoding = Bullets
		s.cursor = s.entries(0, s.preambleEnd, fenced)
		if s.lastRow() >= 0 {
			s.encoding = Rows
		}
	}
	if a := s.section("awaitinghuman"); a != nil {
		s.awaiting = s.entries(a.head+1, a.end, fenced)
		if s.awaiting == nil {
			s.awaiting = []Entry{}
		}
	}
}

func (s *State) section(norm string) *section {
	for i := range s.sections {
		if s.sections[i].norm == norm {
			return &s.sections[i]
		}
	}
	return nil
}

// entries reads table rows and "- key: value" bullets in lines [from, to),
// passing over the lines fenced marks (nil: none).
// A row followed by a delimiter row is a header, and neither is an entry:
// rows without a header (DevRites' migrate writes them) are entries too.
func (s *State) entries(from, to int, fenced []bool) []Entry {
	var out []Entry
	isFenced := func(i int) bool { return fenced != nil && fenced[i] }
	for i := from; i < to; i++ {
		if isFenced(i) {
			continue
		}
		t := s.d.lines[i].text
		if IsRow(t) {
			if isDelimiterRow(t) || i+1 < to && !isFenced(i+1) && isDelimiterRow(s.d.lines[i+1].text) {
				continue // a delimiter row, or the header above one
			}
			cells, raw := splitRow(t)
			if len(cells) < 2 {
				continue
			}
			key := UnescapeCell(t[cells[0][0]:cells[0][1]])
			out = append(out, Entry{Key: key, Canon: Canon(key), Value: UnescapeCell(t[cells[1][0]:cells[1][1]]),
				line: i, vs: cells[1][0], ve: cells[1][1], cell: raw[1], table: true})
			continue
		}
		if len(t) > 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
			body := strings.TrimLeft(t[1:], " ")
			off := len(t) - len(body)
			key, value, ok := fieldLine(body)
			if !ok {
				continue
			}
			// The value's span is where fieldLine's trimming found it.
			after := off + strings.IndexByte(body, ':') + 1
			vs := len(t) - len(strings.TrimLeftFunc(t[after:], unicode.IsSpace))
			out = append(out, Entry{Key: key, Canon: Canon(key), Value: value, line: i, vs: vs, ve: vs + len(value)})
		}
	}
	return out
}

// splitRow returns the trimmed content spans of a table row's cells, and the
// raw spans between the pipes.
func splitRow(t string) (cells, raw [][2]int) {
	start := strings.IndexByte(t, '|') + 1
	for i := start; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, trimSpan(t, start, i))
			raw = append(raw, [2]int{start, i})
			start = i + 1
		}
	}
	if strings.TrimSpace(t[start:]) != "" { // a row without the closing pipe
		cells = append(cells, trimSpan(t, start, len(t)))
		raw = append(raw, [2]int{start, len(t)})
	}
	return cells, raw
}

func trimSpan(t string, a, b int) [2]int {
	for a < b && (t[a] == ' ' || t[a] == '\t') {
		a++
	}
	for b > a && (t[b-1] == ' ' || t[b-1] == '\t') {
		b--
	}
	return [2]int{a, b}
}

// oneLine folds a value onto one line: state.md keeps one line per key.
func oneLine(v string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(v)), " ")
}

// Encoding is Table or Bullets.
func (s *State) Encoding() string { return s.encoding }

// Cursor returns the cursor entries in file order.
func (s *State) Cursor() []Entry { return s.cursor }

// Awaiting returns the entries of the "Awaiting human" section, or nil when
// there is no such section.
func (s *State) Awaiting() []Entry { return s.awaiting }

// Get returns a cursor value by any spelling of its key.
func (s *State) Get(key string) (string, bool) { return lookup(s.cursor, key) }

// GetAwaiting returns a value of the awaiting section by any spelling of
// its key.
func (s *State) GetAwaiting(key string) (string, bool) { return lookup(s.awaiting, key) }

// AwaitingQID returns the qid the awaiting section names, or "".
func (s *State) AwaitingQID() string {
	v, _ := s.GetAwaiting("question_id")
	return v
}

func lookup(es []Entry, key string) (string, bool) {
	c := Canon(key)
	for _, e := range es {
		if e.Canon == c {
			return e.Value, true
		}
	}
	return "", false
}

// Schema returns the schema number; a missing schema is 2. A value that is
// not a whole number of at least 1 is an error that says so.
func (s *State) Schema() (int, error) {
	v, ok := s.Get("schema")
	if !ok || strings.TrimSpace(v) == "" {
		return 2, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("schema %q is not a number", v)
	}
	if n < 1 {
		return 0, fmt.Errorf("schema %d is below 1", n)
	}
	return n, nil
}

// Set writes a cursor value, in place when the key exists, else as a new row
// or bullet after the last cursor entry.
func (s *State) Set(canon, value string) {
	for _, e := range s.cursor {
		if e.Canon == canon {
			s.setValue(e, value)
			return
		}
	}
	row := "| " + canon + " | " + escapeCell(value) + " |"
	bullet := "- " + bulletName(canon, true) + ": " + oneLine(value)
	if r := s.lastRow(); r >= 0 {
		// A cursor with rows gets rows, after its last one, even where
		// bullets follow it (DevRites' migrate mixes the two).
		at := s.cursor[r].line + 1
		s.d.splice(at, at, s.d.newLines(row))
		s.index()
		return
	}
	if n := len(s.cursor); n > 0 {
		// After the last bullet, in a list of bullets.
		at := s.cursor[n-1].line + 1
		s.d.splice(at, at, s.d.newLines(bullet))
		s.index()
		return
	}
	if s.encoding == Bullets {
		at, texts := s.bulletStart()
		s.d.splice(at, at, s.d.newLines(append(texts, bullet)...))
		s.index()
		return
	}
	// A "## Cursor" section without rows: after its table's delimiter row,
	// else a new table right under the heading.
	c := s.section("cursor")
	texts := []string{"| Key | Value |", "| --- | --- |", row}
	at := c.head + 1
	if hdr := s.tableStart(c.head+1, c.end); hdr >= 0 {
		at, texts = hdr+2, texts[2:]
	} else if at < len(s.d.lines) && IsRow(s.d.lines[at].text) {
		texts = append(texts, "") // a stray row must not join the new table
	}
	s.d.splice(at, at, s.d.newLines(texts...))
	s.index()
}

// lastRow is the index in s.cursor of the last table row, or -1.
func (s *State) lastRow() int {
	for i := len(s.cursor) - 1; i >= 0; i-- {
		if s.cursor[i].table {
			return i
		}
	}
	return -1
}

// tableStart returns the line of the header row of the first table in lines
// [from, to) that has a delimiter row under it, or -1.
func (s *State) tableStart(from, to int) int {
	fenced := s.d.fenced(nil)
	for i := from; i+1 < to; i++ {
		if !fenced[i] && IsRow(s.d.lines[i].text) && !fenced[i+1] && IsRow(s.d.lines[i+1].text) {
			return i
		}
	}
	return -1
}

// isDelimiterRow reports whether a row is a table's delimiter row, under
// its header: every cell is dashes, with an optional colon at either end.
func isDelimiterRow(t string) bool {
	if !IsRow(t) {
		return false
	}
	cells, _ := splitRow(t)
	for _, c := range cells {
		v := strings.TrimSuffix(strings.TrimPrefix(t[c[0]:c[1]], ":"), ":")
		if v == "" || strings.Trim(v, "-") != "" {
			return false
		}
	}
	return len(cells) > 0
}

func (s *State) setValue(e Entry, value string) {
	v := oneLine(value)
	vs, ve := e.vs, e.ve
	if e.table {
		v = escapeCell(value)
		if vs == ve { // an empty cell: fill it as "| key | value |" would be
			vs, ve, v = e.cell[0], e.cell[1], " "+v+" "
		}
	}
	l := &s.d.lines[e.line]
	if e.table && v == "" && e.cell[1] == len(l.text) {
		// The last cell of a row without its closing pipe: emptied, it
		// needs the pipe to stay a cell.
		vs, ve, v = e.cell[0], e.cell[1], " |"
	}
	if !e.table && vs > 0 && l.text[vs-1] == ':' && v != "" {
		v = " " + v // "- Phase:" becomes "- Phase: build"
	}
	s.d.setText(e.line, l.text[:vs]+v+l.text[ve:])
	if s.d.noFence {
		// One row's or bullet's text changed, and it cannot be a heading:
		// the sections stand, and only the entries are read again.
		s.readEntries(nil)
		return
	}
	s.index()
}

// bulletStart is where the first bullet of a bullet-form cursor goes: under
// a leading "# " title, else before the first line with text.
func (s *State) bulletStart() (int, []string) {
	at := 0
	for i, l := range s.d.lines {
		if headingLevel(l.text) == 1 {
			at = i + 1
			break
		}
		if !isBlank(l.text) {
			at = i
			break
		}
	}
	if at >= len(s.d.lines) || !isIndented(s.d.lines[at].text) {
		return at, nil
	}
	// A bullet right above an indented line would take that line into its
	// list item (a fence there would then swallow what follows it). Go to
	// the end of the preamble instead, closing a fence left open there.
	end := s.preambleEnd
	for end > 0 && isBlank(s.d.lines[end-1].text) {
		end--
	}
	if closer := s.d.fenceCloser(end, nil); closer != "" {
		return end, []string{closer}
	}
	return end, nil
}

// Delete removes a cursor entry's line, if there is one.
func (s *State) Delete(canon string) {
	for _, e := range s.cursor {
		if e.Canon == canon {
			s.d.splice(e.line, e.line+1, nil)
			s.index()
			return
		}
	}
}

// SetAwaiting replaces the "Awaiting human" section with the given entries,
// in the file's encoding. A new section goes before "## Log", else at the end.
func (s *State) SetAwaiting(kvs ...KV) {
	texts := []string{"## Awaiting human"}
	if s.encoding == Table || s.encoding == Rows {
		if s.encoding == Table {
			texts = append(texts, "| Key | Value |", "| --- | --- |")
		}
		for _, kv := range kvs {
			texts = append(texts, "| "+kv.Key+" | "+escapeCell(kv.Value)+" |")
		}
	} else {
		for _, kv := range kvs {
			texts = append(texts, "- "+bulletName(kv.Key, false)+": "+oneLine(kv.Value))
		}
	}
	if a := s.section("awaitinghuman"); a != nil {
		end := a.end
		if end < len(s.d.lines) {
			texts = append(texts, "")
		}
		s.d.splice(a.head, end, s.d.newLines(texts...))
		s.index()
		return
	}
	at := len(s.d.lines)
	if l := s.section("log"); l != nil {
		at = l.head
		texts = append(texts, "")
	} else if at > 0 {
		// One blank line before it, which ClearAwaiting takes away again.
		texts = append([]string{""}, texts...)
		if closer := s.d.fenceCloser(at, nil); closer != "" {
			texts = append([]string{closer}, texts...)
		}
	}
	s.d.splice(at, at, s.d.newLines(texts...))
	s.index()
}

// ClearAwaiting removes the "Awaiting human" section and, when it ends the
// file, the blank line that separated it from what came before, so that
// SetAwaiting then ClearAwaiting gives the file back as it was.
// A file with several such sections loses them all: a second one would
// otherwise become the awaited question once the first is gone.
func (s *State) ClearAwaiting() {
	for a := s.section("awaitinghuman"); a != nil; a = s.section("awaitinghuman") {
		from := a.head
		if a.end == len(s.d.lines) && from > 0 && isBlank(s.d.lines[from-1].text) {
			from--
		}
		s.d.splice(from, a.end, nil)
		s.index()
	}
}

// LogSpan returns the lines (from 0, a BOM not counted) of the Log
// section: its heading and the first line after it, as the parser bounds
// it (headings in fenced code do not end it); ok is false without one.
func (s *State) LogSpan() (head, end int, ok bool) {
	if l := s.section("log"); l != nil {
		return l.head, l.end, true
	}
	return 0, 0, false
}

// Line returns the text of line i (from 0, as LogSpan counts), without its
// line ending.
func (s *State) Line(i int) string { return s.d.line(i).text }

// AppendLog adds "- text" after the last line of the "## Log" section, when
// there is one.
func (s *State) AppendLog(text string) {
	l := s.section("log")
	if l == nil {
		return
	}
	at := l.head + 1
	for i := l.end - 1; i > l.head; i-- {
		if !isBlank(s.d.lines[i].text) {
			at = i + 1
			break
		}
	}
	texts := []string{"- " + oneLine(text)}
	if closer := s.d.fenceCloser(at, nil); closer != "" {
		texts = append([]string{closer}, texts...)
	}
	s.d.splice(at, at, s.d.newLines(texts...))
	if !s.d.noFence {
		s.index()
		return
	}
	// A bullet, in a file without fences: no heading came, and the index
	// moves down by a line from there (a log of thousands of lines is not
	// read again for each entry).
	for i := range s.sections {
		if s.sections[i].head >= at {
			s.sections[i].head++
		}
		if s.sections[i].end >= at {
			s.sections[i].end++
		}
	}
	for _, es := range [][]Entry{s.cursor, s.awaiting} {
		for i := range es {
			if es[i].line >= at {
				es[i].line++
			}
		}
	}
}

// Bytes returns the file's content.
func (s *State) Bytes() []byte { return s.d.bytes() }

// WriteTo writes the file's bytes, as Bytes returns them, to w.
func (s *State) WriteTo(w io.Writer) (int64, error) { return s.d.writeTo(w) }

// Equal reports whether the file's bytes are exactly b.
func (s *State) Equal(b []byte) bool { return s.d.equal(b) }
