//go:build unix

package app

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/cmd/internal/scripttest"
	"github.com/devrites/devrites-engine/serve"
)

// serveCmd is this test binary started as devrites-engine (see TestMain)
// in dir, with a clean environment.
func serveCmd(dir string, args ...string) *exec.Cmd {
	return scripttest.Program("devrites-engine", dir, args...)
}

// serveProject is a project with one feature, made by `init pay`.
func serveProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := serveCmd(dir, "init", "pay").CombinedOutput(); err != nil {
		t.Fatalf("init: %v: %s", err, out)
	}
	return dir
}

// serve runs until SIGINT or SIGTERM, then shuts down and exits 0; it
// listens only where it is told (127.0.0.1:0 here) and prints the inbox's
// address first.
func TestServeStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, inbox, stderr := startServe(t, serveProject(t))
			defer cmd.Process.Kill()
			resp, err := http.Get(inbox)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET the inbox: got %d, want 200", resp.StatusCode)
			}
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if errors.As(err, &ee) || err != nil {
					t.Errorf("got %v, want exit 0; stderr: %s", err, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("serve did not stop on %s", sig)
			}
			t.Logf("stopped %s after %s", sig, time.Since(start).Round(time.Millisecond))
			if stderr.Len() > 0 {
				t.Errorf("got stderr %q, want nothing", stderr.String())
			}
		})
	}
}

// startServe starts serve on 127.0.0.1:0 in dir and returns it with the
// inbox's address it printed first, and what it writes on stderr.
func startServe(t *testing.T, dir string) (*exec.Cmd, string, *strings.Builder) {
	t.Helper()
	cmd := serveCmd(dir, "serve", "--listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(strings.Builder)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	inbox := ""
	for inbox == "" && lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), "inbox: "); ok {
			inbox = v
		}
	}
	if !strings.HasPrefix(inbox, "http://127.0.0.1:") || !strings.Contains(inbox, "/?t=") {
		_ = cmd.Process.Kill()
		t.Fatalf("got inbox %q, want http://127.0.0.1:…/?t=…; stderr: %s", inbox, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }() // what it prints later never blocks it
	return cmd, inbox, stderr
}

// serve --help shows the address the server listens on
// by default.
func TestServeHelpListen(t *testing.T) {
	out, err := serveCmd(t.TempDir(), "serve", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `(default: "`+serve.DefaultListen+`")`) {
		t.Errorf("got %v:\n%s\nwant the default --listen %s", err, out, serve.DefaultListen)
	}
}
