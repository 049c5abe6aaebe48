package merge

import (
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// qfile is a version of questions.md: its question blocks, and the
// stretches of text outside them.
type qfile struct {
	version
	bom    bool
	nl     string // the ending new lines get: the file's first, else "\n"
	blocks []*qblock
	texts  []qtext
}

// qtext is a stretch of text outside the blocks.
type qtext struct {
	at    int      // how many blocks come before it
	lines []string // its lines
	key   textKey  // which stretch it is, for the three-way merge
}

// textKey names a stretch of text outside the blocks across versions: by
// its first line (trimmed), and how many stretches before it begin with
// the same line; the text before the first block is the prelude.
type textKey struct {
	first   string
	n       int
	prelude bool
}

// qblock is one question block as a version of the file has it: where it
// is, and what matching and checking need of it (qinfo). Its text is read
// again (fetch) only for the blocks the merge writes or changes, and its
// fields are decoded only where a merge changes it (fields).
type qblock struct {
	*qinfo
	start, end int32  // its bytes in the file (after a byte order mark)
	n          int32  // its place among the version's blocks
	text       string // its bytes, once fetched
}

// qinfo is what is read once of a block's bytes. It depends on them
// alone, so the versions share one for each block they have alike (most
// blocks are alike in all three): a merge keeps one summary of most
// questions, not three.
type qinfo struct {
	qid        string
	sum        [16]byte // of its bytes
	ident      [16]byte // what the question is across versions (identity)
	hasIdent   bool     // else ident is the digest of its lines after the heading, normalized
	from       string   // renumbered_from
	raised     [16]byte // digest of raised_at, or zero
	raisedAt   string   // raised_at, trimmed
	asks       [16]byte // digest of its question text, white space runs as one space
	status     string
	answer     [16]byte // digest of the answer
	supersedes bool     // has a supersedes field, whose ids a renumbering can change
}

// digest is a short SHA-256 of s: equal digests are equal texts.
func digest(s string) [16]byte {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s)))
	return [16]byte(sum[:16])
}

// digestOr0 is s's digest, or zero for "".
func digestOr0(s string) [16]byte {
	if s == "" {
		return [16]byte{}
	}
	return digest(s)
}

// identity is what a question is across versions: when it was raised, its
// text (white space runs as one space) and its slice. Without a raised_at
// and a question it has none (ok is false).
func identity(raised, question, slice string) (id [16]byte, ok bool) {
	if question = oneSpaced(question); raised == "" && question == "" {
		return id, false
	}
	return digest(raised + "\x00" + question + "\x00" + slice), true
}

// lines is the block's text as lines; it must have been fetched.
func (b *qblock) lines() []string { return splitLines(b.text) }

// field is a block's first field of a key: as written, normalised
// (mdstore.NormKey), and its value.
type field struct{ key, norm, value string }

// fields decodes the block's fields from its text, as mdstore reads them:
// the first field of each key, in order.
func (b *qblock) fields() []field {
	if b == nil {
		return nil
	}
	blocks := mdstore.ParseQuestions([]byte(b.text)).Blocks()
	if len(blocks) == 0 {
		return nil
	}
	fs := make([]field, 0, len(blocks[0].Fields()))
	for _, fd := range blocks[0].Fields() {
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

// statuses are the statuses a block is expected to have, shared rather than
// copied for each block.
var statuses = []string{"open", "answered", "dropped", "rejected"}

// own is s as a string of its own, not part of the file it was read from,
// which is not kept.
func own(s string) string {
	if i := slices.Index(statuses, s); i >= 0 {
		return statuses[i]
	}
	return strings.Clone(s)
}

// maxVersion is the largest version merged: a block's offsets are kept in
// 32 bits.
var maxVersion = math.MaxInt32

// parseQuestions reads a version of questions.md with mdstore's parser and
// sums up its blocks, as mdstore bounds them, and the text between.
// Question register rows (a table) are refused: a row is not a block of
// lines that can be renumbered and merged field by field.
//
// infos holds the summaries of the blocks read so far, by the digest of
// their bytes: a block another version has alike shares its summary.
func parseQuestions(name string, src Source, infos map[[16]byte]*qinfo) (*qfile, error) {
	b, err := src.Bytes()
	if err != nil {
		return nil, err
	}
	if err := readable(name, b); err != nil {
		return nil, err
	}
	s, bom, nl := mdstore.Form(view(b))
	if len(b) > maxVersion {
		return nil, fmt.Errorf("%s: too large to merge (%d bytes)", name, len(b))
	}
	f := &qfile{version: version{src: src, name: name, sum: sha256.Sum256(b)}, bom: bom, nl: nl}
	q := mdstore.ParseQuestions(b)
	lines := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		lines++
	}
	at, off := 0, 0 // the next line not yet in a chunk, and where it starts
	span := func(to int) (start, end int) {
		for start = off; at < to; at++ {
			if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
				off += i + 1
			} else {
				off = len(s)
			}
		}
		return start, off
	}
	texts := map[string]int{}
	addText := func(to int) {
		if to <= at {
			return
		}
		key := textKey{prelude: true}
		start, end := span(to)
		if start > 0 || len(f.blocks) > 0 {
			first, _, _ := strings.Cut(s[start:end], "\n")
			first = own(strings.TrimSpace(first))
			key = textKey{first: first, n: texts[first]}
			texts[first]++
		}
		f.texts = append(f.texts, qtext{at: len(f.blocks), lines: ownLines(s[start:end]), key: key})
	}
	mbs := q.Blocks()
	blocks := make([]qblock, len(mbs)) // one allocation, not one a block
	f.blocks = make([]*qblock, 0, len(mbs))
	for i, mb := range mbs {
		if mb.Row() {
			return nil, fmt.Errorf("%s: line %d: %s is a row of a question register table, which is not merged question by question", name, mb.Line(), mb.QID)
		}
		head, end := mb.Line()-1, mb.End()
		if head < at || end > lines {
			return nil, fmt.Errorf("%s: line %d: question block out of order", name, mb.Line())
		}
		addText(head)
		start, stop := span(end)
		sum := digest(s[start:stop])
		info := infos[sum]
		if info == nil {
			info = summary(mb, s[start:stop], sum)
			infos[sum] = info
		}
		blocks[i] = qblock{qinfo: info, start: int32(start), end: int32(stop), n: int32(i)}
		f.blocks = append(f.blocks, &blocks[i])
	}
	addText(lines)
	return f, nil
}

