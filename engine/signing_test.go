package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/trust"
)

// The statement binds the question's fingerprint and the resolution, not
// the qid: a renumbered question makes the same statement.
func TestStatementOfRenumbered(t *testing.T) {
	answer, choice := "Half up", 2
	q := question.Question{QID: "q-2026-11-29-001", Status: question.StatusAnswered, RaisedAt: "2026-11-29T14:02:11Z", Gate: "blocking",
		Question: "Rounding?", Options: []string{"Bankers", "Half up"}, Answer: &answer, Choice: &choice,
		AnsweredBy: "alice", AnsweredAt: "2026-11-29T14:05:00Z"}
	a, err := StatementOf("pay", q).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	q.QID = "q-2026-11-29-002"
	b, _ := StatementOf("pay", q).Bytes()
	if !bytes.Equal(a, b) || !bytes.Contains(a, []byte("fingerprint: "+question.Fingerprint("pay", q)+"\n")) || bytes.Contains(a, []byte("q-2026")) {
		t.Fatalf("got\n%s\nand\n%s\nwant the same statement, with the fingerprint and no qid", a, b)
	}
}

// .devrites/allowed_signers counts only while this machine trusts its
// content: a branch that adds a key adds nobody.
func TestAllowedSignersTrust(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dir := t.TempDir()
	ws, err := mdstore.Init(mdstore.Locator{Root: dir}, "pay", time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(ws, time.Now, time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	const line = "alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGoY8y3i2DYeV2p8x2PuF0w0k0a3tq9b3hQ3oXzGqXv1\n"
	path := filepath.Join(ws.Devrites, AllowedSignersFile)
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	a, warnings := e.AllowedSigners()
	u := e.Untrusted()
	if len(a.Signers) != 0 || len(warnings) != 0 || len(u) != 1 || u[0].Path != path || !strings.Contains(u[0].Warning(), "its signers are not used to verify decisions") {
		t.Fatalf("untrusted: got %d signers, warnings %q, untrusted %+v, want none and the file untrusted", len(a.Signers), warnings, u)
	}
	s, err := trust.Open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(path, []byte(line)); err != nil {
		t.Fatal(err)
	}
	if a, warnings = e.AllowedSigners(); len(a.Signers) != 1 || len(warnings) != 0 || len(e.Untrusted()) != 0 {
		t.Fatalf("trusted: got %d signers, warnings %q, want alice's line", len(a.Signers), warnings)
	}
	// Changed after it was trusted (a merged branch adds mallory): none.
	if err := os.WriteFile(path, []byte(line+strings.Replace(line, "alice", "mallory", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if a, _ = e.AllowedSigners(); len(a.Signers) != 0 {
		t.Fatalf("changed since trusted: got %d signers, want none", len(a.Signers))
	}
}
