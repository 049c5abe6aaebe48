package mdstore

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// The gate and SLA fields of a question block (docs/formats.md): the
// values a gate may take and the shape of an SLA, shared by the engine,
// configuration loading and doctor's checks.

// Gates are the values of a question's gate field, in order of how much they stop.
var Gates = []string{"advisory", "validating", "blocking", "escalating"}

// ValidGate reports whether g is one of Gates.
func ValidGate(g string) bool { return slices.Contains(Gates, g) }

// slaUnit is the unit an SLA ends in, or 0 when c is not one.
func slaUnit(c byte) time.Duration {
	switch c {
	case 's':
		return time.Second
	case 'm':
		return time.Minute
	case 'h':
		return time.Hour
	case 'd':
		return 24 * time.Hour
	}
	return 0
}

// SplitSLA splits an SLA shaped as digits and a unit ("15m"), after
// trimming blanks; ok is false for any other shape. (Every block is checked
// on each write, so this is plain code rather than a regular expression.)
func SplitSLA(s string) (digits string, unit time.Duration, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return "", 0, false
	}
	digits, unit = s[:len(s)-1], slaUnit(s[len(s)-1])
	if unit == 0 || !isDigits(digits) {
		return "", 0, false
	}
	return digits, unit, true
}

// MaxSLA is the longest SLA a question may have.
const MaxSLA = 365 * 24 * time.Hour

// ParseSLA reads "15m", "4h", "24h", "2d"; ok is false for "none", "", a
// zero SLA, text that does not parse and anything above MaxSLA.
func ParseSLA(s string) (d time.Duration, ok bool) {
	digits, unit, ok := SplitSLA(s)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || int64(n) > int64(MaxSLA/unit) { // compared before multiplying: nothing overflows
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// isDigits reports whether s is made only of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Question statuses: the status field of a block.
const (
	StatusOpen     = "open"
	StatusAnswered = "answered"
	StatusDropped  = "dropped"
	StatusRejected = "rejected"
)

// Statuses are the values a block's status field may hold.
var Statuses = []string{StatusOpen, StatusAnswered, StatusDropped, StatusRejected}

// Cursor statuses: the status key of state.md.
const (
	CursorRunning  = "running"
	CursorAwaiting = "awaiting_human"
	CursorBlocked  = "blocked"
	// CursorDone is DevRites' closed workflow: read and checked, never
	// written by the engine.
	CursorDone = "done"
)

// CursorStatuses are the values state.md's status may hold: the engine's
// three, and done, the closed workflow of DevRites.
var CursorStatuses = []string{CursorRunning, CursorAwaiting, CursorBlocked, CursorDone}

// ValidSLA reports whether s is an SLA a block may hold: "none", or a
// duration ParseSLA reads.
func ValidSLA(s string) bool {
	if s == "none" {
		return true
	}
	_, ok := ParseSLA(s)
	return ok
}

// HeadingGate is the gate a block's heading names after its id ("## Q-002
// validating"), which stands for the gate of a block with no gate field.
func HeadingGate(b *Block) string {
	return strings.ToLower(b.Label())
}
