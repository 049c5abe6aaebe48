package mdstore

import (
	"bytes"
	"slices"
	"strings"
	"unsafe"

	"github.com/devrites/devrites-engine/qid"
)

// Questions is a parsed questions.md. Edits splice lines: everything the
// engine does not change keeps its bytes.
type Questions struct {
	d      doc
	blocks []*Block
	fenced []bool // lines inside fenced code
	opaque []bool // lines holding field values (nil when there are none)
	stale  bool   // edited since the last index: blocks, fenced, opaque are old
	// noValues: opaque was not computed (a file without fences needs it
	// only for Headings).
	noValues bool
	gen      int // counts edits, so that a block indexed before one knows it
}

// Block is one question. Three forms are read:
//   - a column-0 "## <id>" heading outside fenced code, where <id> is a
//     canonical qid (q-YYYY-MM-DD-NNN) or a numbered one (Q-012, q-3),
//     optionally followed by a gate word ("## Q-002 validating"), and the
//     lines up to the next column-0 level-1 or level-2 heading outside
//     fenced code;
//   - the same with a name for <id> ("## seal-important-accept"), when the
//     first lines under the heading, up to the first line of prose, are
//     fields and one of them is "status: open|answered|dropped|rejected":
//     an ordinary section ("## Notes") is never a question;
//   - a row of a table under a "## Question register" heading whose header
//     has a "Question ID" and a "Status" column: the id is the row's
//     Question ID cell, and every other column is a field.
//
// A Block reads its fields once, when they are first asked for, and keeps
// them: held across an edit, it shows the question as it was at that first
// read (for the block an edit changed, that read came before the edit).
type Block struct {
	QID    string
	head   int // index of the heading line (a row's own line)
	end    int // index of the first line after the block
	q      *Questions
	gen    int // q.gen when indexed
	nth    int // how many earlier blocks have the same qid
	fields []Field
	parsed bool   // fields are read on first use: a resolve needs one block of thousands
	label  string // the gate word after the id in the heading, or ""
	reg    *register
}

// register is the header of a question register table: a row's fields are
// its cells under these column names.
type register struct {
	cols []string // header cells, trimmed
	id   int      // the Question ID column
}

// Field is one "key: value" of a block, with the lines it spans.
type Field struct {
	Key        string // as written
	Value      string
	start, end int
}

// Heading forms of headingID.
const (
	notID    = iota
	idForm   // a canonical or numbered qid: a block whatever follows
	nameForm // a name: a block when its first fields hold a question status
)

// headingID reads "## <id>" or "## <id> <gate>" (trailing blanks allowed)
// without allocating: it runs once per heading of a file that can hold
// thousands.
func headingID(t string) (id, label string, form int) {
	rest, ok := strings.CutPrefix(t, "## ")
	if !ok {
		return "", "", notID
	}
	id = strings.TrimRight(rest, " \t")
	if i := strings.IndexAny(id, " \t"); i >= 0 {
		id, label = id[:i], strings.TrimLeft(id[i:], " \t")
		if !gateWord(label) {
			return "", "", notID
		}
	}
	switch {
	case qid.Shaped(id) || qid.Numbered(id):
		return id, label, idForm
	case qid.Named(id):
		return id, label, nameForm
	}
	return "", "", notID
}

// gateWord reports whether s is a gate, in any case: DevRites writes one
// after the id in some headings.
func gateWord(s string) bool {
	for _, g := range [...]string{"advisory", "validating", "blocking", "escalating"} {
		if strings.EqualFold(s, g) {
			return true
		}
	}
	return false
}

// questionStatus reports whether v is the status of a question.
func questionStatus(v string) bool {
	switch v {
	case "open", "answered", "dropped", "rejected":
		return true
	}
	return false
}

// statusFirst reports whether the lines after the heading at i, up to the
// first line that is neither blank, a field nor a field's indented value,
// hold a "status" field with a question status: what makes a named heading
// a question block.
func (q *Questions) statusFirst(i int, fenced []bool) bool {
	lines := q.d.lines
	for j := i + 1; j < len(lines); j++ {
		if fenced != nil && fenced[j] {
			return false
		}
		t := lines[j].text
		if isBlank(t) {
			continue
		}
		key, value, ok := fieldLine(t)
		if !ok {
			return false
		}
		if NormKey(key) == "status" {
			return questionStatus(value)
		}
		j = continuation(lines, j) - 1
	}
	return false
}

