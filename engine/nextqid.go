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
		if err := e.readable(w, scanBlocks(w.Questions)); err != nil {
			return "", err
		}
		return e.nextQID(&w.Files)
	})
}

// nextQID allocates the id of a new question of today. Besides the blocks
// of questions.md, every id the workspace mentions counts as used: the ones
// state.md's Awaiting and Log sections name and the ones decisions.md
// records. An id once handed out may still be on a person's phone, so a
// questions.md lost or restored from an old copy must not hand it out again.
// So do the ids of the project's other workspaces (OtherQIDs): a qid names
// one question in the whole project.
func (e *Engine) nextQID(f *Files) (string, error) {
	date := qid.Date(e.Now())
	id, top, err := nextFree(f, date, e.OtherQIDs())
	if err != nil {
		return "", mdstore.Errorf(ErrMalformed, "%s:%d: %s: %w", e.WS.Path(top.file), top.Line, top.QID, err).
			Hint("a question id of today already has the largest suffix ("+strconv.Itoa(qid.MaxN)+")").Fix(mdstore.RunDoctor, "")
	}
	return id, nil
}

// RenumberedID is the id that question old of f takes when doctor
// renumbers it: the next id of its date that no file of f mentions, nor
// others (the ids of the project's other workspaces, OtherQIDs). old is a
// valid id; when its date's ids have run out the error is ErrMalformed,
// naming old.
func RenumberedID(f *Files, old string, others []string) (string, error) {
	id, _ := qid.Parse(old)
	next, _, err := nextFree(f, id.Date, others)
	if err != nil {
		return "", mdstore.Errorf(ErrMalformed, "renumbering %s: %w", old, err)
	}
	return next, nil
}

// mention is where a file of the workspace names a question id.
type mention struct {
	mdstore.Mention
	file string
}

// nextFree is the next id of date that no file of the workspace mentions:
// above the highest that questions.md, the awaited question, decisions.md
// and others (the ids of the project's other workspaces) hold, and past the
// ids the Log names. top is the first mention of the highest id of date in
// questions.md, state.md and decisions.md, in that order: the id to name
// when the day's ids run out.
func nextFree(f *Files, date string, others []string) (next string, top mention, err error) {
	// Of the ids that set the high-water mark, qid.Next needs only the
	// highest of date (the next id is above it, so no other can be it), and
	// of the ids the Log names only those above the highest held so far: a
	// large workspace mentions tens of thousands of others, and none of them
	// is kept. decisions.md comes after state.md so that top names a tie of
	// the two in state.md.
	var held string
	high, topN := -1, -1
	suffix := func(id string) (int, bool) { // the suffix of an id of date
		if !strings.Contains(id, date) {
			return 0, false
		}
		p, err := qid.Parse(id)
		return p.N, err == nil && p.Date == date
	}
	hold := func(id string, n int) {
		if n > high {
			held, high = id, n
		}
	}
	note := func(file string, m mdstore.Mention, n int) {
		if n > topN {
			top, topN = mention{Mention: m, file: file}, n
		}
	}
	for _, id := range others {
		if n, ok := suffix(id); ok {
			hold(id, n)
		}
	}
	for _, b := range f.Questions.Blocks() {
		if n, ok := suffix(b.QID); ok {
			hold(b.QID, n)
			note(mdstore.QuestionsFile, mdstore.Mention{QID: b.QID, Line: b.Line()}, n)
		}
	}
	var taken []string
	if f.State != nil {
		awaiting := f.State.AwaitingQID()
		if n, ok := suffix(awaiting); ok {
			hold(awaiting, n)
		}
		for m := range f.State.Mentions() {
			if n, ok := suffix(m.QID); ok {
				note(mdstore.StateFile, m, n)
				if n > high && m.QID != awaiting {
					taken = append(taken, m.QID)
				}
			}
		}
	}
	for _, b := range mdstore.DecisionBlocks(f.Decisions) {
		id := mdstore.DecisionID(b.QID)
		if n, ok := suffix(id); ok {
			hold(id, n)
			note(mdstore.DecisionsFile, mdstore.Mention{QID: id, Line: b.Line()}, n)
		}
	}
	var existing []string
	if held != "" {
		existing = []string{held}
	}
	next, err = qid.Next(existing, taken, date)
	return next, top, err
}
