package engine

import (
	"errors"

	"github.com/devrites/devrites-engine/mdstore"
)

// Sentinel errors of the engine, beside mdstore's. The command line maps them
// to exit codes in one place.
var (
	ErrBadArgs   = errors.New("bad arguments")
	ErrConflict  = errors.New("conflict")
	ErrNotOpen   = errors.New("question is not open")
	ErrPaused    = errors.New("one question per pause")
	ErrSchema    = errors.New("schema refused")
	ErrExists    = errors.New("workspace already exists")
	ErrStopped   = errors.New("workspace is stopped")
	ErrAmbiguous = errors.New("ambiguous qid")
)

// Re-exported so callers of engine need not import mdstore for the common ones.
var (
	ErrUnknownQID = mdstore.ErrNoQuestion
	ErrMalformed  = mdstore.ErrMalformed
)
