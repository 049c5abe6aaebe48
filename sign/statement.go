package sign

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Namespace is the SSHSIG namespace of a decision's signature: a signature
// made for git, or for a file, never verifies as a decision.
const Namespace = "devrites-decision"

// StatementVersion is the first line of a statement; it changes only with
// the statement's form.
const StatementVersion = "devrites-decision/v1"

// Statement is what a signature says: that a person resolved the question
// with this fingerprint in this workspace, this way.
type Statement struct {
	Slug        string `json:"slug"`
	Fingerprint string `json:"fingerprint"` // the question's fingerprint (docs/formats.md), 64 hex
	Verdict     string `json:"verdict"`     // answered, rejected or dropped
	Choice      int    `json:"choice"`      // the option picked, 0 for none
	Text        string `json:"answer"`      // the exact answer or reason, as stored
	AnsweredBy  string `json:"answered_by"`
	AnsweredAt  string `json:"answered_at"`
}

// Verdicts a statement may carry.
var verdicts = []string{"answered", "rejected", "dropped"}

// ErrStatement is the kind of a statement that cannot be written: a value
// a line cannot carry, or a verdict that is not final.
var ErrStatement = errors.New("cannot make the signed statement")

// Bytes is the canonical text, byte for byte (docs/formats.md, "Signed
// statement"): the version line, then one "key: value" line each for slug,
// fingerprint, verdict, choice ("none" when no option was picked),
// sha256 (of the exact answer or reason, lower-case hex), answered_by and
// answered_at, every line ending in "\n". The answer itself is hashed, not
// copied, so a statement is one line per field whatever the answer holds.
func (s Statement) Bytes() ([]byte, error) {
	ok := false
	for _, v := range verdicts {
		ok = ok || s.Verdict == v
	}
	if !ok {
		return nil, fmt.Errorf("%w: verdict %q is not answered, rejected or dropped", ErrStatement, s.Verdict)
	}
	if len(s.Fingerprint) != 64 {
		return nil, fmt.Errorf("%w: fingerprint %q is not 64 hex digits", ErrStatement, s.Fingerprint)
	}
	choice := "none"
	if s.Choice > 0 {
		choice = strconv.Itoa(s.Choice)
	}
	sum := sha256.Sum256([]byte(s.Text))
	var b strings.Builder
	b.WriteString(StatementVersion + "\n")
	for _, kv := range [][2]string{
		{"slug", s.Slug},
		{"fingerprint", s.Fingerprint},
		{"verdict", s.Verdict},
		{"choice", choice},
		{"sha256", hex.EncodeToString(sum[:])},
		{"answered_by", s.AnsweredBy},
		{"answered_at", s.AnsweredAt},
	} {
		if kv[1] == "" || strings.ContainsAny(kv[1], "\r\n") || strings.TrimSpace(kv[1]) != kv[1] {
			return nil, fmt.Errorf("%w: %s %q is empty, has a line break or surrounding blanks", ErrStatement, kv[0], kv[1])
		}
		b.WriteString(kv[0] + ": " + kv[1] + "\n")
	}
	return []byte(b.String()), nil
}

// Differs names the fields in which two statements differ, in the order
// of the statement ("answer" for the text), or nil when they are the same.
func (s Statement) Differs(o Statement) []string {
	var out []string
	for _, d := range []struct {
		name string
		same bool
	}{
		{"slug", s.Slug == o.Slug},
		{"question (fingerprint)", s.Fingerprint == o.Fingerprint},
		{"verdict", s.Verdict == o.Verdict},
		{"choice", s.Choice == o.Choice},
		{"answer", s.Text == o.Text},
		{"answered_by", s.AnsweredBy == o.AnsweredBy},
		{"answered_at", s.AnsweredAt == o.AnsweredAt},
	} {
		if !d.same {
			out = append(out, d.name)
		}
	}
	return out
}
