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
// characters, 132 bits, so that a token fits Telegram's 64 bytes of
// callback data beside the qid, the choice and the expiry.
const macLen = 22

// tapToken is what a button carries: "qid:choice:expiry:mac", the expiry
// in Unix seconds. The mac covers the project and slug too, which the
// token does not carry: a token is checked against the workspaces the
// relay serves.
func tapToken(k caplink.Key, project, slug, qid, choice string, expiry time.Time) string {
	exp := strconv.FormatInt(expiry.Unix(), 10)
	return qid + ":" + choice + ":" + exp + ":" + tapMAC(k, project, slug, qid, choice, exp)
}

func tapMAC(k caplink.Key, project, slug, qid, choice, exp string) string {
	return k.MAC("tap", caplink.Project(project), slug, qid, choice, exp)[:macLen]
}

// tap is a parsed token.
type tap struct {
	qid, choice string
	expiry      time.Time
	exp, mac    string
}

// parseToken splits a token; ok is false when it is not one's shape.
func parseToken(s string) (t tap, ok bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 4 || len(parts[3]) != macLen {
		return tap{}, false
	}
	n, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || parts[1] == "" {
		return tap{}, false
	}
	return tap{qid: parts[0], choice: parts[1], expiry: time.Unix(n, 0), exp: parts[2], mac: parts[3]}, true
}

// validFor reports, in constant time, whether the token was made for slug.
func (t tap) validFor(k caplink.Key, project, slug string) bool {
	return len(k) > 0 && hmac.Equal([]byte(t.mac), []byte(tapMAC(k, project, slug, t.qid, t.choice, t.exp)))
}
