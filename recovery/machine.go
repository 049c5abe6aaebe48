package recovery

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Fingerprint names a failure: the first 12 hex digits of the SHA-256 of
// command, NUL, the exit code in decimal, NUL, and the decisive stderr line.
func Fingerprint(command string, exit int, stderrLine string) string {
	sum := sha256.Sum256([]byte(command + "\x00" + strconv.Itoa(exit) + "\x00" + stderrLine))
	return hex.EncodeToString(sum[:])[:12]
}

// Action is what the agent does next: "retry", "escalate <level>",
// "parked" or "stopped".
type Action string

// Actions without a level.
const (
	Retry      Action = "retry"
	ParkedNow  Action = "parked"
	StoppedNow Action = "stopped"
)

// EscalateTo is the action that moves to level.
func EscalateTo(level string) Action { return Action("escalate " + level) }

// Correct applies one correction to a ladder entry: the pure state machine
// of the package. A parked entry is returned as it is.
func Correct(e Entry, progress bool) (Entry, Action) {
	if e.State == Parked {
		return e, ParkedNow
	}
	e.Total = min(e.Total+1, maxCount)
	if progress {
		e.Attempts = 0
		return e, Retry
	}
	e.Attempts++
	if e.Attempts < Spend {
		return e, Retry
	}
	i := ladderIndex(e.Level)
	if i < 0 || i+1 >= len(Ladder) {
		e.State = Parked
		return e, ParkedNow
	}
	e.Level, e.Attempts = Ladder[i+1], 0
	return e, EscalateTo(e.Level)
}

// Fail applies one failure of the resolver to a resolver entry: the first
// answers retry, any later one stops.
func Fail(e Entry) (Entry, Action) {
	e.Attempts = min(e.Attempts+1, maxCount)
	e.Total = min(e.Total+1, maxCount)
	if e.Attempts < 2 {
		return e, Retry
	}
	e.State = Stopped
	return e, StoppedNow
}

// Record counts a correction of fp (a new fingerprint starts at direct). A
// note, when given, replaces the entry's note. A parked entry is not
// changed. It fails with ErrKind when fp is a resolver failure.
func (l *Ledger) Record(fp string, progress bool, note, now string) (Entry, Action, error) {
	e, ok := l.Get(fp)
	if !ok {
		e = Entry{Fingerprint: fp, Level: Direct, State: Open}
	}
	if e.Level == Resolver {
		return e, "", ErrKind
	}
	next, act := Correct(e, progress)
	if next == e {
		return e, act, nil
	}
	next.UpdatedAt = now
	if note != "" {
		next.Note = note
	}
	return l.put(next), act, nil
}

// ResolverFailed counts a failure of the resolver with fingerprint fp. The
// note, when given, replaces the entry's note. It fails with ErrKind when
// fp is on the correction ladder.
func (l *Ledger) ResolverFailed(fp, note, now string) (Entry, Action, error) {
	e, ok := l.Get(fp)
	if !ok {
		e = Entry{Fingerprint: fp, Level: Resolver, State: Open}
	}
	if e.Level != Resolver {
		return e, "", ErrKind
	}
	next, act := Fail(e)
	next.UpdatedAt = now
	if note != "" {
		next.Note = note
	}
	return l.put(next), act, nil
}

// Reopen sets a parked entry back to direct, or a stopped resolver entry
// back to open, with 0 attempts and the total kept. It reports whether the
// entry changed: an open entry is left as it is. An unknown fp is
// ErrUnknown.
func (l *Ledger) Reopen(fp, now string) (Entry, bool, error) {
	e, ok := l.Get(fp)
	if !ok {
		return Entry{}, false, ErrUnknown
	}
	switch e.State {
	case Parked:
		e.Level = Direct
	case Stopped:
	default:
		return e, false, nil
	}
	e.State, e.Attempts, e.UpdatedAt = Open, 0, now
	return l.put(e), true, nil
}

// ReopenAll reopens every parked or stopped entry and returns them.
func (l *Ledger) ReopenAll(now string) []Entry {
	out := []Entry{}
	for _, e := range l.Entries() {
		if r, changed, _ := l.Reopen(e.Fingerprint, now); changed {
			out = append(out, r)
		}
	}
	return out
}
