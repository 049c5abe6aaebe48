package mdstore

import (
	"fmt"
	"regexp"
)

// Questions is a parsed questions.md. Edits splice lines: everything the
// engine does not change keeps its bytes.
type Questions struct {
	d      doc
	blocks []*Block
}

// Block is one question: a column-0 "## q-…" heading outside fenced code and
// the lines up to the next level-1 or level-2 heading outside fenced code.
type Block struct {
	QID    string
	head   int // index of the heading line
	end    int // index of the first line after the block
	fields []Field
}

// Field is one "key: value" of a block, with the lines it spans.
type Field struct {
	Key        string // as written
	Value      string
	start, end int
}

var questionHeading = regexp.MustCompile(`^## (q-[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{3,})[ \t]*$`)

// ParseQuestions parses questions.md. It never fails: text that is not a
// question block is kept as it is and doctor reports what looks wrong.
func ParseQuestions(b []byte) *Questions {
	q := &Questions{d: splitDoc(b)}
	q.index()
	return q
}

// index finds the blocks and their fields.
func (q *Questions) index() {
	lines := q.d.lines
	fenced := q.d.fenced(scalarLines(lines))
	q.blocks = q.blocks[:0]
	var cur *Block
	closeBlock := func(i int) {
		if cur != nil {
			cur.end = i
			q.blocks = append(q.blocks, cur)
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		if fenced[i] {
			continue
		}
		t := lines[i].text
		if lvl := headingLevel(t); lvl == 1 || lvl == 2 {
			closeBlock(i)
			if m := questionHeading.FindStringSubmatch(t); m != nil {
				cur = &Block{QID: m[1], head: i}
			}
			continue
		}
		if cur == nil {
			continue
		}
		key, value, ok := fieldLine(t)
		if !ok {
			continue
		}
		f := Field{Key: key, Value: value, start: i, end: i + 1}
		if _, _, scalar := scalarHeader(value); scalar || value == "" {
			if end := continuation(lines, i); end > i+1 {
				f.end = end
				f.Value = decodeBlock(value, lines[i+1:end])
			} else if scalar {
				f.Value = ""
			}
		}
		cur.fields = append(cur.fields, f)
		i = f.end - 1
	}
	closeBlock(len(lines))
}

// scalarLines marks the indented lines that follow a column-0 field line
// holding a block scalar indicator: they are data, never markdown structure.
func scalarLines(lines []line) []bool {
	var mask []bool
	for i := 0; i < len(lines); i++ {
		_, v, ok := fieldLine(lines[i].text)
		if !ok {
			continue
		}
		if _, _, scalar := scalarHeader(v); !scalar {
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

// Blocks returns the question blocks in file order.
func (q *Questions) Blocks() []*Block { return q.blocks }

// Find returns the first block with the qid, or nil.
func (q *Questions) Find(qid string) *Block {
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
func (b *Block) Fields() []Field { return b.fields }

// Line is the 1-based line number of the field.
func (f Field) Line() int { return f.start + 1 }

// Get returns the value of the first field whose key matches after NormKey.
func (b *Block) Get(key string) (string, bool) {
	n := NormKey(key)
	for _, f := range b.fields {
		if NormKey(f.Key) == n {
			return f.Value, true
		}
	}
	return "", false
}

// Value returns the field's value, or "" when it is absent.
func (b *Block) Value(key string) string {
	v, _ := b.Get(key)
	return v
}

// KV is a key and value to write.
type KV struct{ Key, Value string }

// Set updates fields of the block in place and adds the ones it lacks at the
// end of the block, in the order given.
func (q *Questions) Set(qid string, kvs ...KV) error {
	b := q.Find(qid)
	if b == nil {
		return fmt.Errorf("%s: %w", qid, ErrNoQuestion)
	}
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
		at := b.head + 1
		for i := b.end - 1; i > b.head; i-- {
			if !isBlank(q.d.lines[i].text) {
				at = i + 1
				break
			}
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
	q.index()
	return nil
}

// Append adds a new block at the end of the file, separated by a blank line.
func (q *Questions) Append(qid string, kvs ...KV) {
	q.d.appendBlock("## "+qid, kvs)
	q.index()
}

// AppendRecord appends a "## heading" block of fields to a markdown file, as
// questions.md blocks are written, and returns the new content.
func AppendRecord(b []byte, heading string, kvs ...KV) []byte {
	d := splitDoc(b)
	d.appendBlock("## "+heading, kvs)
	return d.bytes()
}

func (d *doc) appendBlock(heading string, kvs []KV) {
	texts := []string{heading}
	for _, kv := range kvs {
		texts = append(texts, encodeField(kv.Key, kv.Value)...)
	}
	n := len(d.lines)
	if n > 0 && !isBlank(d.lines[n-1].text) {
		texts = append([]string{""}, texts...)
	}
	d.splice(n, n, d.newLines(texts...))
}

// Rename changes the heading of the block that starts at the given 1-based
// line, for doctor's renumbering of duplicate qids.
func (q *Questions) Rename(line int, newQID string) error {
	i := line - 1
	if i < 0 || i >= len(q.d.lines) || questionHeading.FindStringSubmatch(q.d.lines[i].text) == nil {
		return fmt.Errorf("line %d: %w", line, ErrNoQuestion)
	}
	q.d.lines[i].text = "## " + newQID
	q.index()
	return nil
}

// Bytes returns the file's content.
func (q *Questions) Bytes() []byte { return q.d.bytes() }
