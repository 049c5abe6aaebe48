package qid

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	const day = "2026-11-29"
	tests := []struct {
		name     string
		existing []string
		want     string
	}{
		{"empty", nil, "q-2026-11-29-001"},
		{"other days only", []string{"q-2026-11-28-007"}, "q-2026-11-29-001"},
		{"one above highest", []string{"q-2026-11-29-001", "q-2026-11-29-002"}, "q-2026-11-29-003"},
		{"gaps never filled", []string{"q-2026-11-29-001", "q-2026-11-29-005"}, "q-2026-11-29-006"},
		{"past 999", []string{"q-2026-11-29-999"}, "q-2026-11-29-1000"},
		{"four digits", []string{"q-2026-11-29-1041"}, "q-2026-11-29-1042"},
		{"zero-padded wide suffix", []string{"q-2026-11-29-0005"}, "q-2026-11-29-006"},
		{"malformed ignored", []string{"q-2026-11-29-x", "q-2026-11-29-01"}, "q-2026-11-29-001"},
		{"suffix above MaxN ignored", []string{"q-2026-11-29-9223372036854775807", "q-2026-11-29-1000000"}, "q-2026-11-29-001"},
		{"up to MaxN", []string{"q-2026-11-29-999998"}, "q-2026-11-29-999999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Next(tt.existing, nil, day)
			if err != nil || got != tt.want {
				t.Errorf("Next(%v) = %s, %v, want %s", tt.existing, got, err, tt.want)
			}
		})
	}
}

func TestNextExhausted(t *testing.T) {
	for _, existing := range [][]string{{"q-2026-11-29-999999"}, {"q-2026-11-29-999998", "q-2026-11-29-999999"}} {
		got, err := Next(existing, nil, "2026-11-29")
		if !errors.Is(err, ErrExhausted) {
			t.Errorf("Next(%v) = %q, %v, want ErrExhausted", existing, got, err)
		}
	}
}

// FuzzNext: whatever ids a file holds, the next id parses, is of the day,
// is not among them, and lies above every id of the day.
func FuzzNext(f *testing.F) {
	f.Add("q-2026-11-29-001", "q-2026-11-29-9223372036854775807")
	f.Add("q-2026-11-29-999999", "")
	f.Add("q-2026-11-29-0005", "q-2026-11-29--1")
	f.Fuzz(func(t *testing.T, a, b string) {
		existing := []string{a, b}
		got, err := Next(existing, nil, "2026-11-29")
		if err != nil {
			if !errors.Is(err, ErrExhausted) {
				t.Fatalf("Next(%q): %v", existing, err)
			}
			return
		}
		id, perr := Parse(got)
		if perr != nil || id.Date != "2026-11-29" || id.N < 1 || id.N > MaxN {
			t.Fatalf("Next(%q) = %q (%v)", existing, got, perr)
		}
		for _, s := range existing {
			if s == got {
				t.Fatalf("Next(%q) = %q, already used", existing, got)
			}
			if e, err := Parse(s); err == nil && e.Date == id.Date && e.N >= id.N {
				t.Fatalf("Next(%q) = %q, not above %q", existing, got, s)
			}
		}
	})
}

func TestParse(t *testing.T) {
	for _, s := range []string{"q-2026-11-29-001", "q-2026-02-28-12345"} {
		id, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if id.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, id.String())
		}
	}
	for _, s := range []string{"", "q-2026-11-29-01", "q-2026-13-01-001", "x-2026-11-29-001", "q-2026-11-29-001 ", "q-2026-11-29-99999999999999999999", "q-2026-11-29-1000000"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) succeeded, want error", s)
		}
	}
}

