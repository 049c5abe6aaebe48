package merge

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// qfile is a questions.md cut into chunks: question blocks, and the text
// outside them.
type qfile struct {
	text
	blocks []*qblock
	chunks []qchunk
	ids    map[string]bool
}

// qchunk is a question block (block != nil) or a stretch of other text.
type qchunk struct {
	block *qblock
	lines []string
	key   string // text: which stretch it is, for the three-way merge
}

// qblock is one question block as a version of the file has it. What
// matching and checking need of every block is read once; the fields are
// decoded from the lines only for the blocks a merge changes (fields),
// so that three versions of a large file are not held decoded.
type qblock struct {
	qid            string
	lines          []string // heading first, up to the next heading that ends it
	ident          ident    // what the question is, across versions
	from           string   // renumbered_from
	raised         string   // raised_at
	status, answer string
	supersedes     bool // has a supersedes field, whose ids a renumbering can change
}

// ident is what a question is across versions: when it was raised, its
// text (white space runs as one space) and its slice.
type ident struct{ raised, question, slice string }

// field is a block's first field of a key: as written, normalised
// (mdstore.NormKey), and its value.
type field struct{ key, norm, value string }

// fields decodes the block's fields from its lines, as mdstore reads them:
// the first field of each key, in order.
func (b *qblock) fields() []field {
	if b == nil {
		return nil
	}
	blocks := mdstore.ParseQuestions([]byte(strings.Join(b.lines, ""))).Blocks()
	if len(blocks) == 0 {
		return nil
	}
	return firstFields(blocks[0])
}

func firstFields(mb *mdstore.Block) []field {
	fs := make([]field, 0, len(mb.Fields()))
	for _, fd := range mb.Fields() {
		n := mdstore.NormKey(fd.Key)
		if !slices.ContainsFunc(fs, func(f field) bool { return f.norm == n }) { // the first of a key counts
			fs = append(fs, field{key: fd.Key, norm: n, value: fd.Value})
		}
	}
	return fs
}

func find(fs []field, norm string) (string, bool) {
	for _, f := range fs {
		if f.norm == norm {
			return f.value, true
		}
	}
	return "", false
}

func value(fs []field, norm string) string {
	v, _ := find(fs, norm)
	return v
}

// parseQuestions reads a questions.md with mdstore's parser and cuts it
// into chunks: its blocks, as mdstore bounds them, and the text between.
// Question register rows (a table) are refused: a row is not a block of
// lines that can be renumbered and merged field by field.
func parseQuestions(name string, b []byte) (*qfile, error) {
	if err := readable(name, b); err != nil {
		return nil, err
	}
	f := &qfile{text: splitText(b), ids: map[string]bool{}}
	// mdstore shares the memory it parses, and so do the fields read from
	// it: b is not changed while the merge runs.
	q := mdstore.ParseQuestions(b)
	at := 0 // next line not yet in a chunk
	texts := map[string]int{}
	addText := func(to int) {
		if to <= at {
			return
		}
		lines := f.lines[at:to]
		key := "\x00prelude"
		if at > 0 || len(f.blocks) > 0 {
			first := strings.TrimSpace(body(lines[0]))
			key = fmt.Sprintf("%s\x00%d", first, texts[first])
			texts[first]++
		}
		f.chunks = append(f.chunks, qchunk{lines: lines, key: key})
		at = to
	}
	for _, mb := range q.Blocks() {
		if mb.Row() {
			return nil, fmt.Errorf("%s: line %d: %s is a row of a question register table, which is not merged question by question", name, mb.Line(), mb.QID)
		}
		head, end := mb.Line()-1, mb.End()
		if head < at || end > len(f.lines) {
			return nil, fmt.Errorf("%s: line %d: question block out of order", name, mb.Line())
		}
		addText(head)
		v, _ := mb.Peek("raisedat", "renumberedfrom", "status", "answer")
		w, has := mb.Peek("question", "slice", "supersedes")
		blk := &qblock{qid: mb.QID, lines: f.lines[head:end], raised: v[0], from: strings.TrimSpace(v[1]),
			status: v[2], answer: v[3], supersedes: has[2]}
		if question := oneSpaced(w[0]); blk.raised != "" || question != "" {
			blk.ident = ident{blk.raised, question, w[1]}
		}
		f.blocks = append(f.blocks, blk)
		f.ids[blk.qid] = true
		f.chunks = append(f.chunks, qchunk{block: blk, lines: blk.lines})
		at = end
	}
	addText(len(f.lines))
	return f, nil
}

