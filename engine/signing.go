package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/machine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/sign"
	"github.com/devrites/devrites-engine/trust"
)

// Signed decisions (docs/signing.md). A final resolution may carry an SSH
// signature of its statement (sign.Statement: the workspace slug, the
// question's fingerprint, verdict, choice, the SHA-256 of the exact answer
// or reason, answered_by, answered_at). decisions.md's entry holds the
// armored signature and signed_by; questions.md's block holds signed_by.
// A signature counts when it verifies for the statement the question's
// block makes now, by a key that an allowed signer's line lists for a
// principal matching answered_by, in the devrites-decision namespace, at
// answered_at. The statement binds the fingerprint, never the qid, so a
// renumbered question keeps its signature and no signature moves to
// another question.

// Fields of a signed decision.
const (
	FieldSignature = "signature" // decisions.md only
	FieldSignedBy  = "signed_by" // "principal SHA256:…", both files
)

// AllowedSignersFile is the project's allowed signers, in .devrites.
const AllowedSignersFile = "allowed_signers"

// ErrSignature is the kind of a signature that was not made or does not
// count: nothing is written.
var ErrSignature = errors.New("not signed")

// Signer signs a statement's bytes with this machine's person's key and
// returns the armored signature (sign.Sign).
type Signer func(msg []byte) (string, error)

// SetSigner makes this engine's resolutions by a person signed: state
// resolve and answer at a terminal, when a key is configured. The
// signature is made inside the transaction, before anything is written,
// so a failed or cancelled one writes nothing. A transaction that runs
// again on files an editor changed signs the same statement once.
func (e *Engine) SetSigner(s Signer) { e.signer = memoSigner(s) }

// memoSigner signs each statement once, however often a transaction runs.
func memoSigner(s Signer) Signer {
	memo := map[string]string{}
	return func(msg []byte) (string, error) {
		if sig, ok := memo[string(msg)]; ok {
			return sig, nil
		}
		sig, err := s(msg)
		if err == nil {
			memo[string(msg)] = sig
		}
		return sig, err
	}
}

// StatementOf is the statement a signature of q's resolution covers.
func StatementOf(slug string, q question.Question) sign.Statement {
	st := sign.Statement{Slug: slug, Fingerprint: question.Fingerprint(slug, q), Verdict: q.Status, AnsweredBy: q.AnsweredBy, AnsweredAt: q.AnsweredAt}
	if q.Choice != nil {
		st.Choice = *q.Choice
	}
	if q.Answer != nil {
		st.Text = *q.Answer
	}
	return st
}

// AllowedSigners are the signers a decision's signature is checked
// against: .devrites/allowed_signers while this machine trusts its content
// (a branch that adds a key to it adds nobody until a person here trusts
// it: Untrusted says so), then this machine's own file. warnings say what
// else was left out: a file that cannot be read, lines that grant nothing.
func (e *Engine) AllowedSigners() (sign.Allowed, []string) {
	var a sign.Allowed
	data, path, _, warning := e.projectSigners()
	var warnings []string
	if warning != "" {
		warnings = append(warnings, warning)
	}
	if data != nil {
		a.Add(sign.ParseAllowed(path, data))
	}
	if path, err := machine.AllowedSigners(); err == nil {
		if data, err := os.ReadFile(path); err == nil {
			a.Add(sign.ParseAllowed(path, data))
		} else if !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("%s: %v: its signers are not used", path, err))
		}
	}
	for _, p := range a.Problems {
		warnings = append(warnings, p.String())
	}
	return a, warnings
}

// signersEffect is what an untrusted .devrites/allowed_signers does not do.
const signersEffect = "its signers are not used to verify decisions"

// projectSigners reads .devrites/allowed_signers: its content when it
// counts here, else why not (untrusted, or a warning: not a regular file,
// unreadable). Without the file, all are empty.
func (e *Engine) projectSigners() (data []byte, path string, untrusted *config.UntrustedFile, warning string) {
	if e.WS.Devrites == "" {
		return nil, "", nil, ""
	}
	path = filepath.Join(e.WS.Devrites, AllowedSignersFile)
	fh, err := mdstore.OpenRegular(path, os.O_RDONLY, 0) // never follows a link
	var nr *mdstore.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, path, nil, ""
	case errors.As(err, &nr):
		return nil, path, nil, path + " is not a regular file: its signers are not used"
	case err == nil:
		data, err = io.ReadAll(fh)
		fh.Close()
	}
	if err != nil {
		return nil, path, nil, fmt.Sprintf("%s: %v: its signers are not used", path, err)
	}
	if why := config.UntrustedWhy(path, data); why != "" {
		return nil, path, &config.UntrustedFile{Path: path, Why: why, Effect: signersEffect, Command: trust.Command(path)}, ""
	}
	return data, path, nil, ""
}

// RequiresSignature is the require-signature rule that selects q, or nil.
func (e *Engine) RequiresSignature(q question.Question) *config.Rule {
	return e.Rules.MatchQuestion(config.RequireSignature, q.Breakpoint, q.Gate, q.Tags)
}

// VerifyStatement checks sig, the signature of a decision, against the
// statement st of what was decided: it returns the signer when an
// allowed_signers line lets the key sign for st's answered_by at st's
// answered_at (sign.Verify), else an error (sign.ErrStatement when st has
// no valid answered_at).
func VerifyStatement(st sign.Statement, sig string, allowed sign.Allowed) (sign.Signed, error) {
	msg, err := st.Bytes()
	if err != nil {
		return sign.Signed{}, err
	}
	at, err := time.Parse(time.RFC3339, st.AnsweredAt)
	if err != nil {
		return sign.Signed{}, fmt.Errorf("%w: answered_at %q is not a time", sign.ErrStatement, st.AnsweredAt)
	}
	return sign.Verify(msg, sig, allowed, st.AnsweredBy, at)
}