// isRegister reports whether a level-2 heading is "## Question register".
func isRegister(t string) bool {
	return len(t) > 3 && (t[3] == 'Q' || t[3] == 'q') && NormKey(headingTitle(t)) == "questionregister"
}

// ParseQuestions parses questions.md. It never fails: text that is not a
// question block is kept as it is and doctor reports what looks wrong.
//
// The result shares b's memory instead of copying a file that can run to
// megabytes, so b must not be changed while the result is in use.
func ParseQuestions(b []byte) *Questions {
	q := &Questions{d: splitString(unsafe.String(unsafe.SliceData(b), len(b)))}
	q.index()
	return q
}

// index finds the blocks and their fields. Which lines are fenced code and
// which lines are field values depend on each other: a value's lines are
// data and hidden from the fence finder, and a fence hides the fields in it.
// Both are decided from the lines above, so index alternates the two until
// they agree; each round settles at least one more line from the top. The
// first guess takes the indented lines after every column-0 field line as
// its value, which is right unless prose outside the blocks looks like a
// field, so most files take one or two rounds.
func (q *Questions) index() {
	q.stale, q.noValues = false, false
	q.fenced = nil
	if q.d.noFence {
		// No fenced code anywhere: which lines are values cannot change
		// where a block ends (values are indented; block headings stand at
		// column 0), so only the headings are looked at. Values are marked
		// when something asks for them (valueMask).
		q.fenced, q.opaque, q.noValues = nil, nil, true
		q.headingsOnly()
		return
	}
	opaque := guessValues(q.d.lines)
	for round := 0; ; round++ {
		fenced := q.d.fenced(opaque)
		next := q.scan(fenced)
		if sameMask(next, opaque) || round > len(q.d.lines) {
			q.fenced, q.opaque = fenced, next
			return
		}
		opaque = next
	}
}

// scan finds the blocks, given the fenced lines, and returns the lines that
// hold field values. It does not read the values: Block.parse does that for
// the blocks that are used, with the same rules.
func (q *Questions) scan(fenced []bool) []bool {
	lines := q.d.lines
	var values []bool
	w := q.walker(fenced)
	for i := 0; i < len(lines); i++ {
		if fenced[i] {
			continue
		}
		t := lines[i].text
		// Only column-0 headings count: an indented line in a block is
		// part of a field's value, which is data.
		if lvl := headingLevel(t); (lvl == 1 || lvl == 2) && t[0] == '#' {
			w.heading(i, lvl, t)
			continue
		}
		if w.cur == nil {
			continue
		}
		if _, _, ok := fieldLine(t); !ok {
			continue
		}
		if end := continuation(lines, i); end > i+1 {
			if values == nil {
				values = make([]bool, len(lines))
			}
			for j := i + 1; j < end; j++ {
				values[j] = true
			}
			i = end - 1
		}
	}
	w.close(len(lines))
	return values
}

// walker builds the block list of one index, in file order.
type walker struct {
	q      *Questions
	fenced []bool // nil: no fenced code
	cur    *Block // the heading block that is open
	reg    int    // first line of an open register section, or -1
	slab   []Block
	seen   map[string]int
}

func (q *Questions) walker(fenced []bool) *walker {
	q.blocks = nil // a new slice: one a caller holds keeps its blocks
	return &walker{q: q, fenced: fenced, reg: -1, seen: map[string]int{}}
}

// add appends a block, allocated in chunks rather than one at a time.
func (w *walker) add(b Block) *Block {
	if len(w.slab) == cap(w.slab) {
		w.slab = make([]Block, 0, 256)
	}
	b.q, b.gen, b.nth = w.q, w.q.gen, w.seen[b.QID]
	w.seen[b.QID]++
	w.slab = append(w.slab, b)
	p := &w.slab[len(w.slab)-1]
	w.q.blocks = append(w.q.blocks, p)
	return p
}

// heading handles a column-0 level-1 or level-2 heading outside fenced
// code at line i: it ends the block or register before it, and starts the
// one it heads, if any.
func (w *walker) heading(i, lvl int, t string) {
	w.close(i)
	if lvl != 2 {
		return
	}
	id, label, form := headingID(t)
	switch {
	case form == idForm || form == nameForm && w.q.statusFirst(i, w.fenced):
		w.cur = w.add(Block{QID: id, head: i, label: label})
	case form == notID && isRegister(t):
		w.reg = i + 1
	}
}