// oneSpaced is s with its white space runs as one space and none at
// either end; s itself when it is so already, as a question mostly is.
func oneSpaced(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c != ' ' && asciiSpace(c) || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return s
}

func asciiSpace(c byte) bool {
	return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' '
}

// sameQuestion: two versions of one question, by raised_at, question text
// and slice; blocks without them are the same when their fields are.
func sameQuestion(a, b *qblock) bool {
	if a.ident != (ident{}) || b.ident != (ident{}) {
		return a.ident == b.ident
	}
	return normalized(a.lines[1:]) == normalized(b.lines[1:])
}

// match finds, for each block of base, the block of side that is the same
// question: the same id and question; else the block renumbered from that
// id with the same question (a merge renumbered it); else the same id and
// raised_at (the question's text was edited). Each block of side is
// matched at most once.
func match(base, side *qfile) (baseToSide, sideToBase map[*qblock]*qblock) {
	baseToSide, sideToBase = map[*qblock]*qblock{}, map[*qblock]*qblock{}
	byID, byFrom := map[string][]*qblock{}, map[string][]*qblock{}
	for _, s := range side.blocks {
		byID[s.qid] = append(byID[s.qid], s)
		if s.from != "" {
			byFrom[s.from] = append(byFrom[s.from], s)
		}
	}
	take := func(b *qblock, cands []*qblock, ok func(*qblock) bool) bool {
		for _, s := range cands {
			if sideToBase[s] == nil && ok(s) {
				baseToSide[b], sideToBase[s] = s, b
				return true
			}
		}
		return false
	}
	for _, b := range base.blocks {
		same := func(s *qblock) bool { return sameQuestion(b, s) }
		if take(b, byID[b.qid], same) || take(b, byFrom[b.qid], same) {
			continue
		}
		take(b, byID[b.qid], func(s *qblock) bool {
			r1, r2 := b.raised, s.raised
			return r1 == "" || r2 == "" || r1 == r2
		})
	}
	return baseToSide, sideToBase
}

// Rename is a block of theirs given a new id because ours had its id for
// another question.
type Rename struct{ From, To string }

// Renumbering says which id each version's questions have in the merged
// questions.md. It is a pure function of the three versions of
// questions.md (see Plan), so that every file's merge computes the same.
type Renumbering struct {
	base, ours, theirs map[string]string
	renamed            []Rename
}

// Renamed lists the blocks of theirs that got a new id, in file order.
func (r *Renumbering) Renamed() []Rename {
	if r == nil {
		return nil
	}
	return r.renamed
}

func (r *Renumbering) maps() (base, ours, theirs map[string]string) {
	if r == nil {
		return nil, nil, nil
	}
	return r.base, r.ours, r.theirs
}

// Plan computes the renumbering that merging the three versions of
// questions.md makes. Nil or empty versions are files without questions.
func Plan(base, ours, theirs []byte) (*Renumbering, error) {
	p, err := newPlan(base, ours, theirs)
	if err != nil {
		return nil, err
	}
	return p.r, nil
}

// Merge modes: which version of questions.md the result is.
const (
	general    = iota // blocks from both
	keepOurs          // theirs has nothing new (or is ours)
	keepTheirs        // ours has nothing new
)

// plan is how the blocks of the three versions go together.
type plan struct {
	b, o, t    *qfile
	mode       int
	bOurs      map[*qblock]*qblock // base block → ours
	oBase      map[*qblock]*qblock // ours block → base
	bTheirs    map[*qblock]*qblock
	tBase      map[*qblock]*qblock
	pairs      map[*qblock]pairing // ours block → the theirs block merged into it
	paired     map[*qblock]*qblock // theirs block → the ours block it merged into
	added      []*qblock           // theirs blocks that come after ours, in file order
	outID      map[*qblock]string  // theirs block → its id in the result
	unplaced   map[*qblock]string  // theirs blocks that cannot be given an id: why
	renamed    []Rename
	r          *Renumbering // p.renumbering(), once placed
	mapT, mapB map[string]string
}

type pairing struct {
	t, base *qblock // base is nil when both sides added the question
}

