package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// newEngine opens a new workspace, pay, at the tests' clock.
func newEngine(t testing.TB) *engine.Engine {
	t.Helper()
	ws, err := mdstore.Init(mdstore.Locator{Root: t.TempDir()}, "pay", clock)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "human")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func pausedQuestion(t testing.TB, e *engine.Engine, r engine.RaiseRequest) string {
	t.Helper()
	if r.Gate == "" {
		r = engine.RaiseRequest{Gate: "blocking", Question: "Which rounding?", Options: []string{"Banker's", "Half up"}}
	}
	res, err := e.Raise(context.Background(), r, "agent")
	if err != nil || res.Outcome != engine.Paused {
		t.Fatalf("raise: %v, %+v; want paused", err, res)
	}
	return res.QID
}

type waited struct {
	q   question.Question
	err error
}

func startWait(e *engine.Engine, ctx context.Context, id string, progress func(question.Question)) chan waited {
	done := make(chan waited, 1)
	go func() {
		q, err := e.Wait(ctx, id, progress)
		done <- waited{q, err}
	}()
	return done
}

// TestWaitRoutedProgress: a wait on a routed question reports each response
// as progress while the question stays open, and returns once the last
// responder makes it final.
func TestWaitRoutedProgress(t *testing.T) {
	e := newEngine(t)
	id := pausedQuestion(t, e, engine.RaiseRequest{Gate: "blocking", Question: "Ship it?", Options: []string{"Yes", "No"},
		Route: engine.Names{"alice", "bob"}, Strategy: "collect-all"})
	progress := make(chan question.Question, 16)
	done := startWait(e, context.Background(), "", func(q question.Question) { progress <- q })
	if _, err := e.Resolve(context.Background(), []engine.Resolution{{QID: id, Kind: question.StatusAnswered, Text: "1"}}, "alice"); err != nil {
		t.Fatal(err)
	}
	select {
	case q := <-progress:
		if q.Status != question.StatusOpen || len(q.Responses) != 1 {
			t.Errorf("progress: status %s with %d responses, want open with 1", q.Status, len(q.Responses))
		}
	case w := <-done:
		t.Fatalf("the wait ended after one of two responses: %+v", w)
	case <-time.After(10 * time.Second):
		t.Fatal("no progress after a response")
	}
	if _, err := e.Resolve(context.Background(), []engine.Resolution{{QID: id, Kind: question.StatusAnswered, Text: "1"}}, "bob"); err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-done:
		if w.err != nil || w.q.Status != question.StatusAnswered || w.q.Choice == nil || *w.q.Choice != 1 {
			t.Errorf("wait: %v, status %s; want answered with option 1", w.err, w.q.Status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end when the question became final")
	}
}

// TestWaitCancelled: a cancelled wait returns the open question and the
// context's error; nothing is written.
func TestWaitCancelled(t *testing.T) {
	e := newEngine(t)
	id := pausedQuestion(t, e, engine.RaiseRequest{})
	ctx, cancel := context.WithCancel(context.Background())
	done := startWait(e, ctx, id, nil)
	cancel()
	select {
	case w := <-done:
		if !errors.Is(w.err, context.Canceled) || w.q.QID != id || w.q.Status != question.StatusOpen {
			t.Errorf("got %s %s, %v; want %s open, context.Canceled", w.q.QID, w.q.Status, w.err, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled wait did not return")
	}
}

// BenchmarkWaitWake measures how long a wait takes to return once a resolve
// in the same process has written its answer (wake-ms: the mean, in
// milliseconds). The poll alone would take up to a second; the directory
// watch wakes it.
func BenchmarkWaitWake(b *testing.B) {
	e := newEngine(b)
	ctx := context.Background()
	var total time.Duration
	for b.Loop() {
		id := pausedQuestion(b, e, engine.RaiseRequest{})
		var watching = make(chan struct{})
		done := make(chan time.Time, 1)
		go func() {
			close(watching)
			if _, err := e.Wait(ctx, id, nil); err != nil {
				b.Error(err)
			}
			done <- time.Now()
		}()
		<-watching
		time.Sleep(20 * time.Millisecond) // past the first read, into the watch
		if _, err := e.Resolve(ctx, []engine.Resolution{{QID: id, Kind: question.StatusAnswered, Text: "1"}}, "alice"); err != nil {
			b.Fatal(err)
		}
		written := time.Now()
		total += (<-done).Sub(written)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "wake-ms")
}
