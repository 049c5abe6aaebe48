//go:build unix

package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC) }

func sampleEvent() Event {
	return Event{Event: "raised", QID: "q-2026-11-29-001", Gate: "blocking", Slice: "3 — payments", Slug: "pay",
		Question: "Which currency rounding rule?", Proposed: "Banker's rounding", SLA: "15m",
		RaisedAt: "2026-11-29T14:02:11Z", Workspace: "/w/.devrites/work/pay",
		Resume:  `devrites-engine state resolve q-2026-11-29-001 "<answer>"`,
		Options: []string{"Banker's rounding (Recommended)", "Round half up", "Something else — I'll describe it"}}
}

func hookIn(t *testing.T, command string, timeout time.Duration) (Hook, string) {
	t.Helper()
	dir := t.TempDir()
	return Hook{Command: command, Dir: dir, Timeout: timeout, Log: filepath.Join(dir, "notify.log"), Now: fixedNow}, dir
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFireEnvAndStdin(t *testing.T) {
	t.Setenv("DEVRITES_QID", "inherited-value-must-be-replaced")
	// The caller's own DEVRITES_* never reach the hook, whatever they are.
	t.Setenv("DEVRITES_SLUG", "decoy")
	t.Setenv("DEVRITES_ANSWER_URL", "http://decoy.invalid/q")
	t.Setenv("DEVRITES_ROUTE", "mallory")
	h, dir := hookIn(t, `env > env.txt; cat > stdin.json; pwd > pwd.txt`, 10*time.Second)
	ev := sampleEvent()
	o := Fire(context.Background(), h, ev)
	if !o.OK() || o.Exit != 0 {
		t.Fatalf("got exit %d err %v, want exit 0", o.Exit, o.Err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(read(t, filepath.Join(dir, "env.txt")), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && strings.HasPrefix(k, "DEVRITES_") {
			if _, dup := env[k]; dup {
				t.Errorf("got %s twice in the environment, want once", k)
			}
			env[k] = v
		}
	}
	want := map[string]string{
		"DEVRITES_QID": ev.QID, "DEVRITES_GATE": "blocking", "DEVRITES_SLICE": "3 — payments", "DEVRITES_SLUG": "pay",
		"DEVRITES_QUESTION": ev.Question, "DEVRITES_PROPOSED": "Banker's rounding", "DEVRITES_EVENT": "raised",
		"DEVRITES_SLA": "15m", "DEVRITES_RAISED_AT": "2026-11-29T14:02:11Z", "DEVRITES_WORKSPACE": "/w/.devrites/work/pay",
		"DEVRITES_RESUME": ev.Resume,
	}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("got env %q, want %q", env, want)
	}
	raw := read(t, filepath.Join(dir, "stdin.json"))
	if !strings.HasSuffix(raw, "}\n") || strings.Count(raw, "\n") != 1 {
		t.Errorf("got stdin %q, want one JSON document on one line", raw)
	}
	if !strings.Contains(raw, `resolve q-2026-11-29-001 \"<answer>\""`) {
		t.Errorf("got stdin %q, want <answer> written as is", raw)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatalf("stdin is not one JSON document: %v", err)
	}
	if doc["schema"] != float64(Schema) || doc["qid"] != ev.QID || doc["question"] != ev.Question || doc["event"] != "raised" ||
		doc["resume"] != ev.Resume || doc["workspace"] != ev.Workspace {
		t.Errorf("got stdin %v, want the event's fields and schema %d", doc, Schema)
	}
	if opts, _ := doc["options"].([]any); len(opts) != 3 || opts[1] != "Round half up" {
		t.Errorf("got options %v, want the three option texts", doc["options"])
	}
	if got := strings.TrimSpace(read(t, filepath.Join(dir, "pwd.txt"))); got != dir {
		t.Errorf("got working directory %s, want %s", got, dir)
	}
}

func TestFireOwnProcessGroup(t *testing.T) {
	h, dir := hookIn(t, `echo $$ > pid.txt; cut -d' ' -f5 /proc/$$/stat > pgid.txt`, 10*time.Second)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system: the process group cannot be read")
	}
	if o := Fire(context.Background(), h, sampleEvent()); !o.OK() {
		t.Fatal(o.Err)
	}
	pid := strings.TrimSpace(read(t, filepath.Join(dir, "pid.txt")))
	pgid := strings.TrimSpace(read(t, filepath.Join(dir, "pgid.txt")))
	if pid != pgid {
		t.Errorf("got process group %s for hook %s, want its own group", pgid, pid)
	}
	if pgid == strconv.Itoa(syscall.Getpgrp()) {
		t.Errorf("got the test's own process group %s, want a new one", pgid)
	}
}

// Text that a shell would run if it were interpolated reaches the hook as
// data, in the environment and on stdin, and never runs.
func TestFireTextIsData(t *testing.T) {
	hostile := "$(touch pwned) `touch pwned2` ; rm -rf keep ; echo \"quoted\" 'single' \\ back\nsecond line"
	h, dir := hookIn(t, `printf '%s' "$DEVRITES_QUESTION" > q.txt; printf '%s' "$DEVRITES_PROPOSED" > p.txt; cat > stdin.json`, 10*time.Second)
	if err := os.Mkdir(filepath.Join(dir, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	ev := sampleEvent()
	ev.Question, ev.Proposed = hostile, hostile
	if o := Fire(context.Background(), h, ev); !o.OK() {
		t.Fatal(o.Err)
	}
	for _, f := range []string{"q.txt", "p.txt"} {
		if got := read(t, filepath.Join(dir, f)); got != hostile {
			t.Errorf("%s: got %q, want %q", f, got, hostile)
		}
	}
	var doc Event
	if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "stdin.json"))), &doc); err != nil || doc.Question != hostile {
		t.Errorf("got stdin question %q (%v), want %q", doc.Question, err, hostile)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: the text ran as a command", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "keep")); err != nil {
		t.Errorf("keep/ is gone: the text ran as a command")
	}
}

