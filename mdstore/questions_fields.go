package mdstore

import (
	"slices"
	"strings"
)

// Reading a block's fields, when they are first asked for.

// parse reads the block's fields, once. A block indexed before an edit
// reads the block that now stands for it (same qid, same rank among
// duplicates): the lines it was indexed from have moved.
func (b *Block) parse() {
	if b.parsed {
		return
	}
	b.parsed = true
	if b.gen != b.q.gen {
		b.q.fresh()
		for _, cur := range b.q.blocks {
			if cur.QID == b.QID && cur.nth == b.nth {
				cur.parse()
				b.fields = cur.fields
			}
		}
		return
	}
	if b.reg != nil {
		b.parseRow()
		return
	}
	b.fields = make([]Field, 0, 16)
	b.walk("", func(f rawField) bool {
		b.fields = append(b.fields, Field{Key: f.key, Value: f.value(), start: f.start, end: f.end})
		return true
	})
}

// walk calls fn with each field of the block, with the file's line
// indexes, until fn returns false: from the text of a lazy doc the block
// is outside the window of, else from the lines. firsts, when not "", are
// the first letters of the keys (normalised) fn looks for: a reading of
// the text may pass over the fields of other keys.
func (b *Block) walk(firsts string, fn func(rawField) bool) {
	d := &b.q.d
	if !d.holds(b.head, b.end) {
		src := lineSrc{text: d.src[b.off:b.endOff]}
		_, after, _ := src.at(0) // the heading, which is not read
		walkFields(src, after, b.head+1, nil, firsts, fn)
		return
	}
	var fenced []bool
	if b.q.fenced != nil {
		fenced = b.q.fenced[b.head:b.end]
	}
	walkFields(lineSrc{lines: d.lines[b.head-d.win : b.end-d.win], cut: true}, 1, 1, fenced, firsts, func(f rawField) bool {
		f.start, f.end = f.start+b.head, f.end+b.head
		return fn(f)
	})
}

// readFields reads the "key: value" fields of lines[from:], passing over
// the lines that skip marks (fenced code) and every line that is not a
// field; base is the index of lines[0] in its file, for the fields' lines.
func readFields(lines []line, from int, skip []bool, base int) []Field {
	fields := make([]Field, 0, 16)
	walkFields(lineSrc{lines: lines, cut: true}, from, from, skip, "", func(f rawField) bool {
		fields = append(fields, Field{Key: f.key, Value: f.value(), start: base + f.start, end: base + f.end})
		return true
	})
	return fields
}

// rawField is a field as walkFields finds it: its key and first line, and
// the lines its value continues on, not yet decoded.
type rawField struct {
	key, first string
	body       []line
	text       string // from a text not cut into lines: the lines of body, not yet cut
	start, end int    // line indexes of the field and of the line after it
}

// value decodes the field's value: a block scalar, the older indented form,
// a plain value folded over its continuation lines, or the one line.
func (f rawField) value() string {
	if f.text != "" {
		f.body = splitLines(f.text)[:f.end-f.start-1]
	}
	_, _, scalar := scalarHeader(f.first)
	switch {
	case len(f.body) > 0 && (scalar || f.first == ""):
		return decodeBlock(f.first, f.body)
	case len(f.body) > 0:
		return foldPlain(f.first, f.body)
	case scalar:
		return ""
	}
	return f.first
}

