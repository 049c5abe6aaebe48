package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// FingerprintVersion names the canonical form Fingerprint hashes; it
// changes only with that form (docs/formats.md, "Question fingerprint").
const FingerprintVersion = "devrites-question/v1"

// FingerprintPrefix is how many hex digits of a fingerprint a person is
// shown to compare, and the fewest --fingerprint accepts is FingerprintMin.
const (
	FingerprintPrefix = 12
	FingerprintMin    = 8
)

// Fingerprint is the identity of a question: the SHA-256, in lower-case
// hex, of what the person was shown and when it was asked — the workspace
// slug, raised_at, gate, the question text and the option texts — in one
// canonical form: a JSON array of the version, slug, raised_at, gate,
// question and each option, every text with its white space folded to
// single blanks (so a line ending or a rewrap changes nothing a person
// reads). A merge that renumbers a question leaves it unchanged; a token,
// link or signature made for a question binds this, never its qid.
func Fingerprint(slug string, q Question) string {
	parts := make([]string, 0, 5+len(q.Options))
	parts = append(parts, FingerprintVersion, slug, strings.TrimSpace(q.RaisedAt), strings.TrimSpace(q.Gate), oneLine(q.Question))
	for _, o := range q.Options {
		parts = append(parts, oneLine(o))
	}
	b, _ := json.Marshal(parts) // strings always marshal
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ShortFingerprint is the part of a fingerprint a person compares.
func ShortFingerprint(fp string) string {
	if len(fp) > FingerprintPrefix {
		return fp[:FingerprintPrefix]
	}
	return fp
}
