package question

import "strings"

// A placeholder is never an answer (docs/formats.md, "Placeholders"). The
// commands the engine prints hold "<answer>", "<one of: a, b>" and the
// like for a person to fill in; one pasted as printed, or a request for
// help after the qid, must not record approval: the engine refuses a
// resolution's text that IsPlaceholder says is one.

// IsPlaceholder reports whether t is one "<…>" and nothing else, on one
// line: what a printed command holds where a person fills in a value.
func IsPlaceholder(t string) bool {
	if len(t) < 3 || t[0] != '<' || t[len(t)-1] != '>' {
		return false
	}
	inner := t[1 : len(t)-1]
	return !strings.ContainsAny(inner, "<>\n") && strings.TrimSpace(inner) != ""
}
