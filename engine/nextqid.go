package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Picking the id of a new question.

// NextQID is the id the next raise would get. It takes the lock briefly so
// that it does not read a half-finished allocation of another process.
func (e *Engine) NextQID(ctx context.Context) (string, error) {
	// A locked read: it writes nothing, and a broken engine.yaml (which only
	// refuses writes) does not stop it.
	return mdstore.Transact(ctx, e.WS, e.LockTimeout, func(tx *mdstore.Tx) (string, error) {
		w, err := e.load(tx.ReadOptional, true)
		if err != nil {
			return "", err
		}
		if err := e.readable(w); err != nil {
			return "", err
		}
		return e.nextQID(&w.files)
	})
}

// nextQID allocates the id of a new question of today. Besides the blocks
// of questions.md, every id the workspace mentions counts as used: the ones
// state.md's Awaiting and Log sections name and the ones decisions.md
// records. An id once handed out may still be on a person's phone, so a
// questions.md lost or restored from an old copy must not hand it out again.
// So do the ids of the project's other workspaces (otherQIDs): a qid names
// one question in the whole project.
func (e *Engine) nextQID(f *files) (string, error) {
	date := qid.Date(e.Now())
	id, err := nextFree(f, date, e.otherQIDs())
	if err != nil {
		var top usedID
		if used := usedIDs(f); len(used) > 0 {
			top = highest(used, date)
		}
		return "", mdstore.Errorf(ErrMalformed, "%s:%d: %s: %w", e.WS.Path(top.file), top.Line, top.QID, err).
			Hint("a question id of today already has the largest suffix ("+strconv.Itoa(qid.MaxN)+")").Fix(mdstore.RunDoctor, "")
	}
	return id, nil
}

// nextFree is the next id of date that no file of the workspace mentions:
// above the highest that questions.md, the awaited question, decisions.md
// and others (the ids of the project's other workspaces) hold, and past the
// ids the Log names.
func nextFree(f *files, date string, others []string) (string, error) {
	// Of the ids that set the high-water mark, qid.Next needs only the
	// highest of date (the next id is above it, so no other can be it), and
	// of the ids the Log names only those above that: a large workspace
	// mentions tens of thousands of others, and none of them is kept.
	var top string
	high := -1
	above := func(id string) (int, bool) { // the suffix of an id of date above high
		if !strings.Contains(id, date) {
			return 0, false
		}
		p, err := qid.Parse(id)
		return p.N, err == nil && p.Date == date && p.N > high
	}
	hold := func(id string) {
		if n, ok := above(id); ok {
			top, high = id, n
		}
	}
	for _, id := range others {
		hold(id)
	}
	for _, b := range f.questions.Blocks() {
		hold(b.QID)
	}
	for id := range mdstore.DecisionQIDs(f.decisions) {
		hold(id)
	}
	var taken []string
	if f.state != nil {
		awaiting := f.state.AwaitingQID()
		hold(awaiting)
		for m := range f.state.Mentions() {
			if _, ok := above(m.QID); ok && m.QID != awaiting {
				taken = append(taken, m.QID)
			}
		}
	}
	var held []string
	if top != "" {
		held = []string{top}
	}
	return qid.Next(held, taken, date)
}

// usedID is an id the workspace mentions, and where.
type usedID struct {
	mdstore.Mention
	file string
	log  bool // a mention in text (state.md's Log), not a question's own id
}

// usedIDs are the ids nextQID must not hand out, with the file and line of
// each.
func usedIDs(f *files) []usedID {
	blocks := f.questions.Blocks()
	out := make([]usedID, 0, len(blocks)+8)
	for _, b := range blocks {
		out = append(out, usedID{Mention: mdstore.Mention{QID: b.QID, Line: b.Line()}, file: mdstore.QuestionsFile})
	}
	if f.state != nil {
		awaiting := f.state.AwaitingQID()
		for m := range f.state.Mentions() {
			out = append(out, usedID{Mention: m, file: mdstore.StateFile, log: m.QID != awaiting})
		}
	}
	for _, en := range mdstore.DecisionEntries(f.decisions) {
		if id := mdstore.DecisionID(en.Title); id != "" {
			out = append(out, usedID{Mention: mdstore.Mention{QID: id, Line: en.Line}, file: mdstore.DecisionsFile})
		}
	}
	return out
}

// highest is the first mention of the highest id of date.
func highest(used []usedID, date string) usedID {
	var top usedID
	n := -1
	for _, u := range used {
		if id, err := qid.Parse(u.QID); err == nil && id.Date == date && id.N > n {
			top, n = u, id.N
		}
	}
	return top
}

func qids(qs *mdstore.Questions) []string {
	out := make([]string, 0, len(qs.Blocks()))
	for _, b := range qs.Blocks() {
		out = append(out, b.QID)
	}
	return out
}