// gone reports whether pid has exited (absent, or a zombie waiting for its
// new parent to reap it).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// waitGone polls for the process to go; a kill is asynchronous.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if gone(pid) {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d is still running, want it killed with the hook's group", pid)
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for i := 0; i < 200; i++ {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s: the hook never wrote it", path)
	return 0
}

func TestFireTimeoutKillsGroup(t *testing.T) {
	h, dir := hookIn(t, `sleep 300 & echo $! > bg.pid; exec sleep 300`, 500*time.Millisecond)
	o := Fire(context.Background(), h, sampleEvent())
	if !o.TimedOut || o.OK() || o.Exit != -1 {
		t.Fatalf("got timed_out=%v exit=%d err=%v, want a timeout", o.TimedOut, o.Exit, o.Err)
	}
	if !strings.Contains(o.Err.Error(), "timed out after 500ms") {
		t.Errorf("got %q, want it to say it timed out after 500ms", o.Err)
	}
	waitGone(t, readPID(t, filepath.Join(dir, "bg.pid")))
	if log := read(t, h.Log); !strings.HasPrefix(log, "2026-11-29T14:02:11Z event=raised qid=q-2026-11-29-001 timeout duration=") {
		t.Errorf("got log %q, want one timeout entry", log)
	}
}

// A hook that exits but leaves a child holding its output does not hold the
// engine, and the child does not outlive it.
func TestFireLeftoverChildIsKilled(t *testing.T) {
	h, dir := hookIn(t, `sleep 300 & echo $! > bg.pid; echo done`, time.Minute)
	o := Fire(context.Background(), h, sampleEvent())
	if !o.OK() || o.Exit != 0 {
		t.Fatalf("got exit %d err %v, want exit 0", o.Exit, o.Err)
	}
	waitGone(t, readPID(t, filepath.Join(dir, "bg.pid")))
}

func TestFireCancelledContext(t *testing.T) {
	h, _ := hookIn(t, `exec sleep 300`, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	o := Fire(ctx, h, sampleEvent())
	if o.OK() || !errors.Is(o.Err, context.Canceled) {
		t.Errorf("got %v, want an interrupted hook", o.Err)
	}
}

func TestFireOutputIsBounded(t *testing.T) {
	h, _ := hookIn(t, `i=0; while [ $i -lt 2000 ]; do echo "line $i of stdout padded to be long enough to matter"; echo "err $i" >&2; i=$((i+1)); done`, time.Minute)
	// The hook's output must not reach the engine's stdout.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	o := Fire(context.Background(), h, sampleEvent())
	os.Stdout = saved
	w.Close()
	leaked, _ := io.ReadAll(r)
	if len(leaked) != 0 {
		t.Errorf("got %d bytes on stdout, want none", len(leaked))
	}
	if !o.OK() {
		t.Fatal(o.Err)
	}
	if !strings.Contains(o.Output, "line 0 of stdout") || !strings.Contains(o.Output, "err 0") {
		t.Errorf("got output %.80q…, want the first stdout and stderr lines", o.Output)
	}
	if !strings.HasSuffix(o.Output, " more bytes not kept]") {
		t.Errorf("got output ending %q, want a note of the bytes dropped", o.Output[len(o.Output)-60:])
	}
	log := read(t, h.Log)
	if len(log) > MaxOutput+1024 {
		t.Errorf("got %d bytes of log, want at most about %d", len(log), MaxOutput)
	}
	if strings.Contains(log, "line 1999") {
		t.Errorf("got the last line in the log, want output cut at %d bytes", MaxOutput)
	}
}

func TestFireFailures(t *testing.T) {
	tests := []struct {
		name, command string
		exit          int
		err, log      string
	}{
		{"non-zero exit", `echo "smtp refused" >&2; exit 3`, 3, "notify hook exited 3", "exit=3 duration="},
		{"missing program", `no-such-program-devrites --now`, 127, "notify hook exited 127: command not found", "exit=127 duration="},
		{"killed by a signal", `kill -9 $$`, -1, "notify hook did not exit by itself (signal: killed)", "error duration="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _ := hookIn(t, tt.command, time.Minute)
			o := Fire(context.Background(), h, sampleEvent())
			if o.OK() || o.Exit != tt.exit || o.TimedOut {
				t.Fatalf("got ok=%v exit=%d timed_out=%v, want a failure with exit %d", o.OK(), o.Exit, o.TimedOut, tt.exit)
			}
			if o.Err.Error() != tt.err {
				t.Errorf("got %q, want %q", o.Err, tt.err)
			}
			log := read(t, h.Log)
			if !strings.HasPrefix(log, "2026-11-29T14:02:11Z event=raised qid=q-2026-11-29-001 "+tt.log) {
				t.Errorf("got log %q, want an entry with %q", log, tt.log)
			}
		})
	}
}

