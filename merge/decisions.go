package merge

import (
	"bytes"
	"fmt"
	"maps"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// dfile is a decisions.md: text before the first entry, then entries, each
// a "## <qid> <status>" heading at column 0 and the lines up to the next.
type dfile struct {
	text
	pre     []string
	entries []*dentry
}

type dentry struct {
	lines  []string // heading first; the heading's id renamed
	id     string   // the question id the heading names, or ""
	status string
	answer string
	at     string   // answered_at, else the entry before it's
	raised string   // the raise time of its question, when it copied one
	asks   [16]byte // digest of the question text it copied
	norm   [16]byte // digest of the entry's text, normalized: what makes two entries one
	head   string   // its heading line
}

func parseDecisions(b []byte, m map[string]string, r *Renumbering, version int) *dfile {
	f := &dfile{text: splitText(b)}
	start := -1
	flush := func(end int) {
		if start < 0 {
			f.pre = f.lines[:end]
			return
		}
		f.entries = append(f.entries, newEntry(f.lines[start:end], m, f.nl, r, version))
	}
	for _, i := range mdstore.DecisionHeadingLines(b) { // fenced "## " lines are text
		if strings.HasPrefix(body(f.lines[i]), "## ") {
			flush(i)
			start = i
		}
	}
	flush(len(f.lines))
	prev := ""
	for _, e := range f.entries {
		if e.at == "" {
			e.at = prev
		}
		prev = e.at
	}
	return f
}

// newEntry reads an entry, its heading's id as the merged questions.md has
// it: the version's id of its question (an entry a merge left under an
// earlier id of the question's chain moves to the question's id), renamed
// by m.
func newEntry(lines []string, m map[string]string, nl string, r *Renumbering, version int) *dentry {
	e := &dentry{lines: lines}
	head := strings.TrimSpace(strings.TrimPrefix(body(lines[0]), "## "))
	var question string
	if f := strings.Fields(head); len(f) > 0 && qid.Shaped(f[0]) {
		// The fields are read as questions.md's are.
		q := mdstore.ParseQuestions([]byte("## " + f[0] + "\n" + strings.Join(lines[1:], "")))
		if bl := q.Find(f[0]); bl != nil {
			// Copies: the values would keep the entry's whole text.
			v, _ := bl.Peek("answer", "answeredat", "question", "raisedat")
			e.answer, question = strings.Clone(v[0]), strings.Clone(v[2])
			if at := strings.TrimSpace(v[1]); isTime(at) {
				e.at = strings.Clone(at)
			}
			if at := strings.TrimSpace(v[3]); isTime(at) {
				e.raised = strings.Clone(at)
			}
		}
		if to, ok := r.Moved(version, f[0], e.raised, question); ok && question != "" {
			head = to + strings.TrimPrefix(head, f[0])
		}
	}
	if mapped := mapIDs(head, m); mapped != strings.TrimSpace(strings.TrimPrefix(body(lines[0]), "## ")) {
		e.lines = append([]string{"## " + mapped + nl}, lines[1:]...)
		if !hasEOL(lines[0]) {
			e.lines[0] = body(e.lines[0])
		}
		head = mapped
	}
	e.asks = digest(oneSpaced(question))
	if f := strings.Fields(head); len(f) > 0 && qid.Shaped(f[0]) {
		e.id = f[0]
		if len(f) > 1 {
			e.status = f[1]
		}
	}
	e.norm, e.head = digest(normalized(e.lines)), strings.TrimRight(body(e.lines[0]), " \t")
	return e
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
	var data [3][]byte
	for i, v := range vs {
		if data[i], err = v.reread(); err != nil {
			return Result{}, err
		}
	}
	base, ours, theirs := data[0], data[1], data[2]
	b, o, t := parseDecisions(base, mapB, r, Base), parseDecisions(ours, mapO, r, Ours), parseDecisions(theirs, mapT, r, Theirs)
	nl := o.nl
	known := map[[16]byte]bool{}
	for _, e := range append(append([]*dentry(nil), b.entries...), o.entries...) {
		known[e.norm] = true
	}
	var added []*dentry
	clash := map[*dentry]*dentry{} // ours entry → theirs' different decision on its question
	var conflicts []string
	for _, e := range t.entries {
		if known[e.norm] {
			continue
		}
		known[e.norm] = true
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

	var pieces []piece
	pre := o.pre
	if normalized(b.pre) == normalized(o.pre) && normalized(t.pre) != normalized(b.pre) {
		tail := o.pre[len(trimBlankTail(o.pre)):]
		pre = withEOL(trimBlankTail(t.pre), nl)
		if len(tail) > 0 || len(o.entries) > 0 {
			pre = endLine(pre, nl)
		}
		pre = append(pre, tail...)
	}
	pieces = append(pieces, clean(pre))
	entry := func(e *dentry) []string { return endLine(withEOL(trimBlankTail(e.lines), nl), nl) }
	next := 0
	for _, oe := range o.entries {
		for next < len(added) && added[next].at != "" && added[next].at < oe.at {
			pieces = append(pieces, clean(append(entry(added[next]), nl)))
			next++
		}
		if te := clash[oe]; te != nil {
			tail := oe.lines[len(trimBlankTail(oe.lines)):]
			theirs := entry(te)
			if len(tail) == 0 && !hasEOL(oe.lines[len(oe.lines)-1]) {
				theirs[len(theirs)-1] = body(theirs[len(theirs)-1])
			}
			pieces = append(pieces, piece{ours: oe.lines, theirs: append(theirs, tail...)})
			continue
		}
		pieces = append(pieces, clean(oe.lines))
	}
	for ; next < len(added); next++ {
		pieces = breakBefore(pieces, nl)
		pieces = append(pieces, clean(entry(added[next])))
	}
	merged, ro, rt := render(o.bom, nl, pieces, nil)
	type wanted struct {
		n    int
		head string
	}
	wantO, wantT := map[[16]byte]wanted{}, map[[16]byte]wanted{}
	want := func(m map[[16]byte]wanted, e *dentry) { m[e.norm] = wanted{m[e.norm].n + 1, e.head} }
	for _, oe := range o.entries {
		want(wantO, oe)
		if te := clash[oe]; te != nil {
			want(wantT, te)
		} else {
			want(wantT, oe)
		}
	}
	for _, e := range added {
		want(wantO, e)
		want(wantT, e)
	}
	for _, v := range []struct {
		side string
		data []byte
		want map[[16]byte]wanted
	}{{"ours", ro, wantO}, {"theirs", rt, wantT}} {
		if v.side == "theirs" && bytes.Equal(ro, rt) && maps.Equal(wantO, wantT) {
			break // the same check again
		}
		got := map[[16]byte]int{}
		for _, e := range parseDecisions(v.data, nil, nil, Ours).entries {
			got[e.norm]++
		}
		for n, w := range v.want {
			if got[n] < w.n {
				return Result{}, fmt.Errorf("merging decisions.md (%s' side) loses the entry %q", v.side, w.head)
			}
		}
	}
	return Result{Data: merged, Conflicts: conflicts}, nil
}
