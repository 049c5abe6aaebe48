package relay

import (
	"crypto/hmac"
	"strconv"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/caplink"
)

// RejectChoice is the choice of the reject button.
const RejectChoice = "r"

// macLen is how much of the HMAC a tap token carries: 22 base64
// characters, 132 bits; fpLen, how much of the question's fingerprint: 8
// hex digits, enough to find it among the questions; so that a token fits
// Telegram's 64 bytes of callback data beside the qid, the choice and the
// expiry.
const (
	macLen = 22
	fpLen  = 8
)

// tapToken is what a button carries: "qid:choice:expiry:fp:mac", the
// expiry in Unix seconds, fp the start of the question's fingerprint. The
// mac covers the project, the slug and the whole fingerprint too, which
// the token does not carry: a token is checked against the workspaces the
// relay serves and the fingerprints of their questions and of what it
// sent (docs/relay.md, "A tap binds the question").
func tapToken(k caplink.Key, project, slug, qid, fp, choice string, expiry time.Time) string {
	exp := strconv.FormatInt(expiry.Unix(), 10)
	return qid + ":" + choice + ":" + exp + ":" + fp[:min(fpLen, len(fp))] + ":" + tapMAC(k, project, slug, qid, fp, choice, exp)
}

func tapMAC(k caplink.Key, project, slug, qid, fp, choice, exp string) string {
	return k.MAC("tap", caplink.Project(project), slug, qid, fp, choice, exp)[:macLen]
}

// tap is a parsed token.
type tap struct {
	qid, choice string
	expiry      time.Time
	exp, fp     string // fp: the start of the fingerprint
	mac         string
}

// parseToken splits a token; ok is false when it is not one's shape.
func parseToken(s string) (t tap, ok bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 5 || len(parts[4]) != macLen || len(parts[3]) != fpLen {
		return tap{}, false
	}
	n, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || parts[1] == "" {
		return tap{}, false
	}
	return tap{qid: parts[0], choice: parts[1], expiry: time.Unix(n, 0), exp: parts[2], fp: parts[3], mac: parts[4]}, true
}

// validFor reports, in constant time, whether the token was made for the
// question of fingerprint fp of slug.
func (t tap) validFor(k caplink.Key, project, slug, fp string) bool {
	return len(k) > 0 && strings.HasPrefix(fp, t.fp) && hmac.Equal([]byte(t.mac), []byte(tapMAC(k, project, slug, t.qid, fp, t.choice, t.exp)))
}
