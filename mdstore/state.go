package mdstore

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unsafe"
)

// SchemaVersion is the newest state.md schema this binary reads, and the one
// init writes: schema 4, which DevRites v5 (265d28c) requires to resolve.
// Schemas 2 (no schema row), 3 and 4 read alike; a workspace keeps the
// schema row it has, since the engine never writes it.
const SchemaVersion = 4

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

// OneLine folds text onto one line: its runs of white space, line breaks
// among them, become one space, and none is left at its ends. state.md
// keeps a value so (one line per key), and a message quotes text so.
func OneLine(v string) string {
	return strings.Join(strings.Fields(v), " ") // line breaks are white space
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
	texts := []string{"- " + OneLine(text)}
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
