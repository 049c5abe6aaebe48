package question

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/mdstore"
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
	// The bytes are those of encoding/json's array of the parts; they are
	// written here, not marshalled, since every question a list or a
	// token check hands out is fingerprinted (TestFingerprintBytes holds
	// the two alike).
	b := append(make([]byte, 0, 256), '[')
	for i, s := range []string{FingerprintVersion, slug, strings.TrimSpace(q.RaisedAt), strings.TrimSpace(q.Gate), folded(q.Question)} {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	for _, o := range q.Options {
		b = appendJSONString(append(b, ','), folded(o))
	}
	sum := sha256.Sum256(append(b, ']'))
	return hex.EncodeToString(sum[:])
}

// folded is mdstore.OneLine(s), without a copy when s is folded already: no white
// space but single blanks between words.
func folded(s string) string {
	blank := true // a leading blank is folded away
	for _, r := range s {
		if unicode.IsSpace(r) {
			if r != ' ' || blank {
				return mdstore.OneLine(s)
			}
			blank = true
		} else {
			blank = false
		}
	}
	if blank && s != "" {
		return mdstore.OneLine(s) // a trailing blank
	}
	return s
}

// appendJSONString appends s as encoding/json writes a string: as it is
// when it holds no byte JSON escapes (a quote, a backslash, a control
// character, <, > and &, invalid UTF-8, U+2028 and U+2029), else as
// json.Marshal gives it.
func appendJSONString(b []byte, s string) []byte {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' &&
			!(c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9))
	}
	if plain {
		return append(append(append(b, '"'), s...), '"')
	}
	m, _ := json.Marshal(s) // a string always marshals
	return append(b, m...)
}

// ShortFingerprint is the part of a fingerprint a person compares.
func ShortFingerprint(fp string) string {
	if len(fp) > FingerprintPrefix {
		return fp[:FingerprintPrefix]
	}
	return fp
}
