package app

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/relay/standin"
)

// lockedBuffer is a process's stderr, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRelayProcess drives `devrites-engine relay` as a person runs it,
// against an ntfy stand-in: an untrusted notify.yaml sends nothing; once
// trusted, the pause is sent, a tap answers it, the copy is replaced, and
// SIGTERM ends the relay with exit 0; started again, it sends nothing
// twice.
func TestRelayProcess(t *testing.T) {
	srv := standin.NewNtfy("tk_relay")
	defer srv.Close()
	dir, ws := newProject(t)
	conf := filepath.Join(dir, ".devrites", "notify.yaml")
	yaml := "channels:\n  - type: ntfy\n    server: " + srv.URL + "\n    topic: team\n    token_env: NTFY_TOKEN\n"
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runEngine(dir, "question", "raise", "--gate", "blocking", "--question", "Which rounding?",
		"--option", "Banker's rounding", "--option", "Round half up")
	if r.code != 3 {
		t.Fatalf("raise: exit %d: %s", r.code, r.stderr)
	}
	id := regexp.MustCompile(`q-[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]+`).FindString(r.stdout)

	r = runEngine(dir, "relay", "--once")
	if r.code != 5 || !strings.Contains(r.stderr, "notify.yaml is not trusted on this machine, so nothing is sent to its channels") ||
		!strings.Contains(r.stderr, "hint: a person must review it and run `devrites-engine trust` at a terminal") {
		t.Fatalf("untrusted: exit %d, stderr %q; want exit 5 naming the trust command", r.code, r.stderr)
	}
	if n := len(srv.Messages("team")); n != 0 {
		t.Fatalf("an untrusted notify.yaml sent %d messages", n)
	}
	trustFile(t, conf)

	// Without the token in the environment the channel is left out.
	r = runEngine(dir, "relay", "--once")
	if r.code != 2 || !strings.Contains(r.stderr, "$NTFY_TOKEN is not set: the channel is left out") {
		t.Fatalf("no token: exit %d, stderr %q", r.code, r.stderr)
	}

	start := func() (*lockedBuffer, func() error) {
		cmd := engineCmd(dir, "relay")
		cmd.Env = append(cmd.Env, "NTFY_TOKEN=tk_relay")
		stderr := &lockedBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return stderr, func() error {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				return err
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				return <-done
			}
		}
	}
	stderr, stop := start()
	msgs, err := srv.WaitMessages("team", 1, 10*time.Second)
	if err != nil {
		stop()
		t.Fatalf("%v; relay said:\n%s", err, stderr)
	}
	if err := stop(); err != nil {
		t.Fatalf("SIGTERM: %v; want exit 0; relay said:\n%s", err, stderr)
	}

	// Started again: the pause is not sent twice; a tap answers.
	stderr, stop = start()
	defer stop()
	if err := srv.Press(msgs[0], 1); err != nil {
		t.Fatal(err)
	}
	msgs, err = srv.WaitMessages("team", 2, 10*time.Second)
	if err != nil {
		t.Fatalf("%v; relay said:\n%s", err, stderr)
	}
	if msgs[1].SequenceID != msgs[0].ID || msgs[1].Message != "Answered by ntfy: Round half up (option 2)" {
		t.Errorf("second message: %+v; want the update of the first", msgs[1])
	}
	q := readQuestions(t, ws).Find(id)
	if q.Value("status") != "answered" || q.Value("choice") != "2" || q.Value("answered_by") != "ntfy" {
		t.Errorf("%s: status %s, choice %s, by %s", id, q.Value("status"), q.Value("choice"), q.Value("answered_by"))
	}
	if err := stop(); err != nil {
		t.Fatalf("SIGTERM: %v; relay said:\n%s", err, stderr)
	}
	if n := len(srv.Messages("team")); n != 2 {
		t.Errorf("%d messages, want 2 (the pause once, its update)", n)
	}
}
