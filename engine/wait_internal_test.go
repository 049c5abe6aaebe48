package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// TestWaitWithoutWatch: where no directory watch can be set, the wait still
// ends with the answer, found by the poll.
func TestWaitWithoutWatch(t *testing.T) {
	newWatcher = func() (*fsnotify.Watcher, error) { return nil, errors.New("no watches here") }
	t.Cleanup(func() { newWatcher = fsnotify.NewWatcher })
	now := time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)
	ws, err := mdstore.Init(mdstore.Locator{Root: t.TempDir()}, "pay", now)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ws, func() time.Time { return now }, 5*time.Second, "human")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := e.Raise(ctx, RaiseRequest{Gate: "blocking", Question: "Which rounding?", Options: []string{"Banker's", "Half up"}}, "agent")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan question.Question, 1)
	go func() {
		q, err := e.Wait(ctx, res.QID, nil)
		if err != nil {
			t.Error(err)
		}
		done <- q
	}()
	time.Sleep(50 * time.Millisecond)
	if _, err := e.Resolve(ctx, []Resolution{{QID: res.QID, Kind: question.StatusAnswered, Text: "2"}}, "alice"); err != nil {
		t.Fatal(err)
	}
	select {
	case q := <-done:
		if q.Status != question.StatusAnswered || q.AnsweredBy != "alice" {
			t.Errorf("got %s by %s, want answered by alice", q.Status, q.AnsweredBy)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the poll did not find the answer")
	}
}
