package sign

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"time"

	"github.com/devrites/devrites-engine/internal/testtool"
)

// needTool finds an OpenSSH tool; a missing one fails the test under CI
// and skips it elsewhere, listed (testtool.Missing).
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		testtool.Missing(t, "%s is missing: install openssh-client", name)
	}
}

// testKey makes an ed25519 key with ssh-keygen in a temp dir, with HOME and
// the agent variable pointing nowhere real. It returns the private key's
// path and the public key line.
func testKey(t *testing.T, comment string) (string, string) {
	t.Helper()
	needTool(t, "ssh-keygen")
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config"))
	t.Setenv("SSH_AUTH_SOCK", "")
	key := filepath.Join(dir, "id_"+comment)
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", key).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return key, strings.TrimSpace(string(pub))
}

// startAgent starts an ssh-agent on a socket in a temp dir, adds key to it
// and kills it when the test ends.
func startAgent(t *testing.T, key string) {
	t.Helper()
	needTool(t, "ssh-agent")
	needTool(t, "ssh-add")
	sock := filepath.Join(t.TempDir(), "agent.sock")
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
	t.Setenv("SSH_AUTH_SOCK", sock)
	if out, err := exec.Command("ssh-add", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v: %s", err, out)
	}
}

func testStatement() Statement {
	return Statement{
		Slug:        "pay",
		Fingerprint: strings.Repeat("ab", 32),
		Verdict:     "answered",
		Choice:      2,
		Text:        "Half up\nwith a second line",
		AnsweredBy:  "alice",
		AnsweredAt:  "2026-11-29T14:05:00Z",
	}
}

var answeredAt = time.Date(2026, 11, 29, 14, 5, 0, 0, time.UTC)

func signed(t *testing.T, key string, st Statement) string {
	t.Helper()
	msg, err := st.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := Sign(context.Background(), key, msg, nil)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return sig
}

func TestStatementBytes(t *testing.T) {
	msg, err := testStatement().Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := "devrites-decision/v1\nslug: pay\nfingerprint: " + strings.Repeat("ab", 32) +
		"\nverdict: answered\nchoice: 2\nsha256: " +
		"7083e0bca2757df41f86be17679d51db3b44fa6fd4b0a02605e368d869802a15" +
		"\nanswered_by: alice\nanswered_at: 2026-11-29T14:05:00Z\n"
	if string(msg) != want {
		t.Fatalf("got\n%s\nwant\n%s", msg, want)
	}
	for _, bad := range []Statement{
		{Verdict: "open"},
		func() Statement { s := testStatement(); s.AnsweredBy = "alice\nverdict: dropped"; return s }(),
		func() Statement { s := testStatement(); s.Fingerprint = "ab"; return s }(),
	} {
		if _, err := bad.Bytes(); !errors.Is(err, ErrStatement) {
			t.Errorf("%+v: got %v, want ErrStatement", bad, err)
		}
	}
}

func TestSignVerifyFileKey(t *testing.T) {
	key, pub := testKey(t, "alice")
	st := testStatement()
	sig := signed(t, key, st)
	allowed := ParseAllowed("allowed_signers", []byte("alice "+pub+"\n"))
	msg, _ := st.Bytes()
	got, err := Verify(msg, sig, allowed, "alice", answeredAt)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got.Principal != "alice" || !strings.HasPrefix(got.Fingerprint, "SHA256:") || got.Fingerprint != KeyOf(sig) {
		t.Fatalf("got %+v, want alice and the key's SHA256 fingerprint", got)
	}
	// ssh-keygen verifies the same signature of the same bytes: the
	// check docs/signing.md shows a person.
	dir := t.TempDir()
	as, sf := filepath.Join(dir, "allowed"), filepath.Join(dir, "sig")
	_ = os.WriteFile(as, []byte("alice "+pub+"\n"), 0o600)
	_ = os.WriteFile(sf, []byte(sig), 0o600)
	cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", as, "-I", "alice", "-n", Namespace, "-s", sf)
	cmd.Stdin = bytes.NewReader(msg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y verify: %v: %s", err, out)
	}
}

func TestVerifyTamperedField(t *testing.T) {
	key, pub := testKey(t, "alice")
	st := testStatement()
	sig := signed(t, key, st)
	allowed := ParseAllowed("allowed_signers", []byte("alice "+pub+"\n"))
	for _, tc := range []struct {
		field string
		edit  func(*Statement)
	}{
		{"slug", func(s *Statement) { s.Slug = "other" }},
		{"fingerprint", func(s *Statement) { s.Fingerprint = strings.Repeat("cd", 32) }},
		{"verdict", func(s *Statement) { s.Verdict = "dropped" }},
		{"choice", func(s *Statement) { s.Choice = 1 }},
		{"choice none", func(s *Statement) { s.Choice = 0 }},
		{"answer", func(s *Statement) { s.Text = "Half up\nwith a second line " }},
		{"answered_by", func(s *Statement) { s.AnsweredBy = "alicf" }},
		{"answered_at", func(s *Statement) { s.AnsweredAt = "2026-11-29T14:05:01Z" }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			changed := st
			tc.edit(&changed)
			msg, err := changed.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(msg, sig, allowed, changed.AnsweredBy, answeredAt); !errors.Is(err, ErrBadSignature) {
				t.Fatalf("got %v, want ErrBadSignature", err)
			}
			if d := st.Differs(changed); len(d) != 1 {
				t.Fatalf("Differs: got %v, want one field", d)
			}
		})
	}
}

