package sign

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseAllowed: any content parses without a panic into signers and
// problems that account for every line that is neither blank nor a
// comment, and a signer without a wildcard grants no principal it does
// not list.
func FuzzParseAllowed(f *testing.F) {
	for _, s := range []string{
		"alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGoY8y3i2DYeV2p8x2PuF0w0k0a3tq9b3hQ3oXzGqXv1\n",
		`"a b,*@x.org" namespaces="git,devrites-decision",valid-after="20260101",valid-before="20270101Z" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGoY8y3i2DYeV2p8x2PuF0w0k0a3tq9b3hQ3oXzGqXv1 c`,
		"# comment\n\n\"unterminated ssh-ed25519 AAAA\nbob cert-authority ssh-ed25519 AAAA\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := ParseAllowed("f", []byte(s))
		lines := 0
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines++
			}
		}
		if got := len(a.Signers) + len(a.Problems); got != lines {
			t.Fatalf("%d signers and problems for %d lines", got, lines)
		}
		for _, sg := range a.Signers {
			if len(sg.Principals) == 0 || sg.Key == nil {
				t.Fatalf("line %d: a signer without principals or key", sg.Line)
			}
			// "\x00" is allowed only by a line listing it, or a wildcard.
			if ok, _ := sg.allows(sg.Key, "\x00", time.Now()); ok && !strings.ContainsAny(strings.Join(sg.Principals, ""), "*?\x00") {
				t.Fatalf("line %d allows a principal it does not list: %q", sg.Line, sg.Principals)
			}
		}
	})
}
