package mdstore

import (
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
			got, ok := ParseSLA(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseSLA(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}
