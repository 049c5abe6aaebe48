package merge

import "testing"

// A signed decision (docs/signing.md) is kept byte for byte: its signature
// block and signed_by are fields the merge does not know, and the entry's
// heading follows a renumbering while its body stays as signed.
func TestSignedDecisionsKept(t *testing.T) {
	const sig = "signature: |\n    -----BEGIN SSH SIGNATURE-----\n    U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAg\n    -----END SSH SIGNATURE-----\nsigned_by: alice SHA256:abc+/def\n"
	signed := func(id string) string { return entry(id, "answered", "yes", "2026-11-29T10:00:00Z") + sig }
	e1 := entry(id1, "answered", "yes", "2026-11-29T10:00:00Z")
	e2 := entry(id2, "answered", "no", "2026-11-29T11:00:00Z")
	renumbered, err := Plan(Of([]byte(q())), Of([]byte(q(blk(id1, "status: answered", "question: Ours?", t10)))),
		Of([]byte(q(blk(id1, "status: answered", "question: Which one?", t10)))))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name               string
		base, ours, theirs string
		r                  *Renumbering
		want               string
	}{
		{"theirs signed an entry both had", dec(e1), dec(e1), dec(signed(id1)), nil, dec(signed(id1))},
		{"ours signed an entry both had", dec(e1), dec(signed(id1)), dec(e1, e2), nil, dec(signed(id1), e2)},
		{"a signed entry new on theirs", dec(), dec(e2), dec(signed(id1)), nil, dec(signed(id1), e2)},
		{"a signed entry renumbered", dec(), dec(entry(id1, "answered", "ours", "2026-11-29T12:00:00Z")), dec(signed(id1)), renumbered,
			dec(signed(id2), entry(id1, "answered", "ours", "2026-11-29T12:00:00Z"))},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Decisions(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)), c.r)
			checkResult(t, got, err, c.want, nil)
		})
	}
}

// signed_by on a question block, added on one side, is kept.
func TestSignedByKept(t *testing.T) {
	base := q(blk(id1, "status: answered", "question: Ship it?", t10, "answer: yes"))
	signed := q(blk(id1, "status: answered", "question: Ship it?", t10, "answer: yes", "signed_by: alice SHA256:abc+/def"))
	for _, c := range []struct{ name, ours, theirs string }{
		{"theirs signed", base, signed},
		{"ours signed", signed, base},
		{"both signed alike", signed, signed},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Questions(Of([]byte(base)), Of([]byte(c.ours)), Of([]byte(c.theirs)))
			checkResult(t, got, err, signed, nil)
		})
	}
}
