package question

import (
	"regexp"
	"testing"
)

// The option markers are read by hand, for speed; the regular expressions
// they stand for are the reference.
var markerRefs = map[string]struct {
	re *regexp.Regexp
	fn func(string) int
}{
	"number": {regexp.MustCompile(`^\s*[0-9]+[.)]\s+`), OptionNumber},
	"bullet": {regexp.MustCompile(`^\s*[-*+]\s+`), optionBullet},
}

func TestOptionMarkersAgreeWithTheirPatterns(t *testing.T) {
	atoms := []string{"", " ", "\t", "\n", "\r", "\f", "\v", "1", "42", ".", ")", "-", "*", "+", "x", "é", "\u00a0", "2."}
	var inputs []string
	var grow func(prefix string, depth int)
	grow = func(prefix string, depth int) {
		inputs = append(inputs, prefix, prefix+"Fixed delay")
		if depth == 0 {
			return
		}
		for _, a := range atoms {
			grow(prefix+a, depth-1)
		}
	}
	grow("", 4)
	for name, m := range markerRefs {
		for _, in := range inputs {
			want := -1
			if loc := m.re.FindStringIndex(in); loc != nil {
				want = loc[1]
			}
			if got := m.fn(in); got != want {
				t.Fatalf("%s(%q) = %d, want %d", name, in, got, want)
			}
		}
	}
}
