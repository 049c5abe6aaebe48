package engine

import (
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Pauses: the question the cursor awaits, and those queued behind it in
// awaiting_next (a merge of two clones paused at once leaves one pause and
// queues the other, docs/git.md).

// stillAwaited is the qid the cursor awaits when that question is still
// open, with the command that answers it; "" when there is none.
func (e *Engine) stillAwaited(f *Files) (string, string) {
	b := awaitedOpen(f)
	if b == nil {
		q := e.queuedPause(f)
		if q == nil {
			return "", ""
		}
		e.pauseUnder(f, *q, "pause moves to "+q.QID+" (queued in awaiting_next)")
		b = f.Questions.Find(q.QID)
	}
	return b.QID, e.resumeAction(f.State, b.QID, b.Value("slice"))
}

// resumeAction is the command that answers the question id (of slice), in
// the cursor's phase.
func (e *Engine) resumeAction(s *mdstore.State, id, slice string) string {
	phase, _ := s.Get("phase")
	return config.Expand(e.Templates.Resume, id, phase, slice)
}

// resolveAwaited is the command that answers the question the cursor
// awaits while it is open, or "".
func (e *Engine) resolveAwaited(f *Files) string {
	if q := e.awaitedQuestion(f); q != nil {
		return e.ResolveCommand(*q)
	}
	return ""
}

// awaitedQuestion is the question the cursor awaits while it is open, as
// the engine hands it out (described), or nil.
func (e *Engine) awaitedQuestion(f *Files) *question.Question {
	b := awaitedOpen(f)
	if b == nil {
		return nil
	}
	q := question.FromBlock(b, e.Now())
	q = e.described(q, isContested(q, contested(f.Questions)))
	return &q
}

// awaitedOpen is the block of the question the cursor awaits while it is
// open, or nil.
func awaitedOpen(f *Files) *mdstore.Block {
	id := f.State.AwaitingQID()
	if id == "" {
		return nil
	}
	if b := f.Questions.Find(id); b != nil && b.Value("status") == question.StatusOpen {
		return b
	}
	return nil
}

// unqueue takes id, just resolved, off the cursor's awaiting_next; it
// reports whether the queue held it. So state.md changes with the answer,
// and a merge with a clone that still queues it sees the pause released
// (otherwise git would take that clone's state.md, which queues an
// answered question).
func unqueue(s *mdstore.State, id string) bool {
	queue := question.SplitNames(valueOf(s, "awaiting_next"))
	if !slices.Contains(queue, id) {
		return false
	}
	setNames(s, "awaiting_next", slices.DeleteFunc(queue, func(x string) bool { return x == id }))
	return true
}

// setNames sets the cursor's list key to ids, or deletes it when there
// are none.
func setNames(s *mdstore.State, key string, ids []string) {
	if len(ids) > 0 {
		s.Set(key, strings.Join(ids, ", "))
	} else {
		s.Delete(key)
	}
}

// queuedPause takes the first question still open off the cursor's
// awaiting_next (a queue of pauses a merge left), or nil when none is.
func (e *Engine) queuedPause(f *Files) *question.Question {
	s := f.State
	queue := question.SplitNames(valueOf(s, "awaiting_next"))
	if len(queue) == 0 {
		return nil
	}
	for i, id := range queue {
		if b := f.Questions.Find(id); b != nil && b.Value("status") == question.StatusOpen {
			setNames(s, "awaiting_next", queue[i+1:])
			q := question.FromBlock(b, e.Now())
			return &q
		}
	}
	s.Delete("awaiting_next")
	return nil
}

// pauseUnder writes the pause on q under a stop: the Awaiting human
// section names it, and the stop stays, so that lifting it returns to q.
func (e *Engine) pauseUnder(f *Files, q question.Question, logText string) {
	var kept []mdstore.KV
	for _, k := range []string{"status", "next_action", "stop_reason", "stopped_at"} {
		if v, ok := f.State.Get(k); ok {
			kept = append(kept, mdstore.KV{Key: k, Value: v})
		}
	}
	e.Pause(f, q, logText)
	for _, kv := range kept {
		f.State.Set(kv.Key, kv.Value)
	}
}
