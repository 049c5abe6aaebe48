package merge

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// dfile is a decisions.md: text before the first entry, then entries, each
// a "## <qid> <status>" heading at column 0 and the lines up to the next.
type dfile struct {
	bom     bool
	nl      string // the ending new lines get: the file's first, else "\n"
	s       string // its text (after a byte order mark)
	pre     []string
	heads   []dhead   // until the entries are read (eachEntry)
	entries []*dentry // when parsed (parseDecisions)
}

// dhead is an entry's heading: its block (for its fields) and where its
// line starts in the text.
type dhead struct {
	bl *mdstore.Block
	at int
}

// dentry is an entry: its text is its bytes, one string (not split into
// lines, which for ten thousand entries would cost more than the text).
type dentry struct {
	text   string // heading first; the heading's id renamed
	from   int    // where text is in the file (to its end, to); -1 when the heading was renamed
	to     int
	id     string // the question id the heading names, or ""
	status string
	answer string
	at     string   // answered_at, else the entry before it's
	raised string   // the raise time of its question, when it copied one
	asks   [16]byte // digest of the question text it copied
	norm   [16]byte // digest of the entry's text, normalized: what makes two entries one
	head   string   // its heading line
}

func (e *dentry) lines() []string { return splitLines(e.text) }

// splitDecisions finds the entries' headings of decisions.md (fenced "## "
// lines are text).
func splitDecisions(b []byte) *dfile {
	s, bom, nl := mdstore.Form(view(b))
	f := &dfile{bom: bom, nl: nl, s: s}
	line, off := 0, 0 // off is where line starts
	for _, bl := range mdstore.DecisionBlocks(b) {
		for ; line < bl.Line()-1; line++ {
			if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
				off += i + 1
			} else {
				off = len(s)
			}
		}
		if strings.HasPrefix(s[off:], "## ") {
			f.heads = append(f.heads, dhead{bl, off})
		}
	}
	pre := len(s)
	if len(f.heads) > 0 {
		pre = f.heads[0].at
	}
	f.pre = splitLines(s[:pre])
	return f
}

// eachEntry reads the entries in file order, giving each to visit. The
// entry given is read over for the next one, and its strings share the
// file's bytes: a caller that keeps it keeps a copy (own).
func (f *dfile) eachEntry(m map[string]string, r *Renumbering, version int, visit func(*dentry)) {
	var e dentry
	prev := ""
	for i, h := range f.heads {
		end := len(f.s)
		if i+1 < len(f.heads) {
			end = f.heads[i+1].at
		}
		e = dentry{from: h.at, to: end}
		e.read(f.s[h.at:end], h.bl, m, f.nl, r, version)
		if e.at == "" {
			e.at = prev
		}
		prev = e.at
		visit(&e)
	}
	f.heads = nil
}

// parseDecisions reads decisions.md whole, its entries sharing b.
func parseDecisions(b []byte, m map[string]string, r *Renumbering, version int) *dfile {
	f := splitDecisions(b)
	entries := make([]dentry, 0, len(f.heads)) // one allocation, not one an entry
	f.eachEntry(m, r, version, func(e *dentry) { entries = append(entries, *e) })
	f.entries = make([]*dentry, len(entries))
	for i := range entries {
		f.entries[i] = &entries[i]
	}
	return f
}

