package config

import "errors"

// Sentinel errors of configuration loading and rule edits. The engine
// re-exports them beside its own, so the command line maps every kind to
// an exit code in one place (engine.KindOf).
var (
	ErrBadArgs  = errors.New("bad arguments")
	ErrConflict = errors.New("conflict")
	// ErrUnknownRule is the kind of a rule id that is not in rules.yaml.
	ErrUnknownRule = errors.New("unknown rule")
)
