// Package sign signs and verifies a person's decisions with their SSH key,
// as git signs commits (docs/signing.md):
//
//	statement.go  the canonical text a signature covers (docs/formats.md,
//	              "Signed statement")
//	keygen.go     signing: runs `ssh-keygen -Y sign -n devrites-decision`
//	              with the key this machine's person configured
//	allowed.go    git's allowed_signers format: principals, namespaces=,
//	              valid-after=, valid-before=
//	verify.go     verification, in-process (SSHSIG, github.com/hiddeco/sshsig)
//
// Guarantees: a statement binds the question's fingerprint, never its qid,
// so a renumbered question's signature stays valid and a signature never
// moves to another question. A signature verifies only for the exact
// statement bytes, in the devrites-decision namespace, made by a key that
// an allowed_signers line lists for the principal, with that namespace
// allowed and the statement's answered_at inside the line's validity
// dates. The private key is never read, copied or stored: ssh-keygen reads
// it, or asks ssh-agent (so `ssh-add -c` confirmations and FIDO touches
// happen where the person is). A signing that fails or is cancelled
// returns an error and no signature.
//
// Limits: a signature proves that someone holding the key signed the
// statement; it proves nothing about a key an agent on the same machine
// can use without the person (an unencrypted key file, an agent without
// confirmation). cert-authority lines of allowed_signers are not
// supported: they are reported and grant nothing. A FIDO key's
// user-presence flag is not checked in-process. See docs/signing.md for
// the threat model.
package sign