func TestFireLogKeepsOutputAndAppends(t *testing.T) {
	h, _ := hookIn(t, `echo "sent to #ops"; echo "warn: slow" >&2`, time.Minute)
	Fire(context.Background(), h, sampleEvent())
	ev := sampleEvent()
	ev.Event = "reminder"
	Fire(context.Background(), h, ev)
	log := read(t, h.Log)
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("got %d log lines %q, want 6", len(lines), log)
	}
	if !strings.Contains(lines[0], "event=raised") || lines[1] != "  | sent to #ops" || lines[2] != "  | warn: slow" ||
		!strings.Contains(lines[3], "event=reminder") {
		t.Errorf("got log %q, want two entries with their output", log)
	}
}

func TestFireRotatesLog(t *testing.T) {
	h, _ := hookIn(t, `true`, time.Minute)
	if err := os.WriteFile(h.Log, make([]byte, MaxLog+1), 0o644); err != nil {
		t.Fatal(err)
	}
	Fire(context.Background(), h, sampleEvent())
	if fi, err := os.Stat(h.Log + ".1"); err != nil || fi.Size() != MaxLog+1 {
		t.Errorf("got %v, want the old log kept as notify.log.1", err)
	}
	if log := read(t, h.Log); !strings.Contains(log, "exit=0") || len(log) > 200 {
		t.Errorf("got %q, want a fresh log with one entry", log)
	}
}

// notify.log is never written through a link, never waited on, and never
// written when it is not a regular file: the hook still runs, and the outcome
// says why nothing was logged. A named pipe with no reader used to block the
// open forever; the timeout turns such a hang into a failure.
func TestFireLogNotRegular(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, log, outside string)
		want string
	}{
		{"link to a file", func(t *testing.T, log, outside string) {
			if err := os.WriteFile(outside, []byte("kept\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, log); err != nil {
				t.Fatal(err)
			}
		}, "a symbolic link"},
		{"dangling link", func(t *testing.T, log, outside string) {
			if err := os.Symlink(outside, log); err != nil {
				t.Fatal(err)
			}
		}, "a symbolic link"},
		{"named pipe", func(t *testing.T, log, outside string) {
			if err := syscall.Mkfifo(log, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "a named pipe"},
		{"directory", func(t *testing.T, log, outside string) {
			if err := os.Mkdir(log, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, dir := hookIn(t, `echo paged; touch ran`, time.Minute)
			outside := filepath.Join(t.TempDir(), "outside.log")
			tt.make(t, h.Log, outside)
			before, _ := os.ReadFile(outside)
			done := make(chan Outcome, 1)
			go func() { done <- Fire(context.Background(), h, sampleEvent()) }()
			var o Outcome
			select {
			case o = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Fire did not return within 10s: it waits on notify.log")
			}
			if !o.OK() {
				t.Errorf("got hook error %v, want the hook to run", o.Err)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
				t.Errorf("got %v, want the hook to have run", err)
			}
			want := h.Log + ": not a regular file (" + tt.want + "): the notify hook's outcome was not logged"
			if o.LogErr == nil || o.LogErr.Error() != want {
				t.Errorf("got log error %v, want %q", o.LogErr, want)
			}
			after, _ := os.ReadFile(outside)
			if string(after) != string(before) {
				t.Errorf("got %q in the file the link points to, want %q", after, before)
			}
		})
	}
}

// A regular notify.log is logged to with no error.
func TestFireLogRegularNoError(t *testing.T) {
	h, _ := hookIn(t, `true`, time.Minute)
	if o := Fire(context.Background(), h, sampleEvent()); o.LogErr != nil {
		t.Errorf("got log error %v, want none", o.LogErr)
	}
}

// DEVRITES_ANSWER_URL and answer_url are there only when the event has a
// link.
func TestEnvAnswerURL(t *testing.T) {
	ev := sampleEvent()
	for _, kv := range ev.Env() {
		if strings.HasPrefix(kv, "DEVRITES_ANSWER_URL=") {
			t.Errorf("got %s without a link", kv)
		}
	}
	ev.AnswerURL = "http://127.0.0.1:7878/q/pay/q-2026-11-29-001?t=x"
	env := ev.Env()
	if got := env[len(env)-1]; got != "DEVRITES_ANSWER_URL="+ev.AnswerURL {
		t.Errorf("got %q, want DEVRITES_ANSWER_URL", got)
	}
}
