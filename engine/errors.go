package engine

import (
	"errors"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/recovery"
	"github.com/devrites/devrites-engine/trust"
)

// Sentinel errors of the engine, beside mdstore's. The command line maps them
// to exit codes in one place.
var (
	ErrBadArgs   = config.ErrBadArgs
	ErrConflict  = config.ErrConflict
	ErrNotOpen   = errors.New("question is not open")
	ErrPaused    = errors.New("one question per pause")
	ErrSchema    = errors.New("schema refused")
	ErrStopped   = errors.New("workspace is stopped")
	ErrAmbiguous = errors.New("ambiguous qid")
	// ErrUntrusted: a workspace file would run a command, and this
	// machine's person has not trusted its content (docs/trust.md).
	ErrUntrusted = errors.New("not trusted")
	// ErrChanged: a token, link or --fingerprint names a question that
	// no question of the workspace is now (pick.go).
	ErrChanged = errors.New("the question changed")
)

// Remedies of the workflow (mdstore.Remedy): what a person can do about an
// error of the engine. The command line words each one.
const (
	RunDoctorFix   mdstore.Remedy = mdstore.OtherRemedies + iota // let doctor repair it (renumber, reconcile)
	ListQuestions                                                // see which qids exist
	ResolveAwaited                                               // answer the awaited question (Error.Subject: the command that does)
	LiftStop                                                     // a person lifts the stop
	UpgradeEngine                                                // a newer binary wrote the workspace
	ShowAFK                                                      // see what the AFK file does
	RespondAs                                                    // answer as one of a routed question's responders (Error.Subject: the command, with --by)
)

// Re-exported so callers of engine need not import mdstore for the common ones.
var (
	ErrUnknownQID = mdstore.ErrNoQuestion
	ErrMalformed  = mdstore.ErrMalformed
	// ErrUnknownTrust: a file revoked is not in the trust store.
	ErrUnknownTrust = trust.ErrNotTrusted
	// ErrUnknownRule: a rule id that is not in rules.yaml.
	ErrUnknownRule = config.ErrUnknownRule
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
	{ErrChanged, "question-changed"},
	{mdstore.ErrMalformed, "malformed"},
	{ErrConflict, "conflict"},
	{ErrUntrusted, "untrusted"},
	{ErrPaused, "paused"},
	{ErrStopped, "stopped"},
	{ErrNotOpen, "not-open"},
	{mdstore.ErrExists, "exists"},
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
