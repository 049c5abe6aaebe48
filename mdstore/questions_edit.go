package mdstore

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/qid"
)

// Edits of questions.md: set fields of a block or a register row, append
// blocks and records, rename a heading; each splices only the lines it must.

// KV is a key and value to write.
type KV struct{ Key, Value string }

// Set updates fields of the block in place and adds the ones it lacks at the
// end of the block, in the order given. A register row keeps its table
// form: the cells of the columns named by the keys are replaced, and keys
// the table has no column for are not kept; a value a cell cannot hold
// (FitsCell) is refused and nothing changes.
func (q *Questions) Set(qid string, kvs ...KV) error {
	b := q.Find(qid)
	if b == nil {
		return Errorf(ErrNoQuestion, "%s: unknown qid", qid)
	}
	kvs = inTurn(kvs)
	if b.reg != nil {
		return q.setRow(b, kvs)
	}
	if row := b.row; row != nil {
		// The register row of the same question, in step: the cells of
		// the columns it has, with what a cell can hold. Its line moves
		// when the block's edit comes first, so the later one goes first.
		var cells []KV
		for _, kv := range kvs {
			if v := strings.Join(strings.Fields(kv.Value), " "); FitsCell(v) {
				cells = append(cells, KV{kv.Key, v})
			}
		}
		if row.head < b.head {
			defer func() { _ = q.setRow(row, cells) }() // after the block's edit, which moves no line above it
		} else if err := q.setRow(row, cells); err != nil {
			return err
		}
	}
	q.d.focus(b.head, b.end, b.off, b.endOff)
	b.parse()
	var added []string
	type repl struct {
		from, to int
		lines    []line
	}
	var repls []repl
	for _, kv := range kvs {
		n := NormKey(kv.Key)
		found := false
		for _, f := range b.fields {
			if NormKey(f.Key) == n {
				repls = append(repls, repl{f.start, f.end, q.d.newLines(encodeField(f.Key, kv.Value)...)})
				found = true
				break
			}
		}
		if !found {
			added = append(added, encodeField(kv.Key, kv.Value)...)
		}
	}
	if len(added) > 0 {
		// After the last line that is not empty: a line of spaces after
		// the insertion would be read as part of the new value.
		at := b.head + 1
		for i := b.end - 1; i > b.head; i-- {
			if q.d.line(i).text != "" {
				at = i + 1
				break
			}
		}
		// A value may end with lines of spaces (a kept trailing blank
		// line): new fields go after them, not into the value.
		if n := len(b.fields); n > 0 && b.fields[n-1].end > at {
			at = b.fields[n-1].end
		}
		if closer := q.d.fenceCloser(at, q.opaque); closer != "" {
			added = append([]string{closer}, added...)
		}
		repls = append(repls, repl{at, at, q.d.newLines(added...)})
	}
	// Apply from the bottom up so earlier indices stay valid.
	for i := 0; i < len(repls); i++ {
		for j := i + 1; j < len(repls); j++ {
			if repls[j].from > repls[i].from {
				repls[i], repls[j] = repls[j], repls[i]
			}
		}
	}
	for _, r := range repls {
		q.d.splice(r.from, r.to, r.lines)
	}
	q.edited()
	return nil
}

// inTurn is kvs as setting them one after the other leaves a block: a key
// given again (as NormKey reads it) keeps its first place and spelling, and
// takes the last value.
func inTurn(kvs []KV) []KV {
	out := make([]KV, 0, len(kvs))
	for _, kv := range kvs {
		if j := slices.IndexFunc(out, func(o KV) bool { return NormKey(o.Key) == NormKey(kv.Key) }); j >= 0 {
			out[j].Value = kv.Value
			continue
		}
		out = append(out, kv)
	}
	return out
}

// setRow replaces cells of a register row; the line is the only one that
// changes. A row shorter than its header gets the cells it lacks, up to
// the column set.
func (q *Questions) setRow(b *Block, kvs []KV) error {
	t := q.d.line(b.head).text
	_, raw := splitRow(t)
	closed := len(raw) == 0 || raw[len(raw)-1][1] < len(t) // the row ends with a pipe
	type cell struct {
		from, to int
		text     string
	}
	var edits []cell
	missing := map[int]string{} // cells past the row's end, by column
	last := len(raw) - 1
	for _, kv := range kvs {
		if !FitsCell(kv.Value) {
			return Errorf(ErrMalformed, "%s: a register cell cannot hold %q", b.QID, kv.Value)
		}
		col := -1
		for k, name := range b.reg.cols {
			if k != b.reg.id && NormKey(name) == NormKey(kv.Key) {
				col = k
				break
			}
		}
		switch {
		case col < 0:
			continue // no such column: a register keeps only its own
		case col >= len(raw):
			missing[col] = kv.Value
			last = max(last, col)
			continue
		}
		c := trimSpan(t, raw[col][0], raw[col][1])
		e := cell{c[0], c[1], kv.Value}
		switch {
		case kv.Value == "" && raw[col][1] == len(t):
			e = cell{raw[col][0], raw[col][1], " |"} // the last cell, without its closing pipe
		case c[0] == c[1]:
			e = cell{raw[col][0], raw[col][1], " " + kv.Value + " "}
		}
		edits = slices.DeleteFunc(edits, func(x cell) bool { return x.from == e.from })
		edits = append(edits, e)
	}
	if len(edits) == 0 && len(missing) == 0 {
		return nil
	}
	slices.SortFunc(edits, func(a, b cell) int { return b.from - a.from })
	for _, e := range edits {
		t = t[:e.from] + e.text + t[e.to:]
		closed = closed || e.text == " |"
	}
	if len(missing) > 0 {
		if !closed {
			t += " |"
		}
		for k := len(raw); k <= last; k++ {
			if v := missing[k]; v != "" {
				t += " " + v + " |"
			} else {
				t += " |"
			}
		}
	}
	q.d.setText(b.head, t)
	q.edited()
	return nil
}

