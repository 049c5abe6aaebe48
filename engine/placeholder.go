package engine

import (
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// A placeholder is never an answer (docs/formats.md, "Placeholders"). The
// commands the engine prints hold "<answer>", "<one of: a, b>" and the
// like for a person to fill in; one pasted as printed, or a request for
// help after the qid, must not record approval.

// placeholderText refuses a resolution's text that is a placeholder
// (the whole text, trimmed, one "<…>") or a bare --help or -h. kind is
// the resolution's status, for the words of the error.
func placeholderText(kind, text string) error {
	t := strings.TrimSpace(text)
	// The line pasted where no shell takes its quotes off (a batch file,
	// a tool's argument) keeps them: "<answer>" is the placeholder too.
	if len(t) > 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	what := textOf[kind]
	switch {
	case t == "--help" || t == "-h":
		return mdstore.Errorf(ErrBadArgs, "the %s is %q: a request for help is never an answer", what, t).
			Hint("nothing was written; for help run: devrites-engine help state resolve")
	case isPlaceholder(t) && kind == StatusAnswered:
		return mdstore.Errorf(ErrBadArgs, "the %s is %q, the placeholder of the printed command", what, t).
			Hint("nothing was written; replace " + t + " with the answer itself: an option number, an option's title, or words")
	case isPlaceholder(t):
		return mdstore.Errorf(ErrBadArgs, "the %s is %q, the placeholder of the printed command", what, t).
			Hint("nothing was written; replace " + t + " with the " + what + " itself, in words")
	}
	return nil
}

// isPlaceholder reports whether t is one "<…>" and nothing else, on one
// line: what a printed command holds where a person fills in a value.
func isPlaceholder(t string) bool {
	if len(t) < 3 || t[0] != '<' || t[len(t)-1] != '>' {
		return false
	}
	inner := t[1 : len(t)-1]
	return !strings.ContainsAny(inner, "<>\n") && strings.TrimSpace(inner) != ""
}
