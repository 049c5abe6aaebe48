package engine

import (
	"context"
	"path/filepath"
	"runtime"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// How Wait notices a change. Every write of questions.md replaces the file
// by rename, so the watch is on the workspace directory, not the file. The
// poll catches what a watch misses (a network file system, a watch that
// failed): with a watch it is a safety net, without one it keeps the
// wake-up within pollAlone of the write.
const (
	pollWatched = time.Second
	pollAlone   = 100 * time.Millisecond
	// heartbeat is how often Wait reports that it still waits, when
	// nothing has changed: MCP clients keep a call alive on progress.
	heartbeat = 5 * time.Second
)

// newWatcher starts a watch; a test takes it away to see the poll alone.
var newWatcher = fsnotify.NewWatcher

// Wait blocks until question id is final (answered, dropped or rejected) and
// returns it as it then reads. With id "", it waits for the question
// state.md awaits. When ctx ends first (a timeout, a cancellation) it
// returns the question as it last read, still open, with ctx's error.
// progress, when not nil, is called with the open question whenever it
// changes (a response to a routed question) and at least every heartbeat.
// Wait only reads: it takes no lock and writes nothing.
func (e *Engine) Wait(ctx context.Context, id string, progress func(question.Question)) (question.Question, error) {
	q, err := e.waitedFor(id)
	if err != nil || q.Status != question.StatusOpen && !e.heldOne(&q) {
		return q, err
	}
	// The question kept between reads is a copy: one that shares the
	// memory of the file it was read from would hold that file while the
	// next read makes another (two of a large questions.md every second).
	last, told := q.Detached(), time.Now()
	id = last.QID // as questions.md spells it
	poll := pollWatched
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w, err := newWatcher(); err == nil {
		defer w.Close()
		if w.Add(e.WS.Dir) == nil {
			events, errs = w.Events, w.Errors
		} else {
			poll = pollAlone
		}
	} else {
		poll = pollAlone
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case ev, ok := <-events:
			if !ok {
				events, errs = nil, nil
				tick.Reset(pollAlone)
				continue
			}
			if name := filepath.Base(ev.Name); name != mdstore.QuestionsFile {
				continue
			}
		case <-errs: // an overflowed queue: events were lost, so read now
		case <-tick.C:
		}
		// The last read is garbage: collect it before the next, so that
		// a wait holds one read's memory at a time, not two.
		runtime.GC()
		// The question waited for is followed by its fingerprint: a merge
		// that renumbers it while it is waited for does not make the wait
		// end on the question that takes its id.
		q, err := e.GetByFingerprint(id, last.Fingerprint)
		if err != nil {
			return last, err
		}
		if q.Status != question.StatusOpen && !e.heldOne(&q) {
			return q, nil
		}
		changed := !sameOpen(q, last)
		last = q.Detached()
		if progress != nil && (changed || time.Since(told) >= heartbeat) {
			progress(q)
			told = time.Now()
		}
	}
}

// waitedFor is the question Wait waits for as it reads now: id, or with id
// "", the one state.md awaits (from the same read).
func (e *Engine) waitedFor(id string) (question.Question, error) {
	if id != "" {
		return e.Get(id)
	}
	f, err := e.read()
	if err != nil {
		return question.Question{}, err
	}
	if id = f.State.AwaitingQID(); id == "" {
		return question.Question{}, mdstore.Errorf(ErrBadArgs, "state.md awaits no question").
			Hint("name the question to wait for: devrites-engine wait <qid>").Fix(ListQuestions, "")
	}
	if err := checkQID(id); err != nil {
		return question.Question{}, err
	}
	return e.get(f, id, "")
}

// sameOpen reports whether an open question reads as it did: the only
// change an open question sees is a response (a routed question), or a
// reminder.
func sameOpen(a, b question.Question) bool {
	return a.Progress == b.Progress && len(a.Responses) == len(b.Responses) && a.RemindedAt == b.RemindedAt
}
