package sign

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// Verification errors, checked with errors.Is.
var (
	// ErrBadSignature: the signature is not one, or is not of these bytes
	// in this namespace (the record changed after it was signed).
	ErrBadSignature = errors.New("the signature does not verify")
	// ErrNotAllowed: the signature verifies, but no allowed_signers line
	// lets its key sign for the principal then.
	ErrNotAllowed = errors.New("the signer is not allowed")
)

// Signed is who made a signature that verified.
type Signed struct {
	Principal   string
	Fingerprint string // SHA256:… of the key, as ssh-keygen -l shows it
}

// String is the signed_by value: "principal SHA256:…".
func (s Signed) String() string { return s.Principal + " " + s.Fingerprint }

// KeyOf is the fingerprint of the key that made an armored signature, ""
// when it is not one.
func KeyOf(armored string) string {
	sig, err := sshsig.Unarmor([]byte(armored))
	if err != nil {
		return ""
	}
	return ssh.FingerprintSHA256(sig.PublicKey)
}

// Verify checks that armored is a signature of msg in the decision
// namespace, made by a key that allowed lets sign for principal at time at.
func Verify(msg []byte, armored string, allowed Allowed, principal string, at time.Time) (Signed, error) {
	sig, err := sshsig.Unarmor([]byte(strings.TrimSpace(armored)))
	if err != nil {
		return Signed{}, fmt.Errorf("%w: not an SSH signature: %v", ErrBadSignature, err)
	}
	if err := sig.HashAlgorithm.Available(); err != nil {
		return Signed{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	if sig.Namespace != Namespace {
		return Signed{}, fmt.Errorf("%w: made for namespace %q, not %s", ErrBadSignature, sig.Namespace, Namespace)
	}
	if err := sshsig.Verify(bytes.NewReader(msg), sig, sig.PublicKey, sig.HashAlgorithm, Namespace); err != nil {
		return Signed{}, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	fp := ssh.FingerprintSHA256(sig.PublicKey)
	signed := Signed{Principal: principal, Fingerprint: fp}
	var why []string
	for _, s := range allowed.Signers {
		ok, reason := s.allows(sig.PublicKey, principal, at)
		if ok {
			return signed, nil
		}
		if reason != "" {
			why = append(why, reason)
		}
	}
	if len(why) == 0 {
		return signed, fmt.Errorf("%w: key %s is in no allowed_signers file", ErrNotAllowed, fp)
	}
	return signed, fmt.Errorf("%w: key %s: %s", ErrNotAllowed, fp, strings.Join(why, "; "))
}
