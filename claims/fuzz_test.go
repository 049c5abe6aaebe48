package claims

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: any bytes parse without failing, and the lines add up; a
// record appended as Store appends it (after a line end when the file has
// none) reads back as the last claim, and everything read before stays as
// it was (a torn last line is then a broken line like any other).
func FuzzParse(f *testing.F) {
	f.Add([]byte(devritesFile))
	f.Add([]byte(""))
	f.Add([]byte("\n\n{\"id\":\"a\",\"session\":\"b\"}"))
	f.Add([]byte(`{"id":"a","session":"b","paths":["x"],"released":"yes"}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := Parse(b)
		lines := strings.Count(string(b), "\n")
		if s.Unterminated {
			lines++
		}
		if s.Lines != lines {
			t.Fatalf("got %d lines, want %d", s.Lines, lines)
		}
		rec := Record{ID: "cl-1-00000000-fuzz", Session: "fuzz", Paths: []string{"p"}, ClaimedAt: "2026-11-29T14:02:11Z", ExpiresAt: "2026-11-29T14:32:11Z"}
		line, err := encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		if s.Unterminated {
			line = append([]byte("\n"), line...)
		}
		if indexOf(s.Claims, rec.ID) >= 0 {
			return // a record of that id already: the append would renew it
		}
		after := Parse(append(append([]byte(nil), b...), line...))
		n := len(after.Claims)
		if n != len(s.Claims)+1 {
			t.Fatalf("got %d claims after the append, want %d", n, len(s.Claims)+1)
		}
		if last := after.Claims[n-1]; !reflect.DeepEqual(last.Record, rec) || last.Line != s.Lines+1 || after.Unterminated {
			t.Fatalf("appended %+v, read back %+v at line %d of %d", rec, last, last.Line, after.Lines)
		}
		for i, c := range s.Claims {
			if !reflect.DeepEqual(after.Claims[i], c) {
				t.Fatalf("claim %d changed: %+v, then %+v", i, c, after.Claims[i])
			}
		}
		if len(after.Problems) != len(s.Problems) {
			t.Fatalf("problems changed: %+v, then %+v", s.Problems, after.Problems)
		}
		for i, p := range s.Problems {
			if q := after.Problems[i]; q.Line != p.Line || q.Torn {
				t.Fatalf("problem %d: %+v, then %+v", i, p, q)
			}
		}
	})
}

func indexOf(cs []Claim, id string) int {
	for i, c := range cs {
		if c.ID == id {
			return i
		}
	}
	return -1
}
