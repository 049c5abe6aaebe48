package question

import "testing"

func TestFingerprint(t *testing.T) {
	base := Question{RaisedAt: "2026-11-29T14:02:11Z", Gate: "blocking", Question: "Deploy window?", Options: []string{"Friday", "Monday"}}
	fp := Fingerprint("pay", base)
	if len(fp) != 64 {
		t.Fatalf("got %d hex digits, want 64", len(fp))
	}
	same := base
	same.QID, same.Status, same.Question = "q-2026-11-29-028", "answered", "Deploy\r\n window?"
	if got := Fingerprint("pay", same); got != fp {
		t.Errorf("renumbered and rewrapped: got %s, want %s", got, fp)
	}
	for name, q := range map[string]Question{
		"raised_at": {RaisedAt: "2026-11-29T14:02:12Z", Gate: base.Gate, Question: base.Question, Options: base.Options},
		"gate":      {RaisedAt: base.RaisedAt, Gate: "escalating", Question: base.Question, Options: base.Options},
		"question":  {RaisedAt: base.RaisedAt, Gate: base.Gate, Question: "Delete backups?", Options: base.Options},
		"options":   {RaisedAt: base.RaisedAt, Gate: base.Gate, Question: base.Question, Options: []string{"Monday", "Friday"}},
		"split":     {RaisedAt: base.RaisedAt, Gate: base.Gate, Question: base.Question, Options: []string{"Friday", "", "Monday"}},
	} {
		if Fingerprint("pay", q) == fp {
			t.Errorf("%s changed: got the same fingerprint", name)
		}
	}
	if Fingerprint("exports", base) == fp {
		t.Error("another slug: got the same fingerprint")
	}
}