// Append adds a new block at the end of the file, separated by a blank line.
func (q *Questions) Append(qid string, kvs ...KV) {
	q.fresh()
	if q.d.lazy && !q.d.windowed {
		// The window: the last block and what follows it, whose end the
		// new block becomes.
		from, off := 0, 0
		if n := len(q.blocks); n > 0 && q.blocks[n-1].reg == nil {
			from, off = q.blocks[n-1].head, q.blocks[n-1].off
		}
		q.d.focus(from, q.d.count(), off, len(q.d.src))
	}
	n := q.d.count()
	q.d.appendBlock("## "+qid, kvs, q.opaque)
	if !q.appended(n, qid) {
		q.edited()
	}
}

// appended extends the index by the block Append added after line n, and
// reports whether it could: in a file without fenced code the new heading
// is the only column-0 heading added (values are indented), so the blocks
// before it keep their lines, and the one that ran to the end of the file
// now ends at the new heading. Anything else is indexed again.
func (q *Questions) appended(n int, id string) bool {
	if !q.d.noFence || q.fenced != nil || !q.noValues {
		return false
	}
	if _, label, form := headingID("## " + id); form != idForm || label != "" {
		return false
	}
	head := n
	for head < q.d.count() && q.d.line(head).text != "## "+id {
		head++
	}
	if head == q.d.count() {
		return false
	}
	nth := 0
	for _, b := range q.blocks {
		if b.QID == id {
			nth++
		}
		if b.reg == nil && b.end == n {
			b.end = head
		}
	}
	q.blocks = append(q.blocks, &Block{QID: id, head: head, end: q.d.count(), q: q, gen: q.gen, nth: nth})
	return true
}

// AppendRecord appends a "## heading" block of fields to a markdown file, as
// questions.md blocks are written, and returns the new content. Like the
// built-in append, it may write the block into b's spare capacity: b keeps
// its bytes, and only the result is used afterwards.
//
// A file without any fence marker cannot end inside fenced code, so only
// its last line is split and looked at: appending to a long log costs the
// size of the record, not of the log.
func AppendRecord(b []byte, heading string, kvs ...KV) []byte {
	if bytes.Contains(b, []byte("```")) || bytes.Contains(b, []byte("~~~")) {
		q := parseLedger(b)
		q.d.appendBlock("## "+heading, kvs, q.valueMask())
		return q.d.bytes()
	}
	cut := 0
	if i := bytes.LastIndexByte(bytes.TrimRight(b, "\r\n"), '\n'); i >= 0 {
		cut = i + 1 // the start of the last line that has text
	}
	tail := splitDoc(b[cut:])
	if cut > 0 && tail.bom { // U+FEFF starting a later line is text, not a BOM
		tail.bom = false
		if len(tail.lines) == 0 {
			tail.lines = []line{{}}
		}
		tail.setText(0, utf8BOM+tail.lines[0].text)
	}
	if cut > 0 {
		tail.nl = splitDoc(b[:bytes.IndexByte(b, '\n')+1]).nl
	}
	tail.appendBlock("## "+heading, kvs, nil)
	t := tail.bytes()
	if bytes.HasPrefix(t, b[cut:]) {
		return append(b, t[len(b)-cut:]...) // the common case: b, then the block
	}
	return append(b[:cut:cut], t...)
}

// appendBlock adds a block at the end of the file. A fenced code block left
// open at the end is closed first, or it would swallow the new block.
func (d *doc) appendBlock(heading string, kvs []KV, opaque []bool) {
	texts := []string{heading}
	for _, kv := range kvs {
		texts = append(texts, encodeField(kv.Key, kv.Value)...)
	}
	n := d.count()
	if closer := d.fenceCloser(n, opaque); closer != "" {
		texts = append([]string{closer, ""}, texts...)
	} else if n > 0 && !isBlank(d.line(n-1).text) {
		texts = append([]string{""}, texts...)
	}
	d.splice(n, n, d.newLines(texts...))
}

// Rename changes the heading of the block that starts at the given 1-based
// line, for doctor's renumbering of duplicate qids.
func (q *Questions) Rename(line int, newQID string) error {
	q.fresh()
	i := line - 1
	var b *Block
	for _, x := range q.blocks {
		if x.head == i {
			b = x
		}
	}
	if b == nil || b.reg != nil { // not a heading, one inside fenced code, or a register row
		return Errorf(ErrNoQuestion, "no question heading at line %d", line)
	}
	if !qid.Shaped(newQID) {
		return Errorf(ErrMalformed, "%q is not a qid", newQID)
	}
	text := "## " + newQID
	if b.label != "" {
		text += " " + b.label
	}
	q.d.setText(i, text)
	// No line moves: blocks already handed out stay valid where they are,
	// and the renamed one says its new qid. Ranks among duplicates are
	// counted again on the next index.
	b.QID = newQID
	q.stale = true
	return nil
}

// Bytes returns the file's content.
func (q *Questions) Bytes() []byte { return q.d.bytes() }

// WriteTo writes the file's bytes, as Bytes returns them, to w.
func (q *Questions) WriteTo(w io.Writer) (int64, error) { return q.d.writeTo(w) }

// Equal reports whether the file's bytes are exactly b.
func (q *Questions) Equal(b []byte) bool { return q.d.equal(b) }
