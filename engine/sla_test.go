package engine

import (
	"errors"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

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

// FuzzParseSLA: an SLA that parses is positive and at most mdstore.MaxSLA, and
// slaError agrees with parseSLA.
func FuzzParseSLA(f *testing.F) {
	for _, s := range []string{"15m", "365d", "200000d", "9223372036854775807s", "0d", "none"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := mdstore.ParseSLA(s)
		if ok && (d <= 0 || d > mdstore.MaxSLA) {
			t.Fatalf("mdstore.ParseSLA(%q) = %v, outside (0, %v]", s, d, mdstore.MaxSLA)
		}
		if !ok && d != 0 {
			t.Fatalf("mdstore.ParseSLA(%q) = %v, false", s, d)
		}
		if got := slaError(s) == nil; got != (ok || s == "none") {
			t.Fatalf("slaError(%q) nil = %v, parseSLA ok = %v", s, got, ok)
		}
	})
}
