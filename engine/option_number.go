package engine

import (
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// An option is never a number (docs/formats.md, "Options"): an answer made
// only of digits picks the option of that number, so an option titled "3"
// could never be picked by its title, and a person who typed 3 meaning it
// would record another option.

// numberTitles refuses options whose title (the text before " — ",
// without the recommended mark) reads as an option number: digits, alone
// or as "#3", "3.", "3)" or "option 3".
func numberTitles(opts []string) error {
	for i, o := range opts {
		t := strings.TrimSpace(optionTitle(o))
		if n, ok := numberTitle(t); ok {
			return mdstore.Errorf(ErrBadArgs, "option %d is titled %q, a number: an answer %s picks option %s by its number, never an option by its title", i+1, t, n, n).
				Hint("nothing was written; title the option in words and keep the number after \" — \", e.g. --option \"Three retries — 3\"")
		}
	}
	return nil
}

// numberTitle returns the number a title reads as, if it reads as one.
func numberTitle(t string) (string, bool) {
	low := strings.ToLower(t)
	for _, p := range []string{"option ", "#"} {
		low = strings.TrimSpace(strings.TrimPrefix(low, p))
	}
	low = strings.TrimRight(low, ".)")
	return low, isNumber(low)
}
