package merge

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// Result is a merged file.
type Result struct {
	// Data is the merged content. Where Conflicts is not empty, it holds
	// conflict markers around what the two sides disagree on.
	Data []byte
	// Conflicts has one line for each real conflict.
	Conflicts []string
	// Renamed lists the blocks of theirs given a new id (questions.md).
	Renamed []Rename
	// Yielded lists the blocks of ours given a new id because another
	// workspace holds theirs on the other side (Project.Claimed).
	Yielded []Rename
}

// Clean reports whether the merge needs no person.
func (r Result) Clean() bool { return len(r.Conflicts) == 0 }

// Question statuses: open, and the final ones.
var final = []string{"answered", "dropped", "rejected"}

func isFinal(status string) bool { return slices.Contains(final, strings.TrimSpace(status)) }

// resolution are the fields a resolution writes, compared as one: which
// side's decision stands.
var resolution = []string{"status", "answeredat", "answer", "choice", "answeredby", "auto"}

// expect is a block the result must hold, with the status and answer (a
// digest) it must have there.
type expect struct {
	qid, status string
	answer      [16]byte
}

// Questions merges three versions of questions.md by question block; see
// the package documentation for the rules.
func Questions(base, ours, theirs Source) (Result, error) {
	return QuestionsIn(base, ours, theirs, Project{})
}

// QuestionsIn is Questions for a workspace of a project of several: see
// Project.
func QuestionsIn(base, ours, theirs Source, pr Project) (Result, error) {
	p, err := newPlan(base, ours, theirs, pr)
	if err != nil {
		return Result{}, err
	}
	switch p.mode {
	case keepOurs:
		return p.o.whole()
	case keepTheirs:
		return p.t.whole()
	}
	if err := p.fetch(); err != nil {
		return Result{}, err
	}
	o := p.o
	nl := o.nl
	n := len(o.blocks) + len(p.added)
	pieces := make([]piece, 0, n+len(o.texts)+len(p.added)+len(p.t.texts))
	wantO, wantT := make([]expect, 0, n), make([]expect, 0, n)
	var conflicts []string
	oursKeys := map[textKey]bool{}
	baseText, theirsText := textChunks(p.b), textChunks(p.t)
	texts := o.texts
	textsBefore := func(i int) { // ours' text between block i-1 and block i
		for ; len(texts) > 0 && texts[0].at == i; texts = texts[1:] {
			oursKeys[texts[0].key] = true
			pieces = append(pieces, clean(mergeText(texts[0], baseText, theirsText, nl)))
		}
	}
	for i, ob := range o.blocks {
		textsBefore(i)
		pr, changes := p.changes(ob)
		if id, ok := p.moved[ob]; ok && pr.t == nil {
			// Moved off an id another workspace holds (Project.Claimed).
			lines, err := renamed(ob.lines(), ob.qid, id, mdstore.KV{Key: "renumbered_from", Value: joinChains(ob.from, ob.qid, id)})
			if err != nil {
				return Result{}, err
			}
			pieces = append(pieces, clean(lines))
			e := expect{id, ob.status, ob.answer}
			wantO, wantT = append(wantO, e), append(wantT, e)
			continue
		}
		if !changes {
			pieces = append(pieces, o.asIs(ob))
			e := expect{ob.qid, ob.status, ob.answer}
			wantO, wantT = append(wantO, e), append(wantT, e)
			continue
		}
		pc, eo, et, why, err := p.mergeBlock(pr.base, ob, pr.t)
		if err != nil {
			return Result{}, err
		}
		pieces = append(pieces, pc)
		wantO, wantT = append(wantO, eo), append(wantT, et)
		conflicts = append(conflicts, why...)
	}
	textsBefore(len(o.blocks))
	for _, t := range p.added {
		lines, err := p.renderAdded(t, nl)
		if err != nil {
			return Result{}, err
		}
		pieces = breakBefore(pieces, nl)
		e := expect{p.outID[t], t.status, t.answer}
		if why, bad := p.unplaced[t]; bad {
			e.qid = t.qid
			pieces = append(pieces, piece{theirs: lines})
			wantT = append(wantT, e)
			conflicts = append(conflicts, why)
			continue
		}
		pieces = append(pieces, clean(lines))
		wantO, wantT = append(wantO, e), append(wantT, e)
	}
	for _, c := range p.t.texts {
		if oursKeys[c.key] {
			continue
		}
		if _, old := baseText[c.key]; old {
			continue // ours removed it
		}
		pieces = breakBefore(pieces, nl)
		pieces = append(pieces, clean(endLine(withEOL(trimBlankTail(c.lines), nl), nl)))
	}
	renamed, yielded := p.renamed, p.yielded // the plan is not held while the result is checked
	r, err := o.src.stream()
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	c := &copier{name: o.name, r: r}
	merged, ro, rt := render(o.bom, nl, pieces, c)
	if c.err != nil {
		return Result{}, c.err
	}
	if err := verify("ours", ro, wantO); err != nil {
		return Result{}, err
	}
	if !bytes.Equal(ro, rt) || !slices.Equal(wantO, wantT) {
		if err := verify("theirs", rt, wantT); err != nil {
			return Result{}, err
		}
	}
	return Result{Data: merged, Conflicts: conflicts, Renamed: renamed, Yielded: yielded}, nil
}

