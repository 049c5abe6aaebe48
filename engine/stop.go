package engine

import (
	"context"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Stop and resume (docs/commands.md, "state stop", "state resume"): a stop
// records why work halted and how to pick it up cold; resume lifts it and
// puts the cursor back where the questions say.

// StopReason returns the reason of a stop that only a person lifts: the
// cursor is blocked (state stop --status blocked).
func StopReason(s *mdstore.State) (string, bool) {
	if st, _ := s.Get("status"); st != CursorBlocked {
		return "", false
	}
	return mdstore.OneLine(valueOf(s, "stop_reason")), true
}

// StopRequest is a cold-resumable stop.
type StopRequest struct {
	Status, Reason, Resume string
}

// StopResult is the cursor a stop left: the status written and the next
// action.
type StopResult struct {
	Status, NextAction string
}

// Stop records a stop: status, its exact reason, one resume action, a Log
// line. A stop with status running lifts the stop instead of recording one:
// stop_reason goes.
func (e *Engine) Stop(ctx context.Context, r StopRequest) (StopResult, error) {
	if err := r.check(); err != nil {
		return StopResult{}, err
	}
	return transact(ctx, e, func(f *Files) (StopResult, error) {
		return e.stop(f, r), nil
	})
}

// check refuses a stop that state.md cannot hold.
func (r StopRequest) check() error {
	switch r.Status {
	case CursorBlocked, CursorAwaiting, CursorRunning:
	default:
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "unknown --status %q", r.Status), "use one of blocked, awaiting_human, running")
	}
	for _, p := range []struct{ name, v string }{{"--reason", r.Reason}, {"--resume", r.Resume}} {
		if blank(p.v) {
			return mdstore.Errorf(ErrBadArgs, "%s is empty", p.name)
		}
		if strings.ContainsAny(p.v, "\r\n") {
			return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "%s has a line break", p.name), "state.md keeps one line per key; put longer text in a question or the decision log")
		}
		if _, err := config.CleanText(p.name, p.v); err != nil {
			return err
		}
	}
	return nil
}

// liftStop removes the stop from the cursor: its reason and its identity.
func liftStop(s *mdstore.State) {
	s.Delete("stop_reason")
	s.Delete("stopped_at")
}

// stop writes a checked stop into state.md: its reason, and stopped_at,
// when it was made, by which a merge tells this stop from an earlier one
// with the same reason (docs/formats.md). A stop with status running
// lifts the stop as Resume does: back to the pause when a question the
// cursor awaits is still open, else running on the given resume action.
func (e *Engine) stop(f *Files, r StopRequest) StopResult {
	status := r.Status
	next := r.Resume
	if status == CursorRunning {
		liftStop(f.State)
		if aw, resolve := e.stillAwaited(f); aw != "" {
			status, next = CursorAwaiting, resolve
		} else if len(rescopePending(f.State)) > 0 {
			next = e.rescopeAction(f.State, "") // a rejection outlives the stop
		}
	} else {
		e.holdRescope(f.State)
		f.State.Set("stop_reason", r.Reason)
		f.State.Set("stopped_at", e.timestamp())
	}
	f.State.Set("status", status)
	f.State.Set("next_action", next)
	f.State.AppendLog(e.LogLine(f.State, "stop "+r.Status+": "+r.Reason))
	return StopResult{Status: status, NextAction: next}
}

// ResumeResult is what `state resume` reports.
type ResumeResult struct {
	Status     string `json:"status"`
	Lifted     string `json:"lifted,omitempty"` // the stop reason lifted
	Changed    bool   `json:"changed"`          // a stop was lifted; false when there was none
	NextAction string `json:"next_action"`
}

// Resume lifts a stop: stop_reason goes and the cursor goes back to what the
// questions say, awaiting_human on a question still open and awaited, else
// running; next_action keeps the resume action the stop recorded (or, back
// on a pause, becomes the resolve command; with a re-scope still owed, the
// re-scope command). Without a stop it changes
// nothing.
func (e *Engine) Resume(ctx context.Context) (*ResumeResult, error) {
	return transact(ctx, e, func(f *Files) (*ResumeResult, error) {
		s := f.State
		reason, _ := s.Get("stop_reason")
		status, _ := s.Get("status")
		r := &ResumeResult{Status: status, Lifted: mdstore.OneLine(reason), NextAction: valueOf(s, "next_action")}
		if status == CursorAwaiting && reason == "" {
			q := question.Question{QID: s.AwaitingQID()}
			if b := f.Questions.Find(q.QID); b != nil {
				q = question.FromBlock(b, e.Now())
			}
			return nil, mdstore.Errorf(ErrPaused, "awaiting a human on %s, not stopped", q.QID).Fix(ResolveAwaited, e.ResolveCommand(q))
		}
		if reason == "" && status != CursorBlocked { // running, done, or none: no stop to lift
			if status == "" {
				r.Status = CursorRunning
			}
			return r, nil // unchanged bytes are not written
		}
		liftStop(s)
		r.Status, r.Changed = CursorRunning, true
		if id, resolve := e.stillAwaited(f); id != "" {
			r.Status, r.NextAction = CursorAwaiting, resolve
			s.Set("next_action", r.NextAction)
		} else if len(rescopePending(s)) > 0 {
			r.NextAction = e.rescopeAction(s, "") // a rejection outlives the stop
			s.Set("next_action", r.NextAction)
		}
		s.Set("status", r.Status)
		s.AppendLog(e.LogLine(s, "resume: stop lifted ("+r.Lifted+"); status "+r.Status))
		return r, nil
	})
}