// read reads an entry (its text, and its heading's block for its
// fields), its heading's id as the merged questions.md has it: the
// version's id of its question (an entry a merge left under an earlier id
// of the question's chain moves to the question's id), renamed by m. Its
// strings share the file's bytes (own copies them).
func (e *dentry) read(text string, bl *mdstore.Block, m map[string]string, nl string, r *Renumbering, version int) {
	e.text = text
	first, rest := text, ""
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		first, rest = text[:i+1], text[i+1:]
	}
	head := strings.TrimSpace(strings.TrimPrefix(body(first), "## "))
	var question string
	if f := strings.Fields(head); len(f) > 0 && qid.Shaped(f[0]) {
		v, _ := bl.Peek("answer", "answeredat", "question", "raisedat")
		e.answer, question = v[0], v[2]
		if at := strings.TrimSpace(v[1]); isTime(at) {
			e.at = at
		}
		if at := strings.TrimSpace(v[3]); isTime(at) {
			e.raised = at
		}
		if to, ok := r.Moved(version, f[0], e.raised, question); ok && question != "" {
			head = to + strings.TrimPrefix(head, f[0])
		}
	}
	if mapped := mapIDs(head, m); mapped != strings.TrimSpace(strings.TrimPrefix(body(first), "## ")) {
		renamed := "## " + mapped
		if hasEOL(first) {
			renamed += nl
		}
		e.text, e.from, head, first = renamed+rest, -1, mapped, renamed
	}
	e.asks = digest(oneSpaced(question))
	if f := strings.Fields(head); len(f) > 0 && qid.Shaped(f[0]) {
		e.id = f[0]
		if len(f) > 1 {
			e.status = f[1]
		}
	}
	e.norm, e.head = normalized(e.lines()), strings.TrimRight(body(first), " \t")
}

// own is the entry in memory of its own, not of the file it was read from.
func (e *dentry) own() *dentry {
	c := *e
	for _, s := range []*string{&c.text, &c.id, &c.status, &c.answer, &c.at, &c.raised, &c.head} {
		*s = strings.Clone(*s)
	}
	return &c
}

// sameQuestion: two entries copied one question (mdstore.SameAsking).
func (e *dentry) sameQuestion(o *dentry) bool {
	return mdstore.SameAsking(e.asks, e.raised, o.asks, o.raised)
}