// close ends the open block or register section at line i.
func (w *walker) close(i int) {
	if w.cur != nil {
		w.cur.end = i
		w.cur = nil
	}
	if w.reg >= 0 {
		w.rows(w.reg, i)
		w.reg = -1
	}
}

// rows adds the rows of the question register tables in lines [from, to):
// a table is a header row, a delimiter row and the rows under them, and
// it is a register when its header names a Question ID and a Status
// column. A row whose id cell is not a question id is not read.
func (w *walker) rows(from, to int) {
	lines := w.q.d.lines
	fenced := func(i int) bool { return w.fenced != nil && w.fenced[i] }
	for i := from; i+1 < to; i++ {
		if fenced(i) || fenced(i+1) || !isRow(lines[i].text) || !isDelimiterRow(lines[i+1].text) {
			continue
		}
		reg := header(lines[i].text)
		j := i + 2
		for ; j < to && !fenced(j) && isRow(lines[j].text); j++ {
			if reg == nil {
				continue
			}
			t := lines[j].text
			cells, _ := splitRow(t)
			if reg.id >= len(cells) {
				continue
			}
			id := t[cells[reg.id][0]:cells[reg.id][1]]
			if qid.Shaped(id) || qid.Numbered(id) || qid.Named(id) {
				w.add(Block{QID: id, head: j, end: j + 1, reg: reg})
			}
		}
		i = j - 1
	}
}

// header reads a table's header row as a register's, or returns nil when
// it has no Question ID or no Status column.
func header(t string) *register {
	cells, _ := splitRow(t)
	reg := &register{id: -1}
	status := false
	for k, c := range cells {
		name := t[c[0]:c[1]]
		reg.cols = append(reg.cols, name)
		switch NormKey(name) {
		case "questionid", "qid":
			if reg.id < 0 {
				reg.id = k
			}
		case "status":
			status = true
		}
	}
	if reg.id < 0 || !status {
		return nil
	}
	return reg
}

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
	lines := b.q.d.lines[b.head:b.end]
	var fenced []bool
	if b.q.fenced != nil {
		fenced = b.q.fenced[b.head:b.end]
	}
	b.fields = readFields(lines, 1, fenced, b.head)
}