func TestClock(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2026-11-29T14:02:11Z", "2026-11-29T14:02:11Z"},
		{"2026-11-29T23:30:00-02:00", "2026-11-30T01:30:00Z"},
		{"2026-11-29", "2026-11-29T00:00:00Z"},
	}
	for _, tt := range tests {
		now, err := Clock(tt.in)
		if err != nil {
			t.Fatalf("Clock(%q): %v", tt.in, err)
		}
		if got := Timestamp(now()); got != tt.want {
			t.Errorf("Clock(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if _, err := Clock("yesterday"); err == nil {
		t.Error("Clock(yesterday) succeeded, want error")
	}
	now, _ := Clock("")
	if d := time.Since(now()); d > time.Minute || d < -time.Minute {
		t.Errorf("Clock(\"\") is %v off the wall clock", d)
	}
}

func ExampleNext() {
	id, _ := Next([]string{"q-2026-11-29-001", "q-2026-11-29-004"}, nil, "2026-11-29")
	fmt.Println(id)
	// Output: q-2026-11-29-005
}

func TestCheck(t *testing.T) {
	tests := []struct {
		id   string
		ok   bool
		form string // canonical, numbered, named or ""
	}{
		{"q-2026-11-29-001", true, "canonical"},
		{"q-2026-11-29-1000", true, "canonical"},
		{"q-2026-13-45-001", false, "canonical"},
		{"q-2026-11-29-1000000", false, "canonical"},
		{"Q-012", true, "numbered"},
		{"q-3", true, "numbered"},
		{"Q-0", true, "numbered"},
		{"q-999999", true, "numbered"},
		{"q-1000000", false, "numbered"},
		{"Q-9223372036854775808", false, "numbered"},
		{"seal-important-accept", true, "named"},
		{"Notes", true, "named"},
		{"DEC-001", true, "named"},
		{"a.b_c-d", true, "named"},
		{"q-2026-11-29-1", false, ""},
		{"Q-2026-11-29-001", true, ""}, // a canonical id in upper case: looked up without regard to case
		{"Q-2026-13-29-001", false, ""},
		{"q-notes", false, ""},
		{"Q-", false, ""},
		{"q", true, "named"},
		{"42", false, ""},
		{"", false, ""},
		{"not a qid", false, ""},
		{"x/y", false, ""},
		{"-x", false, ""},
		{"é", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			if err := Check(tt.id); (err == nil) != tt.ok {
				t.Errorf("Check(%q) = %v, want ok %v", tt.id, err, tt.ok)
			}
			form := ""
			switch {
			case Shaped(tt.id):
				form = "canonical"
			case Numbered(tt.id):
				form = "numbered"
			case Named(tt.id):
				form = "named"
			}
			if form != tt.form {
				t.Errorf("form of %q: got %q, want %q", tt.id, form, tt.form)
			}
		})
	}
}

func TestNamedLength(t *testing.T) {
	long := "a" + strings.Repeat("b", MaxName-1)
	if !Named(long) || Named(long+"c") {
		t.Errorf("Named: a name of %d bytes is the longest", MaxName)
	}
}

// validDate agrees with time.Parse on every day of four years (a leap year,
// a century that is not one, and one that is) and on out-of-range parts.
func TestValidDateAgreesWithTime(t *testing.T) {
	for _, y := range []int{2024, 2026, 2100, 2000, 0} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
				_, err := time.Parse(time.DateOnly, s)
				if got := validDate(s); got != (err == nil) {
					t.Errorf("validDate(%s) = %v, time.Parse says %v", s, got, err)
				}
			}
		}
	}
}

// Ids mentioned elsewhere are passed over but set no high-water mark.
func TestNextTaken(t *testing.T) {
	for _, tc := range []struct {
		existing, taken []string
		want            string
	}{
		{[]string{"q-2026-11-29-001"}, []string{"q-2026-11-29-002", "q-2026-11-29-003"}, "q-2026-11-29-004"},
		{nil, []string{"q-2026-11-29-999999"}, "q-2026-11-29-001"},
		{nil, []string{"q-2026-11-29-001", "q-2026-11-28-002"}, "q-2026-11-29-002"},
	} {
		if got, err := Next(tc.existing, tc.taken, "2026-11-29"); err != nil || got != tc.want {
			t.Errorf("Next(%q, %q) = %s, %v, want %s", tc.existing, tc.taken, got, err, tc.want)
		}
	}
}

func TestMap(t *testing.T) {
	m := map[string]string{"q-2026-11-29-001": "q-2026-11-29-004"}
	f := func(id string) string {
		if to, ok := m[id]; ok {
			return to
		}
		return id
	}
	for in, want := range map[string]string{
		"resolve q-2026-11-29-001 now":                   "resolve q-2026-11-29-004 now",
		"q-2026-11-29-001,q-2026-11-29-002":              "q-2026-11-29-004,q-2026-11-29-002",
		"xq-2026-11-29-001 q-2026-11-29-0012 no id here": "xq-2026-11-29-001 q-2026-11-29-0012 no id here",
		"": "",
	} {
		if got := Map(in, f); got != want {
			t.Errorf("Map(%q) = %q, want %q", in, got, want)
		}
	}
}

// All yields the ids Map would replace, in order, and stops when asked.
func TestAll(t *testing.T) {
	for in, want := range map[string][]string{
		"resolve q-2026-11-29-001 now":                          {"q-2026-11-29-001"},
		"q-2026-11-29-001,q-2026-11-29-1000 (q-2026-11-30-002)": {"q-2026-11-29-001", "q-2026-11-29-1000", "q-2026-11-30-002"},
		"xq-2026-11-29-001 q-2026-11-29-0012 no id here":        {"q-2026-11-29-0012"},
		"no id here, nor q-2026-11-29":                          nil,
		"":                                                      nil,
	} {
		if got := slices.Collect(All(in)); !slices.Equal(got, want) {
			t.Errorf("All(%q) = %q, want %q", in, got, want)
		}
	}
	for id := range All("q-2026-11-29-001 q-2026-11-29-002") {
		if id != "q-2026-11-29-001" {
			t.Fatalf("All went on after its loop stopped: %s", id)
		}
		break
	}
}