func newPlan(base, ours, theirs []byte) (*plan, error) {
	var err error
	p := &plan{pairs: map[*qblock]pairing{}, paired: map[*qblock]*qblock{}, outID: map[*qblock]string{}, unplaced: map[*qblock]string{}}
	if p.b, err = parseQuestions("base questions.md", base); err != nil {
		return nil, err
	}
	if p.o, err = parseQuestions("our questions.md", ours); err != nil {
		return nil, err
	}
	if p.t, err = parseQuestions("their questions.md", theirs); err != nil {
		return nil, err
	}
	p.bOurs, p.oBase = match(p.b, p.o)
	p.bTheirs, p.tBase = match(p.b, p.t)
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		p.mode = keepOurs
	case bytes.Equal(base, ours):
		p.mode = keepTheirs
	default:
		p.mode = general
		if err := p.place(); err != nil {
			return nil, err
		}
	}
	p.r = p.renumbering()
	p.mapB, _, p.mapT = p.r.maps()
	return p, nil
}

// place pairs theirs' blocks with ours' and gives the others their ids:
// a block both sides changed merges into ours' block; a question both
// sides added (same id or renumbered_from, same question) too; any other
// block of theirs comes after ours, under its own id when ours does not
// use it, else under the next free id of its date, with renumbered_from.
func (p *plan) place() error {
	for _, o := range p.o.blocks {
		if b := p.oBase[o]; b != nil {
			if t := p.bTheirs[b]; t != nil {
				p.pairs[o], p.paired[t] = pairing{t: t, base: b}, o
			}
		}
	}
	var fresh []*qblock
	for _, t := range p.t.blocks {
		if p.paired[t] == nil {
			fresh = append(fresh, t)
		}
	}
	for _, t := range fresh {
		for _, o := range p.o.blocks {
			if _, ok := p.pairs[o]; ok || !sameQuestion(o, t) || !(o.qid == t.qid || o.from == t.qid || t.from == o.qid) {
				continue
			}
			var base *qblock
			if b := p.oBase[o]; b != nil && b == p.tBase[t] {
				base = b
			}
			p.pairs[o], p.paired[t] = pairing{t: t, base: base}, o
			break
		}
	}
	taken := map[string]bool{}
	var all []string
	for _, f := range []*qfile{p.b, p.o, p.t} {
		for _, b := range f.blocks {
			all = append(all, b.qid)
		}
	}
	for id := range p.o.ids {
		taken[id] = true
	}
	for _, t := range fresh {
		if p.paired[t] != nil {
			continue
		}
		p.added = append(p.added, t)
		if !taken[t.qid] {
			p.outID[t], taken[t.qid] = t.qid, true
			continue
		}
		id, err := qid.Parse(t.qid)
		if err != nil {
			p.unplaced[t] = fmt.Sprintf("%s: ours has another question with this id, and %v", t.qid, err)
			continue
		}
		next, err := qid.Next(all, id.Date)
		if err != nil {
			p.unplaced[t] = fmt.Sprintf("%s: ours has another question with this id, and %v", t.qid, err)
			continue
		}
		all = append(all, next)
		p.outID[t], taken[next] = next, true
		p.renamed = append(p.renamed, Rename{From: t.qid, To: next})
	}
	return nil
}

// renumbering derives the id maps from the plan.
func (p *plan) renumbering() *Renumbering {
	r := &Renumbering{base: map[string]string{}, ours: map[string]string{}, theirs: map[string]string{}, renamed: p.renamed}
	set := func(m map[string]string, from, to string) {
		if from != to {
			if _, dup := m[from]; !dup {
				m[from] = to
			}
		}
	}
	switch p.mode {
	case keepOurs:
		for _, t := range p.t.blocks {
			if o := p.bOurs[p.tBase[t]]; o != nil {
				set(r.theirs, t.qid, o.qid)
			}
		}
		for _, b := range p.b.blocks {
			if o := p.bOurs[b]; o != nil {
				set(r.base, b.qid, o.qid)
			}
		}
	case keepTheirs:
		for _, o := range p.o.blocks {
			if t := p.bTheirs[p.oBase[o]]; t != nil {
				set(r.ours, o.qid, t.qid)
			}
		}
		for _, b := range p.b.blocks {
			if t := p.bTheirs[b]; t != nil {
				set(r.base, b.qid, t.qid)
			}
		}
	default:
		for _, t := range p.t.blocks {
			if o := p.paired[t]; o != nil {
				set(r.theirs, t.qid, o.qid)
			} else if id, ok := p.outID[t]; ok {
				set(r.theirs, t.qid, id)
			}
		}
		for _, b := range p.b.blocks {
			if o := p.bOurs[b]; o != nil {
				set(r.base, b.qid, o.qid)
			} else if t := p.bTheirs[b]; t != nil {
				set(r.base, b.qid, r.theirsID(t.qid))
			}
		}
	}
	return r
}

func (r *Renumbering) theirsID(id string) string {
	if to, ok := r.theirs[id]; ok {
		return to
	}
	return id
}