// readFields reads the "key: value" fields of lines[from:], passing over
// the lines that skip marks (fenced code) and every line that is not a
// field; base is the index of lines[0] in its file, for the fields' lines.
func readFields(lines []line, from int, skip []bool, base int) []Field {
	fields := make([]Field, 0, 16)
	walkFields(lines, from, skip, func(f rawField) bool {
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
	start, end int // line indexes of the field and of the line after it
}

// value decodes the field's value: a block scalar, the older indented form,
// a plain value folded over its continuation lines, or the one line.
func (f rawField) value() string {
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

// walkFields calls fn with each field of lines from index from, skipping
// the lines skip marks, until fn returns false.
func walkFields(lines []line, from int, skip []bool, fn func(rawField) bool) {
	for i := from; i < len(lines); i++ {
		if skip != nil && skip[i] {
			continue
		}
		key, value, ok := fieldLine(lines[i].text)
		if !ok {
			continue
		}
		end := continuation(lines, i)
		if end < i+1 {
			end = i + 1
		}
		if !fn(rawField{key: key, first: value, body: lines[i+1 : end], start: i, end: end}) {
			return
		}
		i = end - 1
	}
}

// Peek returns the first value of each of keys (normalised, as NormKey
// gives them) and whether the block has it, without reading its other
// fields: a check of a few fields of every block of a large file need not
// decode them all. Once a block is read, Peek answers from its fields.
func (b *Block) Peek(keys ...string) (values []string, found []bool) {
	values, found = make([]string, len(keys)), make([]bool, len(keys))
	if b.parsed || b.gen != b.q.gen || b.reg != nil {
		for k, key := range keys {
			values[k], found[k] = b.Get(key)
		}
		return values, found
	}
	var fenced []bool
	if b.q.fenced != nil {
		fenced = b.q.fenced[b.head:b.end]
	}
	left := len(keys)
	walkFields(b.q.d.lines[b.head:b.end], 1, fenced, func(f rawField) bool {
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

// parseRow reads a register row's cells as fields, named by the header;
// the Question ID cell is the block's id, not a field.
func (b *Block) parseRow() {
	t := b.q.d.lines[b.head].text
	cells, _ := splitRow(t)
	b.fields = make([]Field, 0, len(cells))
	for k, c := range cells {
		if k == b.reg.id || k >= len(b.reg.cols) || b.reg.cols[k] == "" {
			continue
		}
		b.fields = append(b.fields, Field{Key: b.reg.cols[k], Value: t[c[0]:c[1]], start: b.head, end: b.head + 1})
	}
}

// headingsOnly finds the blocks of a file without fenced code: every
// column-0 level-1 or level-2 heading ends a block, and question headings
// start one.
func (q *Questions) headingsOnly() {
	w := q.walker(nil)
	for i, l := range q.d.lines {
		t := l.text
		if t == "" || t[0] != '#' {
			continue
		}
		if lvl := headingLevel(t); lvl == 1 || lvl == 2 {
			w.heading(i, lvl, t)
		}
	}
	w.close(len(q.d.lines))
}

// valueMask returns the lines that hold field values, computing them for a
// file indexed by headingsOnly.
func (q *Questions) valueMask() []bool {
	q.fresh()
	if q.noValues {
		q.opaque = q.scan(make([]bool, len(q.d.lines)))
		q.noValues = false
	}
	return q.opaque
}

// guessValues marks the indented lines after every column-0 field line,
// inside question blocks or not.
func guessValues(lines []line) []bool {
	var mask []bool
	for i := 0; i < len(lines); i++ {
		if _, _, ok := fieldLine(lines[i].text); !ok {
			continue
		}
		end := continuation(lines, i)
		if end > i+1 && mask == nil {
			mask = make([]bool, len(lines))
		}
		for j := i + 1; j < end; j++ {
			mask[j] = true
		}
		i = end - 1
	}
	return mask
}

func sameMask(a, b []bool) bool {
	if len(a) == 0 || len(b) == 0 {
		return !anyTrue(a) && !anyTrue(b)
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func anyTrue(mask []bool) bool {
	for _, m := range mask {
		if m {
			return true
		}
	}
	return false
}

// fresh indexes the file again if an edit made the index stale. Edits only
// mark it, so that a command that edits and then just writes the file out
// parses it once.
func (q *Questions) fresh() {
	if q.stale {
		q.index()
	}
}

// edited marks the index stale after a change to the lines.
func (q *Questions) edited() {
	q.stale = true
	q.gen++
}

// Blocks returns the question blocks in file order.
func (q *Questions) Blocks() []*Block {
	q.fresh()
	return q.blocks
}

// Find returns the first block with the qid, or nil.
func (q *Questions) Find(qid string) *Block {
	q.fresh()
	for _, b := range q.blocks {
		if b.QID == qid {
			return b
		}
	}
	return nil
}

// Line is the 1-based line number of the block's heading.
func (b *Block) Line() int { return b.head + 1 }

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
	if b.reg != nil {
		return q.setRow(b, kvs)
	}
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
			if q.d.lines[i].text != "" {
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

// setRow replaces cells of a register row; the line is the only one that
// changes. A row shorter than its header gets the cells it lacks, up to
// the column set.
func (q *Questions) setRow(b *Block, kvs []KV) error {
	t := q.d.lines[b.head].text
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
	q.d.appendBlock("## "+qid, kvs, q.opaque)
	q.edited()
}

// AppendRecord appends a "## heading" block of fields to a markdown file, as
// questions.md blocks are written, and returns the new content.
//
// A file without any fence marker cannot end inside fenced code, so only
// its last line is split and looked at: appending to a long log costs the
// size of the record, not of the log.
func AppendRecord(b []byte, heading string, kvs ...KV) []byte {
	if bytes.Contains(b, []byte("```")) || bytes.Contains(b, []byte("~~~")) {
		q := ParseQuestions(b)
		q.d.appendBlock("## "+heading, kvs, q.opaque)
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
		tail.lines[0].text = utf8BOM + tail.lines[0].text
	}
	if cut > 0 {
		tail.nl = splitDoc(b[:bytes.IndexByte(b, '\n')+1]).nl
	}
	tail.appendBlock("## "+heading, kvs, nil)
	return append(b[:cut:cut], tail.bytes()...)
}

// appendBlock adds a block at the end of the file. A fenced code block left
// open at the end is closed first, or it would swallow the new block.
func (d *doc) appendBlock(heading string, kvs []KV, opaque []bool) {
	texts := []string{heading}
	for _, kv := range kvs {
		texts = append(texts, encodeField(kv.Key, kv.Value)...)
	}
	n := len(d.lines)
	if closer := d.fenceCloser(n, opaque); closer != "" {
		texts = append([]string{closer, ""}, texts...)
	} else if n > 0 && !isBlank(d.lines[n-1].text) {
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
