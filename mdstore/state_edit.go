package mdstore

import (
	"strings"
)

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
	bullet := "- " + bulletName(canon, true) + ": " + OneLine(value)
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
	v := OneLine(value)
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
			texts = append(texts, "- "+bulletName(kv.Key, false)+": "+OneLine(kv.Value))
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
