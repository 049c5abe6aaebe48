package qid

import (
	"iter"
	"strings"
)

// Index finds the first canonical question id in s at or after byte i, as
// a whole word: not preceded by a letter, digit, '-' or '_', and not
// followed by a digit. It returns its span, or -1, -1. It is how every
// mention of an id in free text (a Log line, a decision's heading, a
// reference the merge driver renames) is found.
func Index(s string, i int) (start, end int) {
	for {
		j := strings.Index(s[i:], "q-")
		if j < 0 {
			return -1, -1
		}
		start := i + j
		end := start + 13 // "q-YYYY-MM-DD-", then the digits
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		if end <= len(s) && end-start >= 16 && Shaped(s[start:end]) && (start == 0 || !wordByte(s[start-1])) {
			return start, end
		}
		i = start + 2
	}
}

// All yields the canonical question ids in s, in order, as Index finds
// them.
func All(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; ; {
			start, end := Index(s, i)
			if start < 0 || !yield(s[start:end]) {
				return
			}
			i = end
		}
	}
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// Map replaces every canonical question id in s, found as Index finds
// them, by what f makes of it.
func Map(s string, f func(id string) string) string {
	if !strings.Contains(s, "q-") {
		return s
	}
	var b strings.Builder
	i := 0
	for {
		start, end := Index(s, i)
		if start < 0 {
			break
		}
		b.WriteString(s[i:start])
		b.WriteString(f(s[start:end]))
		i = end
	}
	b.WriteString(s[i:])
	return b.String()
}
