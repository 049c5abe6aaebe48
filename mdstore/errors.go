package mdstore

import (
	"errors"
	"fmt"
)

// Kinds of failure. Callers test them with errors.Is; the command line maps
// each to its exit code in one place. Their text never appears in a message:
// an error of a kind says what failed in its own words.
var (
	ErrNoWorkspace = errors.New("no workspace found")
	ErrMissing     = errors.New("required file is missing")
	ErrNoQuestion  = errors.New("unknown qid")
	ErrMalformed   = errors.New("workspace malformed")
	ErrBusy        = errors.New("workspace is locked by another process")
	ErrBadSlug     = errors.New("invalid slug")
	ErrExists      = errors.New("workspace already exists")
)

// Remedy is what a person can do about an error. The library names it; the
// command line words it (the commands to run, their flags), so that no
// command line is spelled out below it. mdstore names the remedies of its
// files; the remedies of a workflow (list the questions, lift a stop) are
// named by the packages that know it (engine), from OtherRemedies on.
type Remedy int

// Remedies.
const (
	NoRemedy  Remedy = iota
	RunDoctor        // check the workspace
	RunInit          // create the workspace (Error.Subject: the slug, or "")
	// OtherRemedies is the first value left to the packages above.
	OtherRemedies
)

// Error is a failure of a kind: its message is the decisive text alone, and
// it may name a remedy and carry hints for a person (plain advice, never a
// command line).
type Error struct {
	Kind    error  // one of the Err… kinds of mdstore or engine
	Remedy  Remedy // NoRemedy when there is none
	Subject string // what the remedy is about: a qid, a slug
	Hints   []string
	err     error // the message, and the causes it wraps
}

func (e *Error) Error() string        { return e.err.Error() }
func (e *Error) Unwrap() error        { return e.err }
func (e *Error) Is(target error) bool { return target == e.Kind }

// Errorf makes an error of kind whose message is format's; %w in format
// wraps a cause as fmt.Errorf does.
func Errorf(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, err: fmt.Errorf(format, args...)}
}

// Fix names the remedy of the error and what it is about.
func (e *Error) Fix(r Remedy, subject string) *Error {
	e.Remedy, e.Subject = r, subject
	return e
}

// Hint adds hints for a person.
func (e *Error) Hint(hints ...string) *Error {
	e.Hints = append(e.Hints, hints...)
	return e
}

// WithHint attaches hints to err, keeping its kind.
func WithHint(err error, hints ...string) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Kind: e.Kind, Remedy: e.Remedy, Subject: e.Subject, Hints: append(append([]string(nil), e.Hints...), hints...), err: err}
	}
	return &Error{Kind: nil, Hints: hints, err: err}
}

// Hints returns the hints attached anywhere in err's tree, outermost first,
// each once: errors joined by errors.Join or by several %w are searched too.
func Hints(err error) []string {
	var out []string
	seen := map[string]bool{}
	walk(err, func(e *Error) {
		for _, h := range e.Hints {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	})
	return out
}

// RemedyOf returns the first remedy named in err's tree.
func RemedyOf(err error) (Remedy, string) {
	r, subject := NoRemedy, ""
	walk(err, func(e *Error) {
		if r == NoRemedy && e.Remedy != NoRemedy {
			r, subject = e.Remedy, e.Subject
		}
	})
	return r, subject
}

// walk calls fn for every *Error in err's tree, depth first.
func walk(err error, fn func(*Error)) {
	if err == nil {
		return
	}
	if e, ok := err.(*Error); ok {
		fn(e)
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, c := range u.Unwrap() {
			walk(c, fn)
		}
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), fn)
	}
}
