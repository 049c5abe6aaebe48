package engine

import (
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// TestFingerprintAgreesWithIdentity: §27's identity (text and raise time,
// as decisions.md and the Awaiting section copy them) and the fingerprint
// fold white space alike: questions of one fingerprint are one question to
// the identity too, and a text the identity tells apart has another
// fingerprint.
func TestFingerprintAgreesWithIdentity(t *testing.T) {
	texts := []string{"Deploy window?", "Deploy  window?", "Deploy\nwindow?", " Deploy window? ", "Deploy\r\n\twindow?", "Deploy window!", "deploy window?"}
	for _, a := range texts {
		for _, b := range texts {
			qa := Question{RaisedAt: "2026-11-29T14:02:11Z", Gate: "blocking", Question: a, Options: []string{"Friday"}}
			qb := qa
			qb.Question = b
			same := Fingerprint("pay", qa) == Fingerprint("pay", qb)
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
