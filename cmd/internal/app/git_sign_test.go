package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/internal/testtool"

	"github.com/devrites/devrites-engine/mdstore"
)

// Signed decisions across clones (docs/signing.md): a require-signature
// rule for blocking questions, committed; alice's key in the lab's own
// HOME, listed in this machine's allowed_signers.

// needOpenSSH finds ssh-keygen, or tool; under CI a missing one fails the
// test, elsewhere it skips it, saying what to install.
func needOpenSSH(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range append([]string{"ssh-keygen"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			testtool.Missing(t, "%s is missing: install openssh-client", tool)
		}
	}
}

// signingLab is clonedWorkspace with the rule, and alice's key configured
// and allowed on the lab's machine.
func signingLab(t *testing.T) *gitLab {
	t.Helper()
	needOpenSSH(t)
	l := clonedWorkspace(t, func(l *gitLab) {
		l.run("a", engineName, "rules", "add", "--gate", "blocking", "--action", "require-signature")
	})
	home := filepath.Join(l.dir, "home")
	key := filepath.Join(home, "id_alice")
	l.run("", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", key)
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(home, ".config", "devrites-engine")
	if err := os.MkdirAll(conf, 0o700); err != nil {
		t.Fatal(err)
	}
	l.write("home/.config/devrites-engine/config.yaml", "name: alice\nsigning_key: "+key+"\n")
	l.write("home/.config/devrites-engine/allowed_signers", "alice "+string(pub))
	return l
}

// checkSays wants state check in clone to exit code and print want.
func (l *gitLab) checkSays(clone string, code int, want string) {
	l.t.Helper()
	if out := l.checkExits(clone, code); !strings.Contains(out, want) {
		l.t.Errorf("%s: state check printed %q, want %q", clone, out, want)
	}
}

// A forged answer merged from a branch reads as unsigned and keeps the
// pause: one with no signature, and one that carries a valid signature
// copied from another decision (which binds that other question).
func TestClonesForgedAnswerKeepsPause(t *testing.T) {
	l := signingLab(t)
	l.raise("a", "2026-11-29T10:00:00Z", "Ship it?")
	l.at("a", "2026-11-29T10:01:00Z", "state", "resolve", "--by", "alice", "q-2026-11-29-001", "1")
	l.run("a", engineName, "sign", "q-2026-11-29-001")
	l.raise("a", "2026-11-29T10:02:00Z", "Migrate the ledger?")
	l.checkExits("a", 3)
	l.sync("a")

	// On b, the agent answers for alice and pushes a branch.
	l.run("b", "git", "pull", "-q")
	l.at("b", "2026-11-29T10:03:00Z", "state", "resolve", "--by", "alice", "q-2026-11-29-002", "1")
	l.save("b", "forged")
	l.run("b", "git", "push", "-q", "origin", "main:forged")
	l.run("a", "git", "pull", "-q", "--no-edit", "origin", "forged")
	if s := l.stateOf("a"); cursor(s, "status") != "running" {
		t.Fatalf("the merge did not bring the answer: status %q", cursor(s, "status"))
	}
	l.checkSays("a", 3, "q-2026-11-29-002 answered, not yet signed: sign it with devrites-engine sign q-2026-11-29-002")

	// The same with q-001's signature and signed_by copied onto q-002's
	// decision and block.
	dec := l.read("a/" + gitWS + mdstore.DecisionsFile)
	sig := decisionField(t, dec, "q-2026-11-29-001 answered", "signature")
	by := decisionField(t, dec, "q-2026-11-29-001 answered", "signed_by")
	d, err := mdstore.SetDecisionFields([]byte(dec), "q-2026-11-29-002 answered", mdstore.KV{Key: "signed_by", Value: by}, mdstore.KV{Key: "signature", Value: sig})
	if err != nil {
		t.Fatal(err)
	}
	l.write("a/"+gitWS+mdstore.DecisionsFile, string(d))
	l.checkSays("a", 3, "q-2026-11-29-002 answered, not yet signed: sign it with devrites-engine sign q-2026-11-29-002")

	// alice reads it and signs it herself: the agent goes on.
	l.run("a", engineName, "sign", "q-2026-11-29-002")
	l.checkExits("a", 0)
	l.doctorClean("a")
}

func decisionField(t *testing.T, dec, title, key string) string {
	t.Helper()
	for _, b := range mdstore.DecisionBlocks([]byte(dec)) {
		if b.QID == title {
			return b.Value(key)
		}
	}
	t.Fatalf("no entry %q in\n%s", title, dec)
	return ""
}

// A signed decision survives a merge that renumbers its question: the
// signature binds the question's fingerprint, not its id.
func TestClonesSignedDecisionSurvivesRenumbering(t *testing.T) {
	l := signingLab(t)
	l.raise("a", "2026-11-29T10:00:00Z", "Which rounding?")
	l.at("a", "2026-11-29T10:01:00Z", "state", "resolve", "--by", "alice", "q-2026-11-29-001", "2")
	l.run("a", engineName, "sign", "q-2026-11-29-001")
	l.checkExits("a", 0)
	l.sync("a")

	l.raise("b", "2026-11-29T10:00:30Z", "Which currency?")
	l.at("b", "2026-11-29T10:02:00Z", "state", "resolve", "--by", "alice", "q-2026-11-29-001", "1")
	l.run("b", engineName, "sign", "q-2026-11-29-001")
	l.sync("b") // a's question takes the next id in b's history
	rounding := l.blocksOf("b", "Which rounding?")
	if len(rounding) != 1 || rounding[0].QID == "q-2026-11-29-001" || !strings.HasPrefix(rounding[0].Value("signed_by"), "alice SHA256:") {
		t.Fatalf("want a's question renumbered with its signed_by:\n%s", l.read("b/"+gitWS+mdstore.QuestionsFile))
	}
	if sig := decisionField(t, l.read("b/"+gitWS+mdstore.DecisionsFile), rounding[0].QID+" answered", "signature"); !strings.Contains(sig, "BEGIN SSH SIGNATURE") {
		t.Fatalf("the renumbered decision lost its signature: %q", sig)
	}
	l.checkExits("b", 0)
	l.doctorClean("b")
	l.run("a", "git", "pull", "-q", "--no-edit")
	l.checkExits("a", 0)
	l.doctorClean("a")
}
