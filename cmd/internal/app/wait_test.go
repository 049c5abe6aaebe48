package app

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestWaitAcrossProcesses: three wait processes block on a paused question
// (one by qid, one on the awaited question, one with --json) while it is
// open; a resolve from a fourth process ends all three with its answer,
// exit 0.
func TestWaitAcrossProcesses(t *testing.T) {
	dir, _ := newProject(t)
	r := runEngine(dir, "question", "raise", "--gate", "blocking", "--question", "Which rounding?",
		"--option", "Banker's", "--option", "Half up", "--json")
	if r.code != 3 {
		t.Fatalf("raise: exit %d, stderr %s; want 3", r.code, r.stderr)
	}
	var raised struct{ QID string }
	if err := json.Unmarshal([]byte(r.stdout), &raised); err != nil {
		t.Fatal(err)
	}
	type waiter struct {
		cmd      *exec.Cmd
		out, err bytes.Buffer
		done     chan error
	}
	var ws []*waiter
	for _, args := range [][]string{
		{"wait", raised.QID, "--timeout", "60s"},
		{"wait", "--timeout", "60s"},
		{"wait", raised.QID, "--timeout", "60s", "--json"},
	} {
		w := &waiter{cmd: engineCmd(dir, args...), done: make(chan error, 1)}
		w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.err
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { w.done <- w.cmd.Wait() }()
		ws = append(ws, w)
	}
	time.Sleep(300 * time.Millisecond) // time for them to start watching; they must still wait
	for i, w := range ws {
		select {
		case err := <-w.done:
			t.Fatalf("waiter %d ended while the question was open: %v: %s%s", i, err, w.out.String(), w.err.String())
		default:
		}
	}
	if r := runEngine(dir, "state", "resolve", "--by", "alice", raised.QID, "2"); r.code != 0 {
		t.Fatalf("resolve: exit %d: %s", r.code, r.stderr)
	}
	for i, w := range ws {
		select {
		case err := <-w.done:
			if err != nil {
				t.Errorf("waiter %d: %v: %s", i, err, w.err.String())
			}
		case <-time.After(30 * time.Second):
			w.cmd.Process.Kill()
			t.Fatalf("waiter %d still waits after the resolve", i)
		}
	}
	want := raised.QID + " answered (option 2): Half up\nby alice via cli at " + testNow + "\n"
	for i, w := range ws[:2] {
		if got := w.out.String(); got != want {
			t.Errorf("waiter %d printed %q, want %q", i, got, want)
		}
	}
	var res struct {
		Final    bool
		Question struct {
			Status     string
			Choice     int
			AnsweredBy string `json:"answered_by"`
		}
	}
	if err := json.Unmarshal(ws[2].out.Bytes(), &res); err != nil || !res.Final || res.Question.Status != "answered" ||
		res.Question.Choice != 2 || res.Question.AnsweredBy != "alice" {
		t.Errorf("wait --json: %v: %s; want final, answered, choice 2, by alice", err, strings.TrimSpace(ws[2].out.String()))
	}
}