func TestVerifyRefusals(t *testing.T) {
	key, pub := testKey(t, "alice")
	_, otherPub := testKey(t, "mallory")
	st := testStatement()
	msg, _ := st.Bytes()
	sig := signed(t, key, st)
	// The same key and bytes signed for git's namespace.
	cmd := exec.Command("ssh-keygen", "-Y", "sign", "-n", "git", "-f", key)
	cmd.Stdin = bytes.NewReader(msg)
	gitSig, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, allowed, sig, principal string
		want                          error
	}{
		{"signer not in the file", "alice " + otherPub, sig, "alice", ErrNotAllowed},
		{"empty file", "", sig, "alice", ErrNotAllowed},
		{"other principal", "bob " + pub, sig, "alice", ErrNotAllowed},
		{"excluded principal", "*,!alice " + pub, sig, "alice", ErrNotAllowed},
		{"namespace not allowed", `alice namespaces="git,file" ` + pub, sig, "alice", ErrNotAllowed},
		{"expired valid-before", `alice valid-before="20261129Z" ` + pub, sig, "alice", ErrNotAllowed},
		{"not yet valid-after", `alice valid-after="20261201Z" ` + pub, sig, "alice", ErrNotAllowed},
		{"wrong namespace", "alice " + pub, string(gitSig), "alice", ErrBadSignature},
		{"not a signature", "alice " + pub, "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n", "alice", ErrBadSignature},
		{"wildcard", "*@example.com,alice " + pub, sig, "alice", nil},
		{"quoted principals", `"al ice,alice" ` + pub, sig, "alice", nil},
		{"namespace allowed, valid now", `alice namespaces="git,devrites-decision",valid-after="20260101",valid-before="20270101Z" ` + pub, sig, "alice", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ParseAllowed("f", []byte(tc.allowed+"\n"))
			if len(a.Problems) > 0 {
				t.Fatalf("problems: %v", a.Problems)
			}
			_, err := Verify(msg, tc.sig, a, tc.principal, answeredAt)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseAllowedProblems(t *testing.T) {
	_, pub := testKey(t, "alice")
	a := ParseAllowed("as", []byte("# comment\n\nalice "+pub+"\nbob cert-authority "+pub+"\ncarol no-touch-required "+pub+
		"\ndave valid-before=\"2026\" "+pub+"\neve ssh-ed25519 AAAA\n\"frank "+pub+"\n"))
	if len(a.Signers) != 1 || a.Signers[0].Line != 3 {
		t.Fatalf("got %d signers, want alice's on line 3", len(a.Signers))
	}
	var lines []int
	for _, p := range a.Problems {
		lines = append(lines, p.Line)
	}
	if len(lines) != 5 || lines[0] != 4 || lines[4] != 8 {
		t.Fatalf("problems on lines %v, want 4 to 8: %v", lines, a.Problems)
	}
	if !strings.Contains(a.Problems[0].String(), "as:4: cert-authority") {
		t.Fatalf("got %s, want cert-authority named", a.Problems[0])
	}
}

func TestSignThroughAgent(t *testing.T) {
	key, pub := testKey(t, "alice")
	st := testStatement()
	msg, _ := st.Bytes()
	// Without an agent, a public key file cannot sign: an error, no
	// signature.
	if sig, err := Sign(context.Background(), key+".pub", msg, nil); !errors.Is(err, ErrSign) || sig != "" {
		t.Fatalf("no agent: got %q, %v, want ErrSign and no signature", sig, err)
	}
	startAgent(t, key)
	// The private key file goes away: only the agent holds the key now.
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	sig, err := Sign(context.Background(), key+".pub", msg, &stderr)
	if err != nil {
		t.Fatalf("Sign through the agent: %v (stderr %s)", err, stderr.String())
	}
	if _, err := Verify(msg, sig, ParseAllowed("f", []byte("alice "+pub)), "alice", answeredAt); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

func TestSignMissingKey(t *testing.T) {
	for _, k := range []string{"", filepath.Join(t.TempDir(), "nope")} {
		if _, err := Sign(context.Background(), k, []byte("x"), nil); !errors.Is(err, ErrSign) {
			t.Errorf("%q: got %v, want ErrSign", k, err)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		p, n string
		want bool
	}{
		{"*", "alice", true}, {"a*e", "alice", true}, {"a?ice", "alice", true},
		{"a?ice", "aice", false}, {"*@x.org", "a@x.org", true}, {"*@x.org", "a@y.org", false}, {"alice", "alice2", false},
	} {
		if got := match(tc.p, tc.n); got != tc.want {
			t.Errorf("match(%q, %q): got %v, want %v", tc.p, tc.n, got, tc.want)
		}
	}
}
