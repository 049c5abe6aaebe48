package mdstore

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestRecordsForm(t *testing.T) {
	recs := [][]KV{
		{{"by", "alice"}, {"at", "2026-11-29T14:05:00Z"}, {"status", "answered"}, {"choice", "1"}, {"answer", "Banker's rounding"}},
		{{"by", "bob"}, {"status", "rejected"}, {"answer", "too risky\n- by: mallory\nstatus: answered"}},
	}
	want := "- by: alice\n" +
		"  at: 2026-11-29T14:05:00Z\n" +
		"  status: answered\n" +
		"  choice: 1\n" +
		"  answer: Banker's rounding\n" +
		"- by: bob\n" +
		"  status: rejected\n" +
		"  answer: |-\n" +
		"      too risky\n" +
		"      - by: mallory\n" +
		"      status: answered\n"
	got := EncodeRecords(recs)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	back, err := ParseRecords(got)
	if err != nil || !reflect.DeepEqual(back, recs) {
		t.Fatalf("got %q, %v; want %q", back, err, recs)
	}
}

func TestParseRecordsRefuses(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"by: alice\n", `value line 1: "by: alice" does not start a record`},
		{"- by: alice\nstatus: answered\n", `value line 2: "status: answered" is neither a new record`},
		{"- by: alice\n  just words\n", `value line 2: "just words" is not a field of the record`},
		{"- by: alice\n-   x\n", `value line 2: "x" is not a field of the record`},
		{"- by: alice\n- \n", `value line 2: a record without fields`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			_, err := ParseRecords(tc.value)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want %s…", err, tc.want)
			}
		})
	}
	if recs, err := ParseRecords(""); err != nil || len(recs) != 0 {
		t.Fatalf("empty value: got %v, %v; want no records", recs, err)
	}
}

// FuzzRecords: a record list written into a question block and read back
// from the file's bytes gives the same records, however their text reads:
// no value can add, drop or split a record, or end the field or the block.
func FuzzRecords(f *testing.F) {
	for i, v := range valueSeeds {
		f.Add(v, valueSeeds[(i+3)%len(valueSeeds)], "alice", "answer", uint8(i))
	}
	f.Add("- by: mallory\n  status: answered", "  - by: x\n", "bob\nstatus: open", "status", uint8(7))
	f.Fuzz(func(t *testing.T, a, b, by, key string, n uint8) {
		a, b, by, key = cleanValue(a), cleanValue(b), cleanValue(by), fieldKey(key)
		count := 1 + int(n%4)
		recs := make([][]KV, count)
		for i := range recs {
			r := []KV{{"by", by}, {"status", "answered"}}
			switch (int(n) + i) % 4 {
			case 0:
				r = append(r, KV{"answer", a})
			case 1:
				r = append(r, KV{"answer", b}, KV{key, a})
			case 2:
				r = []KV{{key, b}, {"answer", a + b}}
			default:
				r = append(r, KV{"answer", ""})
			}
			recs[i] = r
		}
		v := EncodeRecords(recs)
		back, err := ParseRecords(v)
		if err != nil || !reflect.DeepEqual(back, recs) {
			t.Fatalf("value %q: got %q, %v; want %q", v, back, err, recs)
		}
		q := ParseQuestions([]byte("# Questions\n\n## q-2026-11-29-001\nstatus: open\n\n## q-2026-11-29-002\nstatus: open\n"))
		if err := q.Set("q-2026-11-29-001", KV{"responses", v}, KV{"after", "x"}); err != nil {
			t.Fatal(err)
		}
		again := ParseQuestions(q.Bytes())
		if got := len(again.Blocks()); got != 2 {
			t.Fatalf("%d blocks after writing %q, want 2:\n%s", got, v, q.Bytes())
		}
		blk := again.Find("q-2026-11-29-001")
		if got := fieldList(blk); !sameKVs(got, []KV{{"status", "open"}, {"responses", v}, {"after", "x"}}) {
			t.Fatalf("fields after writing %q: got %q", v, got)
		}
		back, err = ParseRecords(blk.Value("responses"))
		if err != nil || !reflect.DeepEqual(back, recs) {
			t.Fatalf("from the file: got %q, %v; want %q", back, err, recs)
		}
	})
}

// decisions.md's lazy reading (its headings found by searching the text)
// is the grammar's: it finds the entries that reading every line finds, on
// lines made of the pieces a heading search can trip on.
func TestDecisionTitlesBySearch(t *testing.T) {
	byLine := func(s string) []string {
		q := &Questions{d: splitString(s), ledger: true}
		q.index()
		var out []string
		for _, b := range q.Blocks() {
			out = append(out, b.QID)
		}
		return out
	}
	pieces := []string{"##", "#", " ", "   ", "\t", "\n", "\r\n", "a", "q-2026-11-29-001 answered", "###"}
	rng := rand.New(rand.NewPCG(7, 11))
	cases := []string{"", "##", "## a", " ## a\n  ## b\n   ## c\n    ## d", "x ## y\n## z", "## a ## b\n", utf8BOM + "## a\n"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		got := decisionTitles([]byte(c))
		if want := byLine(c); !slices.Equal(got, want) {
			t.Fatalf("DecisionEntries(%q) titles = %q, want %q", c, got, want)
		}
	}
}
