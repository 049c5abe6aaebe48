package mdstore

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers test them with errors.Is; the command line maps
// each to its exit code in one place.
var (
	ErrNoWorkspace = errors.New("no workspace found")
	ErrMissing     = errors.New("required file is missing")
	ErrNoQuestion  = errors.New("unknown qid")
	ErrMalformed   = errors.New("workspace malformed")
	ErrBusy        = errors.New("workspace is locked by another process")
	ErrBadSlug     = errors.New("invalid slug")
)

// HintError carries "hint:" lines for a person alongside an error.
type HintError struct {
	Err   error
	Hints []string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// WithHint attaches hints to err.
func WithHint(err error, hints ...string) error {
	return &HintError{Err: err, Hints: hints}
}

// Hints returns the hints attached anywhere in err's chain.
func Hints(err error) []string {
	var out []string
	for err != nil {
		if h, ok := err.(*HintError); ok {
			out = append(out, h.Hints...)
		}
		err = errors.Unwrap(err)
	}
	return out
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrMalformed)
}