func textChunks(f *qfile) map[textKey][]string {
	m := map[textKey][]string{}
	for _, c := range f.texts {
		m[c.key] = c.lines
	}
	return m
}

// mergeText merges text outside the blocks: ours, unless only theirs
// changed it (or removed it).
func mergeText(c qtext, baseText, theirsText map[textKey][]string, nl string) []string {
	b, inBase := baseText[c.key]
	t, inTheirs := theirsText[c.key]
	if !inBase || normalized(b) != normalized(c.lines) {
		return c.lines
	}
	if !inTheirs {
		return nil
	}
	if normalized(t) == normalized(b) {
		return c.lines
	}
	tail := c.lines[len(trimBlankTail(c.lines)):]
	lines := withEOL(trimBlankTail(t), nl)
	if len(tail) > 0 {
		lines = endLine(lines, nl)
	}
	return append(lines, tail...)
}

// endLine gives the last line an ending when it has none.
func endLine(lines []string, nl string) []string {
	if n := len(lines); n > 0 && !hasEOL(lines[n-1]) {
		lines = append(slices.Clone(lines[:n-1]), lines[n-1]+nl)
	}
	return lines
}

// breakBefore ends the text so far with a line ending and a blank line, so
// that a block can follow.
func breakBefore(pieces []piece, nl string) []piece {
	last := func(side func(piece) []string) string {
		for i := len(pieces) - 1; i >= 0; i-- {
			if l := side(pieces[i]); len(l) > 0 {
				return lastLine(l[len(l)-1]) // an element may hold a block's lines
			}
		}
		return ""
	}
	for i := len(pieces) - 1; i >= 0; i-- {
		pc := &pieces[i]
		if len(pc.ours) == 0 && len(pc.theirs) == 0 {
			continue
		}
		same := !pc.conflicted()
		pc.ours = endLine(pc.ours, nl)
		if same {
			pc.theirs = pc.ours
		} else {
			pc.theirs = endLine(pc.theirs, nl)
		}
		break
	}
	if len(pieces) == 0 {
		return pieces
	}
	lo, lt := last(func(p piece) []string { return p.ours }), last(func(p piece) []string { return p.theirs })
	if !isBlankLine(lo) || !isBlankLine(lt) {
		pieces = append(pieces, clean([]string{nl}))
	}
	return pieces
}

// changes reports whether the merge changes ours' block o, and with which
// versions of its question: theirs' (under another id, or changed other
// than as ours), and the base's.
func (p *plan) changes(o *qblock) (pairing, bool) {
	pr := p.pairs[o.n]
	return pr, pr.t != nil && (pr.t.qid != o.qid || !unchanged(pr.base, o, pr.t))
}

// unchanged reports, without decoding them, that merging theirs' version
// of a question into ours' changes nothing: theirs is ours, or the base
// (so only ours changed it), and no supersedes field can be renumbered.
func unchanged(base, o, t *qblock) bool {
	if o.supersedes || t.supersedes || base != nil && base.supersedes {
		return false
	}
	return t.sum == o.sum || base != nil && t.sum == base.sum
}

