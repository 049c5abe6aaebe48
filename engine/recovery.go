package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/recovery"
)

// Failure is a failing command as an agent saw it.
type Failure struct {
	Command    string `json:"command"`
	Exit       int    `json:"exit"`
	StderrLine string `json:"stderr_line"`
}

// resolverResume is next_action after the resolver failed twice: a person
// (or the doctor skill) looks at the workspace before anything resolves.
const resolverResume = "/rite-doctor"

// prepare drops one line ending from the end of the stderr line (the
// fingerprint is of the line without it) and refuses a failure that has no
// command, an exit code outside 0–255, or text that is not one line of
// valid UTF-8.
func (f *Failure) prepare() error {
	f.StderrLine = strings.TrimSuffix(strings.TrimSuffix(f.StderrLine, "\n"), "\r")
	for _, t := range []struct{ name, v string }{{"--command", f.Command}, {"--stderr-line", f.StderrLine}} {
		if _, err := config.CleanText(t.name, t.v); err != nil {
			return err
		}
		if strings.ContainsAny(t.v, "\r\n") {
			return mdstore.Errorf(ErrBadArgs, "%s has a line break", t.name).Hint("give the decisive line only: the first line the command printed on stderr")
		}
	}
	if blank(f.Command) {
		return mdstore.Errorf(ErrBadArgs, "--command is empty")
	}
	if f.Exit < 0 || f.Exit > 255 {
		return mdstore.Errorf(ErrBadArgs, "--exit %d is not an exit code from 0 to 255", f.Exit)
	}
	return nil
}

// Fingerprint names the failure (see package recovery).
func (f *Failure) Fingerprint() (string, error) {
	if err := f.prepare(); err != nil {
		return "", err
	}
	return recovery.Fingerprint(f.Command, f.Exit, f.StderrLine), nil
}

// text is the failure as state.md and recovery.md show it.
func (f Failure) text() string {
	s := "`" + f.Command + "` exited " + strconv.Itoa(f.Exit)
	if f.StderrLine == "" {
		return s + " with no stderr line"
	}
	return s + ": " + f.StderrLine
}

// RecoveryResult is a ledger entry and what the agent does next.
type RecoveryResult struct {
	recovery.Entry
	Action string `json:"action"`
	// StateUpdated is set when resolver-failed wrote the stop into state.md.
	StateUpdated bool   `json:"state_updated"`
	StopReason   string `json:"stop_reason,omitempty"`
	NextAction   string `json:"next_action,omitempty"`
}

// ReopenResult lists the entries reopened and those that were not parked
// or stopped.
type ReopenResult struct {
	Reopened  []recovery.Entry `json:"reopened"`
	Unchanged []recovery.Entry `json:"unchanged"`
}

func checkFingerprint(fp string) error {
	if !recovery.ValidFingerprint(fp) {
		return mdstore.Errorf(ErrBadArgs, "fingerprint %q is not 12 lower-case hex digits", fp).
			Hint("a fingerprint is what recovery fingerprint prints for the failing command, exit code and stderr line")
	}
	return nil
}

// ledger reads recovery.md inside tx; a missing file is an empty ledger.
// The function it returns stages the ledger when it changed.
func (e *Engine) ledger(tx *mdstore.Tx) (*recovery.Ledger, func(), error) {
	b, _, err := tx.ReadOptional(recovery.File)
	if err != nil {
		return nil, nil, err
	}
	l, err := e.parseLedger(b)
	if err != nil {
		return nil, nil, err
	}
	return l, func() {
		if nb := l.Bytes(); string(nb) != string(b) {
			tx.Write(recovery.File, nb)
		}
	}, nil
}

func (e *Engine) parseLedger(b []byte) (*recovery.Ledger, error) {
	l, probs := recovery.Parse(b)
	if len(probs) > 0 {
		return nil, mdstore.Errorf(ErrMalformed, "%s:%d: %s", e.WS.Path(recovery.File), probs[0].Line, probs[0].Text).
			Fix(mdstore.RunDoctor, "").Hint("nothing was written; mend the line by hand (or delete its row) before recording again")
	}
	return l, nil
}

