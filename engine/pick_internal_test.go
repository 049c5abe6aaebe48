package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// TestFingerprintAgreesWithIdentity: a question's identity (docs/git.md:
// text and raise time, as decisions.md and the Awaiting section copy
// them) and the fingerprint
// fold white space alike: questions of one fingerprint are one question to
// the identity too, and a text the identity tells apart has another
// fingerprint.
func TestFingerprintAgreesWithIdentity(t *testing.T) {
	texts := []string{"Deploy window?", "Deploy  window?", "Deploy\nwindow?", " Deploy window? ", "Deploy\r\n\twindow?", "Deploy window!", "deploy window?"}
	for _, a := range texts {
		for _, b := range texts {
			qa := question.Question{RaisedAt: "2026-11-29T14:02:11Z", Gate: "blocking", Question: a, Options: []string{"Friday"}}
			qb := qa
			qb.Question = b
			same := question.Fingerprint("pay", qa) == question.Fingerprint("pay", qb)
			if same != sameText(a, b) || !same && mdstore.RecordsQuestion(a, qa.RaisedAt, b, qb.RaisedAt) {
				t.Errorf("%q and %q: same fingerprint %v, same text %v, want both alike", a, b, same, sameText(a, b))
			}
		}
	}
}

// TestReadFingerprint: --fingerprint takes 8 to 64 hex digits in either
// case, and nothing else.
func TestReadFingerprint(t *testing.T) {
	for in, want := range map[string]string{"27D379FB": "27d379fb", " 27d379fbeebf ": "27d379fbeebf", "27d379f": "", "27d379fbe": "27d379fbe", "27d379fz": "", "": "",
		"27d379fbeebf64a3d13547281f099431a70735ea9a9c54cd843565e188e8313f":  "27d379fbeebf64a3d13547281f099431a70735ea9a9c54cd843565e188e8313f",
		"27d379fbeebf64a3d13547281f099431a70735ea9a9c54cd843565e188e8313f0": ""} {
		got, err := readFingerprint(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("readFingerprint(%q): got %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestFingerprintBytes: Fingerprint hashes the bytes encoding/json gives
// the parts (docs/formats.md), for texts of every kind a file may hold:
// escapes, <, > and &, line and paragraph separators, invalid UTF-8,
// Unicode blanks, runs and ends of white space. The seed is logged.
func TestFingerprintBytes(t *testing.T) {
	reference := func(slug string, q question.Question) string {
		parts := []string{question.FingerprintVersion, slug, strings.TrimSpace(q.RaisedAt), strings.TrimSpace(q.Gate), mdstore.OneLine(q.Question)}
		for _, o := range q.Options {
			parts = append(parts, mdstore.OneLine(o))
		}
		b, _ := json.Marshal(parts)
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:])
	}
	pieces := []string{"a", "Deploy", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "\u2029", "\u0085", "\u3000", "—", "é", "\"", "\\", "<", ">", "&",
		"\x00", "\x1f", "\x7f", "\xff", "\xe2\x80", "'", "?", "💡", "\u200b"}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	text := func() string {
		var b strings.Builder
		for n := rng.IntN(8); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := 0; i < 20000; i++ {
		q := question.Question{RaisedAt: text(), Gate: text(), Question: text()}
		for n := rng.IntN(4); n > 0; n-- {
			q.Options = append(q.Options, text())
		}
		slug := text()
		if got, want := question.Fingerprint(slug, q), reference(slug, q); got != want {
			t.Fatalf("slug %q, question %+v: got %s, want %s", slug, q, got, want)
		}
	}
}