// mergeBlock merges the versions of one question into ours' block.
func (p *plan) mergeBlock(base, o, t *qblock) (pc piece, eo, et expect, conflicts []string, err error) {
	kvO, kvT, conflicts := mergeFields(base, o, t, p.mapB, p.mapT)
	linesO := o.lines()
	linesT := linesO
	if len(kvO) > 0 {
		if linesO, err = setFields(o, kvO); err != nil {
			return pc, eo, et, nil, err
		}
	}
	switch {
	case len(kvT) > 0 && slices.Equal(kvT, kvO):
		linesT = linesO // no conflict: both sides end the same
	case len(kvT) > 0:
		if linesT, err = setFields(o, kvT); err != nil {
			return pc, eo, et, nil, err
		}
	}
	if t.qid != o.qid {
		// One question under two ids: the chain holds every id it has had,
		// and the block takes theirs' id when it moved on to it.
		id := p.oursID(o)
		chain := mdstore.KV{Key: "renumbered_from", Value: joinChains(joinChains(joinChains(o.from, t.from, ""), o.qid, id), t.qid, id)}
		for _, lines := range []*[]string{&linesO, &linesT} {
			if *lines, err = renamed(*lines, o.qid, id, chain); err != nil {
				return pc, eo, et, nil, err
			}
		}
		if len(kvT) == 0 {
			linesT = linesO
		}
	}
	after := func(kvs []mdstore.KV) expect {
		e := expect{p.oursID(o), o.status, o.answer}
		for _, kv := range kvs {
			switch mdstore.NormKey(kv.Key) {
			case "status":
				e.status = kv.Value
			case "answer":
				e.answer = digest(kv.Value)
			}
		}
		return e
	}
	return piece{ours: linesO, theirs: linesT}, after(kvO), after(kvT), conflicts, nil
}

// renamed is a block's lines under the id to (it had from), with the
// field kv set.
func renamed(lines []string, from, to string, kv mdstore.KV) ([]string, error) {
	q := mdstore.ParseQuestions([]byte(strings.Join(lines, "")))
	if from != to {
		if err := q.Rename(1, to); err != nil {
			return nil, err
		}
	}
	if err := q.Set(to, kv); err != nil {
		return nil, err
	}
	return splitText(q.Bytes()).lines, nil
}

// setFields writes fields into a copy of a block, as the engine does.
func setFields(b *qblock, kvs []mdstore.KV) ([]string, error) {
	q := mdstore.ParseQuestions([]byte(b.text))
	if err := q.Set(b.qid, kvs...); err != nil {
		return nil, err
	}
	return splitText(q.Bytes()).lines, nil
}

