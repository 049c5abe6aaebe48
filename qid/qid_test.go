package qid

import (
	"fmt"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Next(tt.existing, day); got != tt.want {
				t.Errorf("Next(%v) = %s, want %s", tt.existing, got, tt.want)
			}
		})
	}
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
	for _, s := range []string{"", "q-2026-11-29-01", "q-2026-13-01-001", "x-2026-11-29-001", "q-2026-11-29-001 ", "q-2026-11-29-99999999999999999999"} {
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
	fmt.Println(Next([]string{"q-2026-11-29-001", "q-2026-11-29-004"}, "2026-11-29"))
	// Output: q-2026-11-29-005
}