// SignedEntries is decisions.md's signed entries by title: of each
// title, its first entry (the one mdstore.SetDecisionFields writes), when
// that entry holds a signature. Entries are looked at (Peek), not read,
// and only signed ones are kept: a large ledger is mostly unsigned.
func SignedEntries(ledger []*mdstore.Block) map[string]*mdstore.Block {
	out := map[string]*mdstore.Block{}
	for i := len(ledger) - 1; i >= 0; i-- { // from the end: a title's first entry has the last word
		b := ledger[i]
		if v, _ := b.Peek(FieldSignature); strings.TrimSpace(v[0]) != "" {
			out[b.QID] = b
		} else {
			delete(out, b.QID)
		}
	}
	return out
}

// signatureOf is the signature an entry of SignedEntries holds, "" for none.
func signatureOf(entry *mdstore.Block) string {
	if entry == nil {
		return ""
	}
	v, _ := entry.Peek(FieldSignature)
	return v[0]
}

// UnsignedText is what holds the agent on a question a rule requires a
// signature of, as every command says it.
func UnsignedText(q question.Question) string {
	return fmt.Sprintf("%s %s, not yet signed: sign it with devrites-engine sign %s", q.QID, q.Status, q.QID)
}

// holds checks final questions for the signature a rule requires. It
// reads decisions.md and the allowed signers once, when a question first
// needs them.
type holds struct {
	e       *Engine
	entries map[string]*mdstore.Block // decisions.md's signed entries by title
	allowed sign.Allowed
}

// held marks q.Unsigned when q is final, a require-signature rule selects
// it and no signature of it counts; it reports whether q holds the agent.
func (h *holds) held(q *question.Question) bool {
	if q.Status == question.StatusOpen || h.e.RequiresSignature(*q) == nil {
		return false
	}
	if h.entries == nil {
		// One pass over decisions.md, not one per question.
		decisions, _, _ := h.e.ReadUnlocked(mdstore.DecisionsFile) // unreadable: no signature counts
		h.entries = SignedEntries(mdstore.DecisionBlocks(decisions))
		h.allowed, _ = h.e.AllowedSigners()
	}
	sig := signatureOf(h.entries[DecisionHeading(q.QID, q.Status)])
	if strings.TrimSpace(sig) == "" {
		q.Unsigned = fmt.Errorf("%w: no signature", ErrSignature).Error()
		return true
	}
	if _, err := VerifyStatement(StatementOf(h.e.WS.Slug, *q), sig, h.allowed); err != nil {
		q.Unsigned = err.Error()
		return true
	}
	return false
}

// unsigned lists the final questions of the workspace that a
// require-signature rule selects and that no counted signature covers.
func (e *Engine) unsigned(f *Files) []question.Question {
	if !e.Rules.Requires() {
		return nil
	}
	h := &holds{e: e}
	var out []question.Question
	for q := range e.questions(f.Questions, "all") {
		if h.held(&q) {
			out = append(out, q.Detached())
		}
	}
	return out
}

// signAnswer signs the resolution answer is about to write (kvs on q's
// block) when a signer is set and a person resolves: it returns the
// armored signature for decisions.md and kvs with signed_by. A signature
// that fails, or that no allowed signer's line lets count, is an error and
// nothing is written. AFK and rules never sign (auto is set).
func (e *Engine) signAnswer(q question.Question, kvs []mdstore.KV, auto string) (string, []mdstore.KV, error) {
	if e.signer == nil || auto != "" {
		return "", kvs, nil
	}
	st := StatementOf(e.WS.Slug, q)
	signed, sig, err := e.signStatement(e.signer, st)
	if err != nil {
		return "", nil, err
	}
	return sig, append(kvs, mdstore.KV{Key: FieldSignedBy, Value: signed.String()}), nil
}

// signStatement signs st and checks that the signature counts here.
func (e *Engine) signStatement(signer Signer, st sign.Statement) (sign.Signed, string, error) {
	msg, err := st.Bytes()
	if err != nil {
		return sign.Signed{}, "", fmt.Errorf("%w: %v", ErrSignature, err)
	}
	sig, err := signer(msg)
	if err != nil {
		return sign.Signed{}, "", fmt.Errorf("%w: %v", ErrSignature, err)
	}
	allowed, _ := e.AllowedSigners()
	signed, err := VerifyStatement(st, sig, allowed)
	if err != nil {
		return sign.Signed{}, "", mdstore.WithHint(fmt.Errorf("%w: the signature would not count: %v", ErrSignature, err),
			"list this key for "+st.AnsweredBy+" (the resolution's answered_by) in .devrites/allowed_signers or this machine's allowed_signers (docs/signing.md); when answering, --by gives the name the answer is recorded under")
	}
	return signed, sig, nil
}

// holdUnsigned stops the agent on the unsigned questions of the workspace
// (state check, MCP check and the harness hooks all come here).
func (e *Engine) holdUnsigned(f *Files, r *CheckResult) {
	r.Unsigned = e.unsigned(f)
	if len(r.Unsigned) == 0 {
		return
	}
	if r.Proceed {
		// One command a person can run; the rest are in Unsigned (JSON)
		// and doctor's report.
		r.Proceed = false
		r.Reason = UnsignedText(r.Unsigned[0])
		if n := len(r.Unsigned) - 1; n > 0 {
			r.Reason += fmt.Sprintf("; %d more resolution(s) not yet signed (devrites-engine doctor lists them)", n)
		}
	}
}

// heldOne is held for one question (Wait): a final question that still
// holds the agent is waited on until it is signed.
func (e *Engine) heldOne(q *question.Question) bool { return (&holds{e: e}).held(q) }