// summary reads what a merge needs of a block, whose bytes are text.
func summary(mb *mdstore.Block, text string, sum [16]byte) *qinfo {
	v, _ := mb.Peek("raisedat", "renumberedfrom", "status", "answer")
	w, has := mb.Peek("question", "slice", "supersedes")
	in := &qinfo{qid: strings.Clone(mb.QID), sum: sum, raised: digestOr0(v[0]), raisedAt: own(strings.TrimSpace(v[0])),
		from: own(strings.TrimSpace(v[1])), status: own(v[2]), answer: digest(v[3]), supersedes: has[2]}
	in.asks = digest(oneSpaced(w[0]))
	if in.ident, in.hasIdent = identity(v[0], w[0], w[1]); !in.hasIdent {
		in.ident = normalized(splitLines(text)[1:])
	}
	return in
}

// blankLines are the text between two blocks, mostly: kept once, not once
// for each block. Their slices are shared, so nothing may write into a
// text's lines (the merge builds new slices where it changes them).
var blankLines = map[string][]string{"\n": {"\n"}, "\r\n": {"\r\n"}, "\n\n": {"\n", "\n"}, "\r\n\r\n": {"\r\n", "\r\n"}}

// ownLines is s's lines, in memory of their own.
func ownLines(s string) []string {
	if lines, ok := blankLines[s]; ok {
		return lines
	}
	return splitLines(strings.Clone(s))
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

// Plan computes the renumbering that merging the three versions of
// questions.md makes. A zero Source, or empty version, is a file without
// questions.
func Plan(base, ours, theirs Source) (*Renumbering, error) {
	return PlanIn(base, ours, theirs, Project{})
}

// records fills in what the merges of the other files look up in the
// renumbering (Moved, Final, Raised); the merge of questions.md itself
// needs none of it.
func (p *plan) records() {
	p.r.final, p.r.raised = map[string]bool{}, map[string]string{}
	for i, f := range []*qfile{p.b, p.o, p.t} {
		for _, blk := range f.blocks {
			for _, id := range splitList(blk.from) {
				if p.r.moved[i] == nil {
					p.r.moved[i] = map[movedKey]string{}
				}
				p.r.moved[i][movedKey{id, "", blk.asks}] = blk.qid
				if blk.raisedAt != "" {
					p.r.moved[i][movedKey{id, blk.raisedAt, blk.asks}] = blk.qid
				}
			}
		}
	}
	sides := []struct {
		f *qfile
		m map[string]string
	}{{p.o, p.r.ours}, {p.t, p.r.theirs}}
	resultID := func(m map[string]string, id string) string {
		if to, ok := m[id]; ok {
			return to
		}
		return id
	}
	for _, side := range sides {
		for _, blk := range side.f.blocks {
			id := resultID(side.m, blk.qid)
			p.r.final[id] = p.r.final[id] || isFinal(blk.status)
		}
	}
	// Only a question that stays open can pause the agent: the raise
	// times of the others are not kept (most questions of a long-lived
	// workspace are final).
	for _, side := range sides {
		for _, blk := range side.f.blocks {
			id := resultID(side.m, blk.qid)
			if _, ok := p.r.raised[id]; !ok && blk.raisedAt != "" && !p.r.final[id] {
				p.r.raised[id] = blk.raisedAt
			}
		}
	}
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
	bOurs      matched // base block → ours
	oBase      matched // ours block → base
	bTheirs    matched
	tBase      matched
	pairs      []pairing          // for each ours block: the theirs block merged into it, if any
	paired     matched            // theirs block → the ours block it merged into
	added      []*qblock          // theirs blocks that come after ours, in file order
	outID      map[*qblock]string // theirs block → its id in the result
	moved      map[*qblock]string // ours block → the id theirs renumbered it to, which the result takes
	unplaced   map[*qblock]string // theirs blocks that cannot be given an id: why
	renamed    []Rename
	reserved   []string     // Project.Reserved
	claimed    []string     // Project.Claimed
	yielded    []Rename     // ours' blocks moved off a claimed id
	r          *Renumbering // p.renumbering(), once placed
	mapT, mapB map[string]string
}

type pairing struct {
	t, base *qblock // base is nil when both sides added the question
}

func newPlan(base, ours, theirs Source, pr Project) (*plan, error) {
	var err error
	p := &plan{outID: map[*qblock]string{}, moved: map[*qblock]string{}, unplaced: map[*qblock]string{}, reserved: pr.Reserved, claimed: pr.Claimed}
	infos := map[[16]byte]*qinfo{}
	for _, v := range []struct {
		f    **qfile
		name string
		src  Source
	}{{&p.b, "base questions.md", base}, {&p.o, "our questions.md", ours}, {&p.t, "their questions.md", theirs}} {
		if *v.f, err = parseQuestions(v.name, v.src, infos); err != nil {
			return nil, err
		}
	}
	p.bOurs, p.oBase = match(p.b, p.o)
	p.bTheirs, p.tBase = match(p.b, p.t)
	switch {
	case p.o.sum == p.t.sum, p.b.sum == p.t.sum:
		p.mode = keepOurs
	case p.b.sum == p.o.sum:
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
	p.pairs, p.paired = make([]pairing, len(p.o.blocks)), make(matched, len(p.t.blocks))
	for _, o := range p.o.blocks {
		if b := p.oBase.of(o); b != nil {
			if t := p.bTheirs.of(b); t != nil {
				p.pairs[o.n], p.paired[t.n] = pairing{t: t, base: b}, o
			}
		}
	}
	var fresh []*qblock
	for _, t := range p.t.blocks {
		if p.paired.of(t) == nil {
			fresh = append(fresh, t)
		}
	}
	for _, t := range fresh {
		for _, o := range p.o.blocks {
			if p.pairs[o.n].t != nil || !sameQuestion(o, t) || !shareID(o, t) {
				continue
			}
			var base *qblock
			if b := p.oBase.of(o); b != nil && b == p.tBase.of(t) {
				base = b
			}
			p.pairs[o.n], p.paired[t.n] = pairing{t: t, base: base}, o
			break
		}
	}
	taken := map[string]bool{}
	var all []string
	for _, f := range []*qfile{p.b, p.o, p.t} {
		for _, b := range f.blocks {
			all = append(all, b.qid)
			taken[b.qid] = taken[b.qid] || f == p.o
			// An id a question of ours had before it was renumbered is
			// still its id in the Log, in decisions and on a person's
			// phone: another question never takes it.
			for _, old := range splitList(b.from) {
				all = append(all, old)
				taken[old] = taken[old] || f == p.o
			}
		}
	}
	// Another workspace's ids are ours' as much as ours' own are.
	reserved := make(map[string]bool, len(p.reserved))
	for _, id := range p.reserved {
		reserved[id] = true
	}
	all = append(all, p.reserved...)
	// A question theirs renumbered away from ours' id (ours' id is in its
	// renumbered_from) takes theirs' id, unless ours uses it: ids only
	// move on along a chain, so clones converge on one id per question
	// instead of renumbering each other's questions back and forth.
	for _, o := range p.o.blocks {
		if pr := p.pairs[o.n]; pr.t != nil && pr.t.qid != o.qid && slices.Contains(splitList(pr.t.from), o.qid) && !taken[pr.t.qid] && !reserved[pr.t.qid] {
			p.moved[o] = pr.t.qid
		}
	}
	for o, id := range p.moved {
		taken[o.qid], taken[id] = false, true
	}
	for id := range reserved {
		taken[id] = true
	}
	all = p.yieldClaimed(all, taken)
	for _, t := range fresh {
		if p.paired.of(t) != nil {
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
		next, err := qid.Next(all, nil, id.Date)
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
