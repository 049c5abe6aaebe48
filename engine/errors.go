package engine

import (
	"errors"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/recovery"
	"github.com/devrites/devrites-engine/trust"
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
	// ErrUntrusted: a workspace file would run a command, and this
	// machine's person has not trusted its content (SPEC §22).
	ErrUntrusted = errors.New("not trusted")
)

// Re-exported so callers of engine need not import mdstore for the common ones.
var (
	ErrUnknownQID = mdstore.ErrNoQuestion
	ErrMalformed  = mdstore.ErrMalformed
	// ErrUnknownTrust: a file revoked is not in the trust store.
	ErrUnknownTrust = trust.ErrNotTrusted
)

// kinds names each sentinel with the stable kind that the command line
// turns into an exit code and serve into an HTTP status; the first match
// wins, so an error that wraps two gets the more specific kind.
var kinds = []struct {
	err  error
	kind string
}{
	{mdstore.ErrBusy, "busy"},
	{ErrBadArgs, "bad-arguments"},
	{ErrNeedsPerson, "needs-person"},
	{mdstore.ErrBadSlug, "bad-arguments"},
	{ErrSchema, "schema"},
	{ErrAmbiguous, "ambiguous-qid"},
	{mdstore.ErrMalformed, "malformed"},
	{ErrConflict, "conflict"},
	{ErrUntrusted, "untrusted"},
	{ErrPaused, "paused"},
	{ErrStopped, "stopped"},
	{ErrNotOpen, "not-open"},
	{ErrExists, "exists"},
	{mdstore.ErrNoQuestion, "unknown-qid"},
	{recovery.ErrUnknown, "unknown-fingerprint"},
	{ErrUnknownRule, "unknown-rule"},
	{ErrUnknownTrust, "unknown-trust"},
	{mdstore.ErrNoWorkspace, "no-workspace"},
	{mdstore.ErrMissing, "missing-file"},
}

// KindOf returns the kind of err: one of the kinds above, or "io" for any
// other failure.
func KindOf(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return "io"
}