// walkFields is the one reading of fields (the grammar's): it calls fn
// with each field of src from position pos, which is line n, passing over
// the lines skip marks (by line, nil: none), until fn returns false. A
// field is a column-0 "key: value" line (fieldLine); its value continues
// on the lines after it that are blank or indented, up to the last that
// is not empty (valueEnd). firsts, when not "", are the first letters
// (lower-case) of the keys fn looks for: a key starts with a letter, which
// its normal form (NormKey) starts with in lower case, so a line that
// starts with another is passed over without being read.
func walkFields(src lineSrc, pos, n int, skip []bool, firsts string, fn func(rawField) bool) {
	for {
		t, after, ok := src.at(pos)
		if !ok {
			return
		}
		if skip != nil && skip[n] || t == "" || firsts != "" && strings.IndexByte(firsts, t[0]|0x20) < 0 {
			pos, n = after, n+1
			continue
		}
		key, value, ok := fieldLine(t)
		if !ok {
			pos, n = after, n+1
			continue
		}
		end, lines := src.valueEnd(after)
		f := rawField{key: key, first: value, start: n, end: n + 1 + lines}
		if src.cut {
			f.body = src.lines[after:end]
		} else {
			f.text = src.text[after:end]
		}
		if !fn(f) {
			return
		}
		pos, n = end, n+1+lines
	}
}

// lineSrc is a run of lines the grammar reads: lines already cut (cut),
// or a text cut only as it is read (a block of a lazy doc, which is never
// split). A position is an index into lines, or a byte offset into text.
type lineSrc struct {
	lines []line
	text  string
	cut   bool
}

// at returns the text of the line at position p, as fillLines cuts it,
// and the position after it; ok is false at the end.
func (l lineSrc) at(p int) (text string, next int, ok bool) {
	if l.cut {
		if p >= len(l.lines) {
			return "", p, false
		}
		return l.lines[p].text, p + 1, true
	}
	if p >= len(l.text) {
		return "", p, false
	}
	text, _, next = cut(l.text, p)
	return text, next, true
}

// valueEnd returns, for the position p after a field line, the position
// after the last line of the field's value and how many lines the value
// has: the lines that are blank or indented, up to the last that is not
// empty (the empty lines after it separate the field from what follows).
func (l lineSrc) valueEnd(p int) (end, lines int) {
	end = p
	for k := 1; ; k++ {
		t, next, ok := l.at(p)
		if !ok || t != "" && !isIndented(t) {
			return end, lines
		}
		if p = next; t != "" {
			end, lines = next, k
		}
	}
}

// PeekMax is how many keys one Peek reads.
const PeekMax = 5

// Peek returns the first value of each of keys (normalised, as NormKey
// gives them; at most PeekMax) and whether the block has it, without
// reading its other fields or allocating: a check of a few fields of every
// block of a large file need not decode them all. Once a block is read,
// Peek answers from its fields.
func (b *Block) Peek(keys ...string) (values [PeekMax]string, found [PeekMax]bool) {
	keys = keys[:min(len(keys), PeekMax)]
	if !b.rawReadable() {
		for k, key := range keys {
			values[k], found[k] = b.Get(key)
		}
		return values, found
	}
	left := len(keys)
	var firsts [PeekMax]byte
	for k, key := range keys {
		if key != "" {
			firsts[k] = key[0]
		}
	}
	b.walk(string(firsts[:len(keys)]), func(f rawField) bool {
		n := NormKey(f.key)
		for k, key := range keys {
			if key == n && !found[k] {
				values[k], found[k] = f.value(), true
				left--
			}
		}
		return left > 0
	})
	return values, found
}

// rawReadable reports whether the block's fields can be read from its
// lines without decoding them (Peek, Keys, Holds): not when they were
// decoded already (an edit may have changed them since), when the file
// was edited after the block was indexed (its lines moved), or for a
// register row, whose fields are cells.
func (b *Block) rawReadable() bool { return !b.parsed && b.gen == b.q.gen && b.reg == nil }

// Keys calls fn with the key of each of the block's fields, as written,
// and the field's line (1-based), in order, without decoding a value or
// allocating: a check of every block of a large file need not read them.
func (b *Block) Keys(fn func(key string, line int)) {
	if !b.rawReadable() {
		for _, f := range b.Fields() {
			fn(f.Key, f.Line())
		}
		return
	}
	b.walk("", func(f rawField) bool {
		fn(f.key, f.start+1)
		return true
	})
}

