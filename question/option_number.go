package question

import "strings"

// An option is never a number (docs/formats.md, "Options"): an answer made
// only of digits picks the option of that number, so an option titled "3"
// could never be picked by its title, and a person who typed 3 meaning it
// would record another option. The engine refuses such options when a
// question is raised (NumberTitle says which).

// OptionNumber returns where the text of an option starts after its number
// ("  2. ", "3) "): blanks, digits, '.' or ')', and one blank or more; -1
// when l does not start so. It runs for every option a command reads.
func OptionNumber(l string) int {
	i := skipBlanks(l, 0)
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == i || j == len(l) || l[j] != '.' && l[j] != ')' {
		return -1
	}
	return afterMark(l, j+1)
}

// optionBullet is OptionNumber for a bullet ("- ", "* ", "+ ").
func optionBullet(l string) int {
	i := skipBlanks(l, 0)
	if i == len(l) || l[i] != '-' && l[i] != '*' && l[i] != '+' {
		return -1
	}
	return afterMark(l, i+1)
}

// afterMark returns the index after the blanks at i, of which there must be
// one at least, or -1.
func afterMark(l string, i int) int {
	if j := skipBlanks(l, i); j > i {
		return j
	}
	return -1
}

// skipBlanks returns the index of the first byte from i that is not a space,
// tab, line feed, form feed or carriage return.
func skipBlanks(l string, i int) int {
	for i < len(l) && strings.IndexByte(" \t\n\f\r", l[i]) >= 0 {
		i++
	}
	return i
}

// NumberTitle returns the number a title reads as, if it reads as one:
// digits, alone or as "#3", "3.", "3)" or "option 3".
func NumberTitle(t string) (string, bool) {
	low := strings.ToLower(t)
	for _, p := range []string{"option ", "#"} {
		low = strings.TrimSpace(strings.TrimPrefix(low, p))
	}
	low = strings.TrimRight(low, ".)")
	return low, IsNumber(low)
}

// IsNumber reports whether s is made only of ASCII digits.
func IsNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