// Decisions merges three versions of decisions.md: the entries of both, in
// time order (answered_at), each once; the text before the first entry is
// ours unless only theirs changed it. Two different decisions on one
// question are a conflict. r renames theirs' question ids as the merged
// questions.md has them.
func Decisions(baseSrc, oursSrc, theirsSrc Source, r *Renumbering) (Result, error) {
	mapB, mapO, mapT := r.maps()
	vs, res, done, err := settled("decisions.md", baseSrc, oursSrc, theirsSrc, mapO, mapT)
	if done {
		return res, err
	}
	// One version at a time, so that the base and theirs are not held
	// beside ours: of the base the merge keeps the digests of its entries
	// and of its text before them; of theirs the entries the base lacks
	// (those ours has too are left out once ours is read), and its text
	// before them.
	known := map[[16]byte]bool{}
	data, err := vs[0].reread()
	if err != nil {
		return Result{}, err
	}
	b := splitDecisions(data)
	b.eachEntry(mapB, r, Base, func(e *dentry) { known[e.norm] = true })
	basePre := normalized(b.pre)
	if data, err = vs[2].reread(); err != nil {
		return Result{}, err
	}
	t := splitDecisions(data)
	var fresh []*dentry
	t.eachEntry(mapT, r, Theirs, func(e *dentry) {
		if !known[e.norm] {
			known[e.norm] = true
			fresh = append(fresh, e.own())
		}
	})
	theirsPre, tPre := normalized(t.pre), splitLines(strings.Join(t.pre, "")) // a copy
	if data, err = vs[1].reread(); err != nil {
		return Result{}, err
	}
	o := parseDecisions(data, mapO, r, Ours)
	nl := o.nl
	inOurs := map[[16]byte]bool{} // of theirs' entries' digests: whether ours has it too
	for _, e := range fresh {
		inOurs[e.norm] = false
	}
	for _, e := range o.entries {
		if _, ok := inOurs[e.norm]; ok {
			inOurs[e.norm] = true
		}
	}
	var added []*dentry
	clash := map[*dentry]*dentry{} // ours entry → theirs' different decision on its question
	var conflicts []string
	for _, e := range fresh {
		if inOurs[e.norm] {
			continue
		}
		var same *dentry
		if e.id != "" {
			for _, oe := range o.entries {
				if oe.id == e.id && oe.sameQuestion(e) { // another question's entry under its id is not its decision
					same = oe
					break
				}
			}
		}
		switch {
		case same == nil:
			added = append(added, e)
		case same.status == e.status && same.answer == e.answer:
			// The same decision written twice: ours' record stands.
		case clash[same] == nil:
			clash[same] = e
			conflicts = append(conflicts, fmt.Sprintf("decisions.md: %s decided differently on both sides (ours %s %s, theirs %s %s)",
				e.id, same.status, describe(same.answer), e.status, describe(e.answer)))
		default:
			added = append(added, e)
		}
	}

	// What the result must hold on each side, counted before it is
	// written: ours' entries are not held while it is written and
	// checked, only ours' text.
	wantO := wants(o.entries, added, nil)
	wantT := wantO
	if len(clash) > 0 {
		wantT = wants(o.entries, added, clash)
	}
	var pieces []piece
	pre := o.pre
	if basePre == normalized(o.pre) && theirsPre != basePre {
		tail := o.pre[len(trimBlankTail(o.pre)):]
		pre = withEOL(trimBlankTail(tPre), nl)
		if len(tail) > 0 || len(o.entries) > 0 {
			pre = endLine(pre, nl)
		}
		pre = append(pre, tail...)
	}
	pieces = append(pieces, clean(pre))
	entry := func(e *dentry) []string { return endLine(withEOL(trimBlankTail(e.lines()), nl), nl) }
	// Ours' entries that the result has as they are go in runs, each one
	// stretch of ours' text.
	run := [2]int{-1, -1}
	endRun := func() {
		if run[0] >= 0 {
			pieces = append(pieces, clean([]string{o.s[run[0]:run[1]]}))
			run[0] = -1
		}
	}
	next := 0
	for _, oe := range o.entries {
		for next < len(added) && added[next].at != "" && added[next].at < oe.at {
			endRun()
			pieces = append(pieces, clean(append(entry(added[next]), nl)))
			next++
		}
		te := clash[oe]
		if te == nil && oe.from >= 0 {
			if run[0] < 0 {
				run[0] = oe.from
			}
			run[1] = oe.to
			continue
		}
		endRun()
		if te != nil {
			ours := oe.lines()
			tail := ours[len(trimBlankTail(ours)):]
			theirs := entry(te)
			if len(tail) == 0 && !hasEOL(oe.text) {
				theirs[len(theirs)-1] = body(theirs[len(theirs)-1])
			}
			pieces = append(pieces, piece{ours: ours, theirs: append(theirs, tail...)})
			continue
		}
		pieces = append(pieces, clean([]string{oe.text})) // its lines as one
	}
	endRun()
	for ; next < len(added); next++ {
		pieces = breakBefore(pieces, nl)
		pieces = append(pieces, clean(entry(added[next])))
	}
	merged, ro, rt := render(o.bom, nl, pieces, nil)
	for _, v := range []struct {
		side string
		data []byte
		want map[[16]byte]wanted
	}{{"ours", ro, wantO}, {"theirs", rt, wantT}} {
		if v.side == "theirs" && bytes.Equal(ro, rt) && maps.Equal(wantO, wantT) {
			break // the same check again
		}
		got := map[[16]byte]int{}
		splitDecisions(v.data).eachEntry(nil, nil, Ours, func(e *dentry) { got[e.norm]++ })
		var lost []string
		for n, w := range v.want {
			if got[n] < w.n {
				lost = append(lost, w.head)
			}
		}
		if len(lost) > 0 {
			return Result{}, fmt.Errorf("merging decisions.md (%s' side) loses the entry %q", v.side, slices.Min(lost))
		}
	}
	return Result{Data: merged, Conflicts: conflicts}, nil
}

// wanted is how many entries of a text the result must have, and the
// heading of one (a copy), to say which is lost.
type wanted struct {
	n    int
	head string
}

// wants counts the entries the result must have: ours' (where theirs'
// different decision stands instead, in clash, that one) and the added.
func wants(ours, added []*dentry, clash map[*dentry]*dentry) map[[16]byte]wanted {
	m := map[[16]byte]wanted{}
	want := func(e *dentry) {
		if w, ok := m[e.norm]; ok {
			w.n++
			m[e.norm] = w
			return
		}
		m[e.norm] = wanted{1, strings.Clone(e.head)}
	}
	for _, oe := range ours {
		if te := clash[oe]; te != nil {
			want(te)
		} else {
			want(oe)
		}
	}
	for _, e := range added {
		want(e)
	}
	return m
}
