package mdstore

import (
	"github.com/devrites/devrites-engine/qid"
)

// walker builds the block list of one index, in file order.
type walker struct {
	q      *Questions
	fenced []bool // nil: no fenced code
	cur    *Block // the heading block that is open
	reg    int    // first line of an open register section, or -1
	slab   []Block
	// seen counts the blocks of each qid so far, for their nth. It is made
	// only once a qid comes that is not past every qid before it (see
	// later), which in the engine's own files, where each new qid is the
	// next, is never.
	seen map[string]int
	last string // the latest qid so far, while seen is nil
	at   int    // the byte offset of the heading looked at (lazyHeadings)
}

func (q *Questions) walker(fenced []bool) *walker {
	// A new slice: one a caller holds keeps its blocks. The engine writes a
	// block in about seventeen lines: room for as many blocks from the
	// start saves growing the list and the map of ids.
	est := q.d.count() / 16
	q.blocks = make([]*Block, 0, est)
	return &walker{q: q, fenced: fenced, reg: -1, slab: make([]Block, 0, min(est+1, slabSize))}
}

// slabSize is how many blocks add allocates at once.
const slabSize = 256

// add appends a block, allocated in chunks rather than one at a time (the
// first chunk as large as the file needs, for a small one).
func (w *walker) add(b Block) *Block {
	if len(w.slab) == cap(w.slab) {
		w.slab = make([]Block, 0, slabSize)
	}
	b.q, b.gen, b.off = w.q, w.q.gen, w.at
	if w.seen == nil && later(b.QID, w.last) {
		w.last = b.QID // past every qid before it: the first of its qid
	} else {
		if w.seen == nil {
			w.seen = make(map[string]int, cap(w.q.blocks))
			for _, p := range w.q.blocks {
				w.seen[p.QID]++
			}
		}
		b.nth = w.seen[b.QID]
		w.seen[b.QID]++
	}
	w.slab = append(w.slab, b)
	p := &w.slab[len(w.slab)-1]
	w.q.blocks = append(w.q.blocks, p)
	return p
}

// later reports whether qid a comes after b in the order of length, then
// bytes ("q-2026-11-29-999" before "q-2026-11-29-1000"): every qid comes
// after "".
func later(a, b string) bool {
	return len(a) > len(b) || len(a) == len(b) && a > b
}

// heading handles a column-0 level-1 or level-2 heading outside fenced
// code at line i: it ends the block or register before it, and starts the
// one it heads, if any.
func (w *walker) heading(i, lvl int, t string) {
	w.close(i)
	if lvl != 2 {
		return
	}
	if w.q.ledger {
		w.cur = w.add(Block{QID: headingTitle(t), head: i})
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

// finish ends the walk at line i, the end of the file, and pairs the
// register rows with the blocks of the same ids.
func (w *walker) finish(i int) {
	w.close(i)
	w.q.pairRows()
}

// close ends the open block or register section at line i.
func (w *walker) close(i int) {
	if w.cur != nil {
		w.cur.end, w.cur.endOff = i, w.at
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
	lines := w.q.d.all()
	fenced := func(i int) bool { return w.fenced != nil && w.fenced[i] }
	for i := from; i+1 < to; i++ {
		if fenced(i) || fenced(i+1) || !IsRow(lines[i].text) || !isDelimiterRow(lines[i+1].text) {
			continue
		}
		reg := header(lines[i].text)
		j := i + 2
		for ; j < to && !fenced(j) && IsRow(lines[j].text); j++ {
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