// Holds reports whether a field of the block with key (normalised, as
// NormKey gives it) has value, without decoding the block's other fields.
func (b *Block) Holds(key, value string) bool {
	if !b.rawReadable() {
		for _, f := range b.Fields() {
			if NormKey(f.Key) == key && f.Value == value {
				return true
			}
		}
		return false
	}
	if !strings.ContainsAny(value, " \t\r\n") && !b.mentions(value) {
		// A value without blanks is on one line of the block, as it is:
		// values are joined from lines with a space or a newline.
		return false
	}
	held := false
	b.walk(key[:min(len(key), 1)], func(f rawField) bool {
		held = NormKey(f.key) == key && f.value() == value
		return !held
	})
	return held
}

// mentions reports whether a line of the block holds s, which has no line
// break.
func (b *Block) mentions(s string) bool {
	d := &b.q.d
	if !d.holds(b.head, b.end) {
		return strings.Contains(d.src[b.off:b.endOff], s)
	}
	lines := d.lines[b.head-d.win : b.end-d.win]
	return slices.ContainsFunc(lines, func(l line) bool { return strings.Contains(l.text, s) })
}

// parseRow reads a register row's cells as fields, named by the header;
// the Question ID cell is the block's id, not a field.
func (b *Block) parseRow() {
	t := b.q.d.line(b.head).text
	cells, _ := splitRow(t)
	b.fields = make([]Field, 0, len(cells))
	for k, c := range cells {
		if k == b.reg.id || k >= len(b.reg.cols) || b.reg.cols[k] == "" {
			continue
		}
		b.fields = append(b.fields, Field{Key: b.reg.cols[k], Value: t[c[0]:c[1]], start: b.head, end: b.head + 1})
	}
}

// Line is the 1-based line number of the block's heading.
func (b *Block) Line() int { return b.head + 1 }

// HasFenceMarker reports whether a line of the file holds "```" or "~~~",
// as parsing found: without one no line is in fenced code.
func (q *Questions) HasFenceMarker() bool { return !q.d.noFence }

// End returns the line number (from 1) of the block's last line: the line
// before the next level-1 or level-2 heading outside fenced code, or a
// register row's own line.
func (b *Block) End() int { return b.end }

// Release drops the fields read, which are read again if asked for: a pass
// over every block of a large file then holds one block's at a time.
func (b *Block) Release() {
	if b.gen == b.q.gen {
		b.fields, b.parsed = nil, false
	}
}

// Fields returns the block's fields in order.
func (b *Block) Fields() []Field {
	b.parse()
	return b.fields
}

// Line is the 1-based line number of the field.
func (f Field) Line() int { return f.start + 1 }

// Get returns the value of the first field whose key matches after NormKey.
func (b *Block) Get(key string) (string, bool) {
	b.parse()
	n := NormKey(key)
	for _, f := range b.fields {
		if NormKey(f.Key) == n {
			return f.Value, true
		}
	}
	return "", false
}

// Nth is how many blocks before b in Blocks have its qid: 0 for the first
// block of each qid, so that finding a repeated qid needs no map.
func (b *Block) Nth() int { return b.nth }

// Row reports whether the block is a row of a question register table.
func (b *Block) Row() bool { return b.reg != nil }

// Label is the gate word that follows the id in the block's heading
// ("validating" for "## Q-002 validating"), or "".
func (b *Block) Label() string { return b.label }

// FitsCell reports whether a register row's cell can hold v exactly: one
// line, no '|', no white space at either end (a cell's is not its text)
// and no final backslash (it would escape the cell's closing pipe).
func FitsCell(v string) bool {
	return !strings.ContainsAny(v, "|\r\n") && strings.TrimSpace(v) == v && !strings.HasSuffix(v, `\`)
}

// Value returns the field's value, or "" when it is absent.
func (b *Block) Value(key string) string {
	v, _ := b.Get(key)
	return v
}