// RecoveryRecord counts one correction of a fingerprint (a new one starts
// at the first level) and says what the agent does next: retry, escalate
// to a level, or leave it parked.
func (e *Engine) RecoveryRecord(ctx context.Context, fp string, progress bool, note string) (*RecoveryResult, error) {
	if err := checkFingerprint(fp); err != nil {
		return nil, err
	}
	note, err := config.CleanText("--note", note)
	if err != nil {
		return nil, err
	}
	return mdstore.Transact(ctx, e.WS, e.LockTimeout, func(tx *mdstore.Tx) (*RecoveryResult, error) {
		l, stage, err := e.ledger(tx)
		if err != nil {
			return nil, err
		}
		en, act, err := l.Record(fp, progress, note, e.timestamp())
		if errors.Is(err, recovery.ErrKind) {
			return nil, mdstore.Errorf(ErrConflict, "%s is a resolver failure in %s: it is counted by resolver-failed, not by record", fp, recovery.File)
		}
		stage()
		return &RecoveryResult{Entry: en, Action: string(act)}, nil
	})
}

// RecoveryStatus lists the ledger's entries in file order.
func (e *Engine) RecoveryStatus() ([]recovery.Entry, error) {
	b, err := e.WS.ReadFile(recovery.File)
	if isMissing(err) {
		return []recovery.Entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := e.parseLedger(b)
	if err != nil {
		return nil, err
	}
	return l.Entries(), nil
}

// RecoveryReopen reopens a parked (or stopped resolver) fingerprint, or with
// all every one. Only an explicit invocation does this, never a wake-up.
// An unknown fingerprint is an error; one that is open is left as it is.
func (e *Engine) RecoveryReopen(ctx context.Context, fp string, all bool) (*ReopenResult, error) {
	if !all {
		if err := checkFingerprint(fp); err != nil {
			return nil, err
		}
	}
	return mdstore.Transact(ctx, e.WS, e.LockTimeout, func(tx *mdstore.Tx) (*ReopenResult, error) {
		l, stage, err := e.ledger(tx)
		if err != nil {
			return nil, err
		}
		now := e.timestamp()
		res := &ReopenResult{Reopened: []recovery.Entry{}, Unchanged: []recovery.Entry{}}
		if all {
			res.Reopened = l.ReopenAll(now)
		} else {
			en, changed, err := l.Reopen(fp, now)
			if errors.Is(err, recovery.ErrUnknown) {
				return nil, mdstore.Errorf(recovery.ErrUnknown, "%s: no such fingerprint in %s", fp, e.WS.Path(recovery.File))
			}
			if changed {
				res.Reopened = append(res.Reopened, en)
			} else {
				res.Unchanged = append(res.Unchanged, en)
			}
		}
		stage()
		return res, nil
	})
}

// ResolverFailed counts a failure of the resolver command. The first
// failure of a fingerprint answers retry: one identical re-run. The second
// answers stopped and, in the same transaction, records a cold-resumable
// stop as `state stop` does: status blocked, the exact command, exit code
// and stderr line as the reason, resolverResume as the one resume action,
// a Log line. A later failure answers stopped again and writes the stop
// again unless state.md already holds exactly it. Writing the stop is
// refused, and nothing is written, where `state stop` would be refused
// (state.md or questions.md cannot be read cleanly).
func (e *Engine) ResolverFailed(ctx context.Context, f Failure) (*RecoveryResult, error) {
	fp, err := f.Fingerprint()
	if err != nil {
		return nil, err
	}
	if f.Exit == 0 {
		return nil, mdstore.Errorf(ErrBadArgs, "--exit 0 is not a failure")
	}
	stop := StopRequest{Status: CursorBlocked, Reason: "resolver failed again: " + f.text(), Resume: resolverResume}
	if err := stop.check(); err != nil {
		return nil, err
	}
	return mdstore.Transact(ctx, e.WS, e.LockTimeout, func(tx *mdstore.Tx) (*RecoveryResult, error) {
		l, stage, err := e.ledger(tx)
		if err != nil {
			return nil, err
		}
		en, act, err := l.ResolverFailed(fp, f.text(), e.timestamp())
		if errors.Is(err, recovery.ErrKind) {
			return nil, mdstore.Errorf(ErrConflict, "%s is a correction in %s (level %s): a resolver failure has a fingerprint of its own", fp, recovery.File, en.Level)
		}
		res := &RecoveryResult{Entry: en, Action: string(act)}
		if act == recovery.StoppedNow {
			updated, err := within(e, tx, func(fs *Files) (bool, error) {
				s := fs.State
				if valueOf(s, "status") == stop.Status && valueOf(s, "stop_reason") == stop.Reason && valueOf(s, "next_action") == stop.Resume {
					return false, nil // already stopped for this very failure
				}
				e.stop(fs, stop)
				return true, nil
			})
			if err != nil {
				return nil, err
			}
			res.StateUpdated, res.StopReason, res.NextAction = updated, stop.Reason, stop.Resume
		}
		stage()
		return res, nil
	})
}
