package mdstore

import (
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
	// ledger: the file is decisions.md, where every level-2 heading starts
	// a block (an entry), its title standing for the qid.
	ledger bool
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
	// row is the register row of the same id as this heading block: one
	// question written twice (DevRites v3+ lists every block in its
	// register), read from the block and kept in step with it by Set.
	row *Block
	// off and endOff are the block's bytes in a lazy doc's text, as
	// lazyHeadings found them (an index of lines leaves them 0).
	off, endOff int
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
	blank := func(c byte) bool { return c == ' ' || c == '\t' }
	end := len(rest)
	for end > 0 && blank(rest[end-1]) {
		end--
	}
	id = rest[:end]
	i := 0
	for i < len(id) && !blank(id[i]) {
		i++
	}
	if i < len(id) {
		j := i
		for blank(id[j]) {
			j++
		}
		id, label = id[:i], id[j:]
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
	return slices.ContainsFunc(Gates, func(g string) bool { return strings.EqualFold(s, g) })
}

// questionStatus reports whether v is the status of a question.
func questionStatus(v string) bool { return slices.Contains(Statuses, v) }

// statusFirst reports whether the lines after the heading at i, up to the
// first line that is neither blank, a field nor a field's indented value,
// hold a "status" field with a question status: what makes a named heading
// a question block.
func (q *Questions) statusFirst(i int, fenced []bool) bool {
	lines := q.d.all()
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
	q := &Questions{d: lazyDoc(unsafe.String(unsafe.SliceData(b), len(b)))}
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
		if !q.d.lazy || q.d.windowed || !q.lazyHeadings() {
			q.scan(nil, false)
		}
		return
	}
	opaque := guessValues(q.d.all())
	for round := 0; ; round++ {
		fenced := q.d.fenced(opaque)
		next := q.scan(fenced, true)
		if sameMask(next, opaque) || round > len(q.d.lines) {
			q.fenced, q.opaque = fenced, next
			return
		}
		opaque = next
	}
}

// scan finds the blocks, given the fenced lines (nil: no fenced code), and
// with values returns the lines that hold field values. It does not read
// the values: Block.parse does that for the blocks that are used, with the
// same rules. Without values only the headings are looked at: with no
// fenced code, which lines are values cannot change where a block ends
// (values are indented; headings stand at column 0).
func (q *Questions) scan(fenced []bool, values bool) []bool {
	lines := q.d.all()
	var mask []bool
	w := q.walker(fenced)
	for i := 0; i < len(lines); i++ {
		if fenced != nil && fenced[i] {
			continue
		}
		t := lines[i].text
		// Only column-0 headings count: an indented line in a block is
		// part of a field's value, which is data.
		if lvl := headingLevel(t); lvl == 1 || lvl == 2 {
			w.heading(i, lvl, t)
			continue
		}
		if !values || w.cur == nil {
			continue
		}
		if _, _, ok := fieldLine(t); !ok {
			continue
		}
		if end := continuation(lines, i); end > i+1 {
			if mask == nil {
				mask = make([]bool, len(lines))
			}
			for j := i + 1; j < end; j++ {
				mask[j] = true
			}
			i = end - 1
		}
	}
	w.finish(len(lines))
	return mask
}

// pairRows makes a register row and a heading block of the same id one
// question: the row leaves the block list and the block keeps it (row).
func (q *Questions) pairRows() {
	if !slices.ContainsFunc(q.blocks, func(b *Block) bool { return b.reg != nil }) {
		return // no register: most files, and no map of every id to build
	}
	heads := map[string]*Block{}
	for _, b := range q.blocks {
		if b.reg == nil && heads[b.QID] == nil {
			heads[b.QID] = b
		}
	}
	if len(heads) == 0 {
		return
	}
	out := q.blocks[:0] // a new list of this index: nobody holds it yet
	paired := false
	for _, b := range q.blocks {
		if h := heads[b.QID]; b.reg != nil && h != nil && h.row == nil {
			h.row, paired = b, true
			continue
		}
		out = append(out, b)
	}
	q.blocks = out
	if paired {
		n := map[string]int{}
		for _, b := range q.blocks {
			b.nth = n[b.QID]
			n[b.QID]++
		}
	}
}

// lazyHeadings is scan, without values, for a lazy doc not yet cut: it finds the
// column-0 headings by searching the text for '#', counts the lines
// between them, and gives each block the byte offsets of its text. It
// reports false, having found nothing, at the first heading of a named
// block or a question register: those are read from lines
// (statusFirst, rows).
func (q *Questions) lazyHeadings() bool {
	s := q.d.src
	w := q.walker(nil)
	i, counted := 0, 0 // the line at offset counted
	for off := 0; off < len(s); {
		if s[off] == '#' {
			i += strings.Count(s[counted:off], "\n")
			counted = off
			t := s[off:]
			if k := strings.IndexByte(t, '\n'); k >= 0 {
				t = t[:k]
			}
			t = strings.TrimSuffix(t, "\r")
			if lvl := headingLevel(t); lvl == 1 || lvl == 2 {
				if _, _, form := headingID(t); lvl == 2 && !q.ledger && (form == nameForm || form == notID && isRegister(t)) {
					return false
				}
				w.at = off
				w.heading(i, lvl, t)
			}
		}
		// The next '#' that starts a line: '#' is rarer than '\n'.
		for off++; ; off++ {
			k := strings.IndexByte(s[off:], '#')
			if k < 0 {
				off = len(s)
				break
			}
			if off += k; s[off-1] == '\n' {
				break
			}
		}
	}
	w.at = len(s)
	w.finish(q.d.count())
	return true
}

// valueMask returns the lines that hold field values, computing them for a
// file indexed without them (no fenced code).
func (q *Questions) valueMask() []bool {
	q.fresh()
	if q.noValues {
		q.opaque = q.scan(nil, true)
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
