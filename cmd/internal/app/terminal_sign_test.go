package app

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// signingTTY is newTTY with a require-signature rule for blocking
// questions, and alice's ed25519 key held by a test-started ssh-agent (the
// private key file removed): this machine's config.yaml names the public
// key file, as a person whose key lives in the agent writes it, and its
// allowed_signers lists it. The test's own XDG_CONFIG_HOME keeps the
// config away from every other test.
func signingTTY(t *testing.T) *tty {
	t.Helper()
	needOpenSSH(t, "ssh-agent", "ssh-add")
	x := newTTY(t)
	x.run("rules", "add", "--gate", "blocking", "--action", "require-signature")
	xdg := t.TempDir()
	key := filepath.Join(t.TempDir(), "id_alice")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	sockDir, err := os.MkdirTemp("", "ag") // a socket's path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "s")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i == 200 {
			t.Fatal("ssh-agent made no socket in 2s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	add := exec.Command("ssh-add", key)
	add.Env = []string{"SSH_AUTH_SOCK=" + sock, "HOME=" + x.dir}
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(xdg, "devrites-engine")
	if err := os.MkdirAll(conf, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"config.yaml": "name: alice\nsigning_key: " + key + ".pub\n", "allowed_signers": "alice " + string(pub)} {
		if err := os.WriteFile(filepath.Join(conf, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	x.more = []string{"XDG_CONFIG_HOME=" + xdg, "SSH_AUTH_SOCK=" + sock}
	return x
}

// TestResolveAtTerminalSigns: a person resolving at a terminal (state
// resolve prompting, state resolve with the answer given, answer) signs
// the resolution through ssh-agent as it is recorded, and the agent goes
// on.
func TestResolveAtTerminalSigns(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		keys []string
	}{
		"resolve prompting": {[]string{"state", "resolve", "--by", "alice", "q-2026-11-29-001"}, []string{"2", "Enter"}},
		"resolve":           {[]string{"state", "resolve", "--by", "alice", "q-2026-11-29-001", "2"}, nil},
		"answer":            {[]string{"answer", "--by", "alice"}, []string{"2", "Enter"}},
		// Without --by, a person at a terminal answers under this
		// machine's name (config.yaml), which the key is listed for.
		"resolve as config's name": {[]string{"state", "resolve", "q-2026-11-29-001", "2"}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			x := signingTTY(t)
			x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers", "--option", "Half up")
			x.start(tc.args...)
			if tc.keys != nil {
				x.waitFor("answer>", 1)
				x.keys(tc.keys...)
			}
			s := x.waitFor("EXIT=", 1)
			if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "q-2026-11-29-001 answered (option 2): Half up") {
				t.Fatalf("want the answer recorded:\n%s", s)
			}
			files := x.files()
			if !bytes.Contains(files["questions.md"], []byte("\nanswered_by: alice\n")) ||
				!bytes.Contains(files["questions.md"], []byte("\nsigned_by: alice SHA256:")) ||
				!bytes.Contains(files["decisions.md"], []byte("    -----BEGIN SSH SIGNATURE-----\n")) {
				t.Fatalf("want signed_by and the signature:\n%s\n%s", files["questions.md"], files["decisions.md"])
			}
			if out := x.run("state", "check"); !strings.HasPrefix(out, "proceed: ") {
				t.Fatalf("state check: %s, want proceed", out)
			}
		})
	}
}

// TestResolveAtTerminalSignatureFails: when the agent cannot sign (the key
// was taken out of it, as a refused confirmation or a missing touch ends
// it), the answer is not recorded and nothing is written.
func TestResolveAtTerminalSignatureFails(t *testing.T) {
	x := signingTTY(t)
	x.run("question", "raise", "--gate", "blocking", "--question", "Which rounding?", "--option", "Bankers", "--option", "Half up")
	del := exec.Command("ssh-add", "-D")
	del.Env = x.env()
	if out, err := del.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add -D: %v\n%s", err, out)
	}
	before := x.files()
	x.start("state", "resolve", "--by", "alice", "q-2026-11-29-001")
	x.waitFor("answer>", 1)
	x.keys("2", "Enter")
	s := x.waitFor("EXIT=", 1)
	if !strings.Contains(s, "EXIT=1") || !strings.Contains(s, "signing failed: ssh-keygen -Y sign") {
		t.Fatalf("want the signature's failure, exit 1:\n%s", s)
	}
	for name, b := range x.files() {
		if !bytes.Equal(b, before[name]) {
			t.Errorf("%s changed:\n%s", name, b)
		}
	}
}
