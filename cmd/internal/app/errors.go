package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/claims"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mcp"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Exit codes, as the README documents them.
const (
	exitOK        = 0
	exitIO        = 1
	exitNoSpace   = 2
	exitPaused    = 3
	exitUnknown   = 4
	exitConflict  = 5
	exitMalformed = 6
	exitBadArgs   = 7
	exitBusy      = 8
)

// errUsage marks errors in how the command was called.
var errUsage = errors.New("usage")

// codes are the exit codes of the error kinds (engine.KindOf, and usage).
var codes = map[string]int{
	"io":            exitIO,
	"busy":          exitBusy,
	"bad-arguments": exitBadArgs, "usage": exitBadArgs, "needs-person": exitBadArgs,
	"schema": exitMalformed, "ambiguous-qid": exitMalformed, "malformed": exitMalformed, "question-changed": exitConflict,
	"conflict": exitConflict, "paused": exitConflict, "stopped": exitConflict, "not-open": exitConflict, "exists": exitConflict, "untrusted": exitConflict,
	"unknown-qid": exitUnknown, "unknown-fingerprint": exitUnknown, "unknown-rule": exitUnknown, "unknown-trust": exitUnknown,
	"held": exitPaused, "unknown-claim": exitNoSpace, "not-owner": exitNoSpace, "not-live": exitNoSpace,
	"no-workspace": exitNoSpace, "missing-file": exitNoSpace,
}

// claimKinds are the kinds of package claims' errors.
var claimKinds = []struct {
	err  error
	kind string
}{
	{claims.ErrHeld, "held"},
	{claims.ErrUsage, "usage"},
	{claims.ErrUnknown, "unknown-claim"},
	{claims.ErrNotOwner, "not-owner"},
	{claims.ErrNotLive, "not-live"},
}

// exitCode is the one place where errors become exit codes. The claim
// commands keep DevRites' codes: 3 when held, 2 for any other failure but
// a busy lock.
func exitCode(err error) (int, string) {
	kind := engine.KindOf(err)
	for _, k := range claimKinds {
		if kind == "io" && errors.Is(err, k.err) {
			kind = k.kind
		}
	}
	if kind == "io" && errors.Is(err, errUsage) {
		kind = "usage"
	}
	code := codes[kind]
	var ce *cmdError
	if errors.As(err, &ce) && (ce.cmd == "claim" || strings.HasPrefix(ce.cmd, "claim ")) && code != exitPaused && code != exitBusy {
		code = exitNoSpace
	}
	return code, kind
}

// status is an outcome that is not an error but has its own exit code
// (exit 3: a human must answer). Its output is already printed.
type status int

func (s status) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// cmdError names the command that failed.
type cmdError struct {
	cmd string
	err error
}

func (e *cmdError) Error() string { return e.cmd + ": " + e.err.Error() }
func (e *cmdError) Unwrap() error { return e.err }

// report prints err and returns its exit code. scope is the workspace
// flags the command was given ("--slug pay "), which every command a hint
// shows carries, so that it acts where the failed one did.
func report(stderr io.Writer, asJSON bool, err error, warnings []string, scope string) int {
	var s status
	if errors.As(err, &s) {
		return int(s)
	}
	f := failureIn(err, scope)
	code, kind, msg, hints := f.Code, f.Kind, f.Line, f.Hints
	if asJSON {
		enc := json.NewEncoder(stderr)
		enc.SetEscapeHTML(false) // "<answer>" in a hint stays readable
		obj := map[string]any{"error": true, "code": code, "kind": kind, "message": msg, "hints": nonNil(hints), "warnings": nonNil(warnings)}
		if he := (*claims.HeldError)(nil); errors.As(err, &he) {
			for k, v := range heldJSON(he) {
				obj[k] = v
			}
		}
		_ = enc.Encode(obj)
		return code
	}
	fmt.Fprintln(stderr, msg)
	for _, h := range hints {
		fmt.Fprintln(stderr, "hint: "+h)
	}
	PrintWarnings(stderr, warnings)
	return code
}

// failure is err as report words it: the decisive line, the kind, the
// exit code and the hints.
func failure(err error) mcp.Failure { return failureIn(err, "") }

// failureIn is failure with the hints' commands in the workspace scope
// names (see report).
func failureIn(err error, scope string) mcp.Failure {
	code, kind := exitCode(err)
	hints := mdstore.Hints(err)
	var amb *engine.AmbiguousError
	if errors.As(err, &amb) {
		hints = append(hints, ambiguityHints(err, amb)...)
	}
	if r, subject := mdstore.RemedyOf(err); r != mdstore.NoRemedy {
		hints = append(hints, remedy(r, subject, scope))
	}
	return mcp.Failure{Line: "devrites-engine: " + clipLine(strings.TrimSpace(err.Error())), Kind: kind, Code: code, Hints: hints}
}

// lineMax is the longest error line printed. The library quotes text
// briefly; this bounds what it did not foresee (a 100 KB word an agent
// left unquoted), keeping the line's start and end, which say what failed.
const lineMax = 2000

func clipLine(s string) string {
	if len(s) <= lineMax {
		return s
	}
	head, tail := s[:lineMax*3/4], s[len(s)-lineMax/5:]
	for !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return head + " … (" + strconv.Itoa(len(s)) + " bytes) … " + tail
}

// remedy words a remedy the library named: the command to run.
func remedy(r mdstore.Remedy, subject, scope string) string {
	switch r {
	case mdstore.RunDoctor:
		return "run: " + strings.TrimSpace("devrites-engine doctor "+scope)
	case engine.RunDoctorFix:
		return "run: devrites-engine doctor " + scope + "--fix"
	case mdstore.RunInit:
		if subject == "" {
			subject = "<slug>"
		}
		return "run: devrites-engine init " + subject
	case engine.ListQuestions:
		return "list the questions: devrites-engine questions list " + scope + "--status all"
	case engine.ResolveAwaited:
		return "answer it: " + subject
	case engine.LiftStop:
		return "a person lifts the stop: " + strings.TrimSpace("devrites-engine state resume "+scope)
	case engine.UpgradeEngine:
		return "upgrade devrites-engine"
	case engine.ShowAFK:
		return "see what it does: devrites-engine afk status"
	case engine.RespondAs:
		return "answer as one of them: " + subject + " (or set DEVRITES_ACTOR)"
	}
	return ""
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ambiguityHints are the commands that name each of the questions of an
// ambiguous id, as the command that failed would name it (docs/formats.md,
// "Question fingerprint").
func ambiguityHints(err error, a *engine.AmbiguousError) []string {
	cmd := "state resolve"
	var ce *cmdError
	if errors.As(err, &ce) {
		cmd = ce.cmd
	}
	var out []string
	for i, q := range a.Questions {
		flags := ""
		if a.Slug != "" {
			flags = "--slug " + a.Slug + " "
		}
		line := "devrites-engine " + cmd + " " + flags + "--fingerprint " + question.ShortFingerprint(q.Fingerprint) + " " + q.QID
		if cmd == "state resolve" {
			line = a.Resolve[i]
		}
		out = append(out, fmt.Sprintf("%s %q: %s", q.QID, mdstore.OneLine(q.Question), line))
	}
	if cmd == "state resolve" {
		return append(out, "nothing was written; name the question you mean with its --fingerprint")
	}
	return append(out, "name the question you mean with its --fingerprint")
}
