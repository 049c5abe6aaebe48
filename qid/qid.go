package qid

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Shaped reports whether s has the shape of a question id, q-YYYY-MM-DD-NNN
// with three or more digits, without checking the date or the bound: the
// one definition of the form, used wherever an id is recognised.
func Shaped(s string) bool {
	if len(s) < 16 || s[:2] != "q-" || s[6] != '-' || s[9] != '-' || s[12] != '-' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if i == 6 || i == 9 || i == 12 {
			continue
		}
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Numbered reports whether s has the shape of the short ids DevRites
// workspaces use, a "q" or "Q", a hyphen and digits: Q-012, q-3. The engine
// reads and resolves them; it never allocates one.
func Numbered(s string) bool {
	if len(s) < 3 || s[0] != 'q' && s[0] != 'Q' || s[1] != '-' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MaxName is the longest name a named question block may have.
const MaxName = 128

// Named reports whether s has the shape of a named question block's id,
// such as seal-important-accept: an ASCII letter, then letters, digits,
// '.', '_' and '-', at most MaxName bytes. A name never starts with "q-"
// or "Q-": those are the numbered forms, so that a mistyped id such as
// q-2026-11-29-1 is never taken for a name.
func Named(s string) bool {
	if s == "" || len(s) > MaxName || !letter(s[0]) || len(s) > 1 && s[1] == '-' && (s[0] == 'q' || s[0] == 'Q') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(letter(c) || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Check says whether s is a question id of a form some workspace uses: a
// valid canonical id (Parse) in either case (Q-2026-11-29-001 is typed as
// often as it is written: lookups match ids in another case when unique),
// a numbered one with a number of at most MaxN, or a name. The error says
// what is wrong.
func Check(s string) error {
	switch {
	case Shaped(s):
		_, err := Parse(s)
		return err
	case s != "" && s[0] == 'Q' && Shaped("q"+s[1:]):
		_, err := Parse("q" + s[1:])
		return err
	case Numbered(s):
		if n, err := strconv.Atoi(s[2:]); err != nil || n > MaxN {
			return fmt.Errorf("%q is not a question id: number above %d", s, MaxN)
		}
		return nil
	case Named(s):
		return nil
	}
	return NotAnID(s)
}

// NotAnID is the error of a text that is no question id: a name is one
// only where a named question has it, so the caller that finds none says
// this too.
func NotAnID(s string) error {
	return fmt.Errorf("%q is not a question id (want q-YYYY-MM-DD-NNN, Q-NNN or the name of a named question)", s)
}

// MaxN is the largest suffix of a question id.
const MaxN = 999999

// ErrExhausted: the day already has an id with the suffix MaxN.
var ErrExhausted = errors.New("no question id left for the day")

// ID is a parsed question id.
type ID struct {
	Date string // YYYY-MM-DD
	N    int
}

// Parse parses "q-2026-11-29-001".
func Parse(s string) (ID, error) {
	if !Shaped(s) {
		return ID{}, fmt.Errorf("%q is not a question id (want q-YYYY-MM-DD-NNN)", s)
	}
	date, suffix := s[2:12], s[13:]
	if !validDate(date) {
		return ID{}, fmt.Errorf("%q is not a question id: bad date %s", s, date)
	}
	n, err := strconv.Atoi(suffix)
	if err != nil || n > MaxN {
		return ID{}, fmt.Errorf("%q is not a question id: suffix above %d", s, MaxN)
	}
	return ID{Date: date, N: n}, nil
}

// validDate reports whether d, YYYY-MM-DD in digits, is a day of the
// calendar, as time.Parse(time.DateOnly, d) would: it runs for every id of
// a file, and parsing a time is ten times slower.
func validDate(d string) bool {
	num := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			n = n*10 + int(s[i]-'0')
		}
		return n
	}
	y, m, day := num(d[:4]), num(d[5:7]), num(d[8:10])
	if m < 1 || m > 12 || day < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return day <= days
}

// String formats the id with at least three digits.
func (id ID) String() string { return fmt.Sprintf("q-%s-%03d", id.Date, id.N) }

// Next returns the id the next question raised on date gets, given the ids
// present in questions.md: one above the highest suffix of that date, or 001,
// advanced past any id already used there or in taken (ids mentioned
// elsewhere, which set no high-water mark: a Log line may quote any text).
// It fails with ErrExhausted when that would pass MaxN.
func Next(existing, taken []string, date string) (string, error) {
	high := 0
	for _, s := range existing {
		if id, err := Parse(s); err == nil && id.Date == date && id.N > high {
			high = id.N
		}
	}
	id := ID{Date: date, N: high + 1}
	// Scans, not a map: the id is almost never there.
	for slices.Contains(existing, id.String()) || slices.Contains(taken, id.String()) {
		id.N++
	}
	if id.N > MaxN {
		return "", fmt.Errorf("%s: %w", date, ErrExhausted)
	}
	return id.String(), nil
}

// Date is the UTC date of t, as qids carry it.
func Date(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Timestamp formats t as every written timestamp is: UTC, second precision.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Clock returns the time source: the wall clock, or the fixed instant that
// DEVRITES_NOW gives (RFC 3339, or YYYY-MM-DD for midnight UTC), so that
// tests and replays are deterministic.
func Clock(devritesNow string) (func() time.Time, error) {
	v := strings.TrimSpace(devritesNow)
	if v == "" {
		return time.Now, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		t, err = time.Parse(time.DateOnly, v)
	}
	if err != nil {
		return nil, fmt.Errorf("DEVRITES_NOW=%q: want RFC 3339 (2026-11-29T14:02:11Z) or YYYY-MM-DD", devritesNow)
	}
	return func() time.Time { return t }, nil
}
