package engine

import (
	"errors"
	"testing"
	"time"
)

func TestParseSLA(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"15m", 15 * time.Minute, true},
		{"4h", 4 * time.Hour, true},
		{" 24h ", 24 * time.Hour, true},
		{"365d", MaxSLA, true},
		{"8760h", MaxSLA, true},
		{"366d", 0, false},
		{"8761h", 0, false},
		{"200000d", 0, false}, // overflowed time.Duration before it was bounded
		{"106752d", 0, false}, // just past the largest time.Duration in days
		{"99999999999999999999s", 0, false},
		{"0m", 0, false},
		{"none", 0, false},
		{"", 0, false},
		{"-1h", 0, false},
		{"15 m", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseSLA(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseSLA(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestSLAError(t *testing.T) {
	for _, ok := range []string{"none", "15m", "365d"} {
		if err := slaError(ok); err != nil {
			t.Errorf("slaError(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"366d", "200000d", "soon", "0h", ""} {
		if err := slaError(bad); !errors.Is(err, ErrBadArgs) {
			t.Errorf("slaError(%q) = %v, want %v", bad, err, ErrBadArgs)
		}
	}
}

// FuzzParseSLA: an SLA that parses is positive and at most MaxSLA, and
// slaError agrees with parseSLA.
func FuzzParseSLA(f *testing.F) {
	for _, s := range []string{"15m", "365d", "200000d", "9223372036854775807s", "0d", "none"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseSLA(s)
		if ok && (d <= 0 || d > MaxSLA) {
			t.Fatalf("parseSLA(%q) = %v, outside (0, %v]", s, d, MaxSLA)
		}
		if !ok && d != 0 {
			t.Fatalf("parseSLA(%q) = %v, false", s, d)
		}
		if got := slaError(s) == nil; got != (ok || s == "none") {
			t.Fatalf("slaError(%q) nil = %v, parseSLA ok = %v", s, got, ok)
		}
	})
}