// mergeFields merges a question's fields against the base (nil when both
// sides added it). It returns the fields to write into ours' block for the
// result, with ours' side of any conflict (kvO) and with theirs' (kvT).
//
// The fields of a resolution go together: a final status beats open, and
// two different final statuses or answers are a conflict. Other fields
// merge one by one: reminded_at keeps the later time, renumbered_from
// ours; any other field changed differently on both sides is a conflict.
// A field one side removed is kept.
func mergeFields(base, o, t *qblock, mapB, mapT map[string]string) (kvO, kvT []mdstore.KV, conflicts []string) {
	type val struct {
		v  string
		ok bool
	}
	fB, fO, fT := base.fields(), o.fields(), t.fields()
	fieldsOf := map[*qblock][]field{base: fB, o: fO, t: fT} // base may be nil
	get := func(b *qblock, n string, m map[string]string) val {
		v, ok := find(fieldsOf[b], n)
		if n == "supersedes" {
			v = mapIDs(v, m)
		}
		return val{v, ok}
	}
	keyOf := func(n string) string {
		for _, fs := range [][]field{fO, fT} {
			for _, f := range fs {
				if f.norm == n {
					return f.key
				}
			}
		}
		return n
	}
	both := func(n, v string) {
		kv := mdstore.KV{Key: keyOf(n), Value: v}
		kvO, kvT = append(kvO, kv), append(kvT, kv)
	}
	group := func(b *qblock, m map[string]string) []val {
		out := make([]val, len(resolution))
		for i, n := range resolution {
			out[i] = get(b, n, m)
		}
		return out
	}
	gB, gO, gT := group(base, mapB), group(o, nil), group(t, mapT)
	takeTheirs := func(into func(string, string)) {
		for i, n := range resolution {
			if gT[i].ok && gT[i] != gO[i] {
				into(n, gT[i].v)
			}
		}
	}
	switch so, st := gO[0].v, gT[0].v; {
	case slices.Equal(gO, gT), slices.Equal(gT, gB):
	case slices.Equal(gO, gB):
		takeTheirs(both)
	case isFinal(so) && !isFinal(st):
	case isFinal(st) && !isFinal(so):
		takeTheirs(both)
	case isFinal(so) && so == st && gO[2] == gT[2]:
		// The same decision on both sides; ours' record of it stands.
	default:
		what := "resolved differently on both sides"
		if so == st && isFinal(so) {
			what = so + " differently on both sides"
		} else if isFinal(so) && isFinal(st) {
			what = "ours " + strings.TrimSpace(so) + ", theirs " + strings.TrimSpace(st)
		}
		conflicts = append(conflicts, fmt.Sprintf("%s: %s (ours %s, theirs %s)", o.qid, what, describe(gO[2].v), describe(gT[2].v)))
		takeTheirs(func(n, v string) { kvT = append(kvT, mdstore.KV{Key: keyOf(n), Value: v}) })
	}
	var keys []string
	for _, fs := range [][]field{fO, fT} {
		for _, f := range fs {
			if !slices.Contains(keys, f.norm) && !slices.Contains(resolution, f.norm) {
				keys = append(keys, f.norm)
			}
		}
	}
	for _, n := range keys {
		vb, vo, vt := get(base, n, mapB), get(o, n, nil), get(t, n, mapT)
		switch {
		case vo == vt, vt == vb, !vt.ok:
		case vo == vb:
			both(n, vt.v)
		case n == "remindedat":
			if vt.v > vo.v {
				both(n, vt.v)
			}
		case n == "renumberedfrom":
			both(n, joinChains(vo.v, vt.v, o.qid))
		case n == "responses":
			if v, ok := unionResponses(vb.v, vo.v, vt.v); ok {
				if v != vo.v {
					both(n, v)
				}
				continue
			}
			fallthrough
		default:
			conflicts = append(conflicts, fmt.Sprintf("%s: field %q changed differently on both sides (ours %s, theirs %s)", o.qid, keyOf(n), describe(vo.v), describe(vt.v)))
			kvT = append(kvT, mdstore.KV{Key: keyOf(n), Value: vt.v})
		}
	}
	return kvO, kvT, conflicts
}

// renderAdded is a block of theirs as it goes at the end of the result:
// in ours' line endings, under its new id with renumbered_from when it was
// renumbered, its supersedes following the renumbering.
func (p *plan) renderAdded(t *qblock, nl string) ([]string, error) {
	lines := endLine(withEOL(trimBlankTail(t.lines()), nl), nl)
	id, ok := p.outID[t]
	if !ok {
		return lines, nil
	}
	var kvs []mdstore.KV
	if id != t.qid {
		kvs = append(kvs, mdstore.KV{Key: "renumbered_from", Value: joinChains(t.from, t.qid, id)})
	}
	if sup, ok := find(t.fields(), "supersedes"); ok && mapIDs(sup, p.mapT) != sup {
		kvs = append(kvs, mdstore.KV{Key: "supersedes", Value: mapIDs(sup, p.mapT)})
	}
	if len(kvs) == 0 {
		return lines, nil
	}
	q := mdstore.ParseQuestions([]byte(strings.Join(lines, "")))
	if id != t.qid {
		if err := q.Rename(1, id); err != nil {
			return nil, err
		}
	}
	if err := q.Set(id, kvs...); err != nil {
		return nil, err
	}
	return endLine(splitText(q.Bytes()).lines, nl), nil
}

// verify checks that a merged questions.md holds exactly the blocks it
// must, each with the status and answer it must have: nothing swallowed by
// a fence, nothing lost, nothing doubled.
func verify(side string, data []byte, want []expect) error {
	blocks := mdstore.ParseQuestions(data).Blocks()
	if len(blocks) != len(want) {
		return fmt.Errorf("merging questions.md (%s' side) gives %d question blocks, want %d", side, len(blocks), len(want))
	}
	byID := map[string][]int{}
	for i, b := range blocks {
		byID[b.QID] = append(byID[b.QID], i)
	}
	used := make([]bool, len(blocks))
	for _, w := range want {
		found := false
		for _, i := range byID[w.qid] {
			if v, _ := blocks[i].Peek("status", "answer"); !used[i] && v[0] == w.status && digest(v[1]) == w.answer {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return fmt.Errorf("merging questions.md (%s' side) loses %s (status %q)", side, w.qid, w.status)
		}
	}
	return nil
}
