package config

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/mdstore"
)

// Names a person reads and pastes back (docs/trust.md, "Printed commands
// are safe to paste"): route names, --by and slugs are limited, where they
// are written, to letters, digits, spaces and . _ @ + - : (not first), so a
// name can never be a shell instruction; every printed command quotes them
// all the same (shellWord).

// nameRune reports whether r may be in a name.
func nameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || strings.ContainsRune("._@+-:", r)
}

// CheckName refuses a name (what says which: "--by", "--route") that holds
// anything but the safe set, or starts with '-'. "" is left to the caller.
func CheckName(what, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	if strings.HasPrefix(name, "-") {
		return mdstore.Errorf(ErrBadArgs, "%s %q starts with '-'", what, mdstore.OneLine(name)).Hint(nameHint)
	}
	for _, r := range name {
		if !nameRune(r) {
			return mdstore.Errorf(ErrBadArgs, "%s %q holds %q", what, mdstore.OneLine(name), r).Hint(nameHint)
		}
	}
	return nil
}

const nameHint = "a name holds letters, digits, spaces and . _ @ + - : (not first)"

// CleanText normalises text a caller supplies: line breaks become "\n";
// NUL bytes and invalid UTF-8 are refused. what names the text in errors.
func CleanText(what, s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", mdstore.Errorf(ErrBadArgs, "%s is not valid UTF-8", what)
	}
	for _, r := range s {
		if r == 0 {
			return "", mdstore.Errorf(ErrBadArgs, "%s contains a NUL byte", what)
		}
	}
	return normalizeNewlines(s), nil
}

func normalizeNewlines(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' {
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			out = append(out, '\n')
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}
