package engine

import (
	"context"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/notify"
)

// event builds what the hook is told about a question.
func (e *Engine) event(name string, q Question) notify.Event {
	ev := notify.Event{Event: name, QID: q.QID, Gate: q.Gate, Slice: q.Slice, Slug: e.WS.Slug,
		Question: q.Question, Proposed: q.Proposed, SLA: q.SLA, RaisedAt: q.RaisedAt,
		Workspace: e.WS.Dir, Status: q.Status, Options: q.Options,
		Resume: ResolveCommand(q.QID)}
	if q.Answer != nil {
		ev.Answer = *q.Answer
	}
	if e.OffersAlwaysApprove(q) {
		ev.AlwaysApprove = AlwaysApproveCommand(q.QID)
	}
	return ev
}

func (e *Engine) hook() notify.Hook {
	return notify.Hook{Command: e.AFK.Notify, Dir: e.WS.Project, Timeout: e.AFK.NotifyTimeout,
		Log: e.WS.Path(mdstore.NotifyLog), Now: e.Now}
}

// fire runs the notify hook for an event when notify_on lists it. Callers
// fire after the transaction, so the lock is released. It returns the
// warnings to print: one when the hook fails, one when its outcome could not
// be logged (notify.log is not a regular file); neither fails the command.
func (e *Engine) fire(ctx context.Context, event string, q Question) []string {
	if !e.AFK.NotifyOnEvent(event) {
		return nil
	}
	o := notify.Fire(ctx, e.hook(), e.event(event, q))
	var warnings []string
	if !o.OK() {
		see := "; see " + e.WS.Path(mdstore.NotifyLog)
		if o.LogErr != nil {
			see = ""
		}
		warnings = append(warnings, o.Err.Error()+" on "+event+" "+q.QID+"; the workspace is saved"+see)
	}
	if o.LogErr != nil {
		warnings = append(warnings, o.LogErr.Error())
	}
	return warnings
}
