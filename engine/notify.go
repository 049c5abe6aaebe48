package engine

import (
	"context"
	"slices"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/notify"
	"github.com/devrites/devrites-engine/question"
)

// event builds what the hook is told about a question.
func (e *Engine) event(name string, q question.Question) notify.Event {
	ev := notify.Event{Event: name, QID: q.QID, Gate: q.Gate, Slice: q.Slice, Slug: e.WS.Slug,
		Question: q.Question, Proposed: q.Proposed, SLA: q.SLA, RaisedAt: q.RaisedAt,
		Workspace: e.WS.Dir, Status: q.Status, Options: q.Options}
	if q.Status == question.StatusOpen { // a final question is answered: nothing to resume
		ev.Resume = e.ResolveCommand(q)
	}
	if q.Answer != nil {
		ev.Answer, ev.AnsweredBy = *q.Answer, q.AnsweredBy
	}
	if q.Choice != nil {
		ev.Choice = *q.Choice
	}
	if e.OffersAlwaysApprove(q) {
		ev.AlwaysApprove = e.AlwaysApproveCommand(q)
	}
	ev.EscalatedTo = q.EscalatedTo
	routeEvent(&ev, q)
	return ev
}

// ConfigWarnings are the warnings of the AFK file and, when the hook has
// its own notify.yaml, of that file.
func (e *Engine) ConfigWarnings() []string {
	w := slices.Clone(e.AFK.Warnings)
	if e.Hook.Path != e.AFK.Path {
		w = append(w, e.Hook.Warnings...)
	}
	return w
}

func (e *Engine) hook() notify.Hook {
	return notify.Hook{Command: e.Hook.Notify, Dir: e.WS.Project, Timeout: e.Hook.NotifyTimeout,
		Log: e.WS.Path(mdstore.NotifyLog), Now: e.Now}
}

// fire runs the notify hook for an event when notify_on lists it. Callers
// fire after the transaction, so the lock is released. It returns the
// warnings to print: one when the hook fails, one when its outcome could not
// be logged (notify.log is not a regular file); neither fails the command.
// A hook whose file is not trusted here does not run: the warning says so.
func (e *Engine) fire(ctx context.Context, event string, q question.Question) []string {
	if e.Hook.HeldBack(event) {
		return []string{e.Hook.TrustWarning()}
	}
	if !e.Hook.NotifyOnEvent(event) {
		return nil
	}
	ev := e.event(event, q)
	var warnings []string
	if w := e.withAnswerURL(&ev, q); w != "" {
		warnings = append(warnings, w)
	}
	o := notify.Fire(ctx, e.hook(), ev)
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

// withAnswerURL gives the event of an open question its capability link
// when the hook's configuration has serve_url, creating the project's key
// (.devrites/serve.key) on first use. It returns a warning when the link
// cannot be made; the hook fires without it.
func (e *Engine) withAnswerURL(ev *notify.Event, q question.Question) string {
	if e.Hook.ServeURL == "" || ev.Status != question.StatusOpen {
		return ""
	}
	if e.WS.Devrites == "" {
		return "serve_url is set, but " + e.WS.Dir + " is not inside a .devrites directory: the notify hook gets no answer link"
	}
	k, err := e.answerKey()
	if err != nil {
		return "the notify hook gets no answer link: " + err.Error()
	}
	ev.AnswerURL = caplink.URL(e.Hook.ServeURL, e.WS.Slug, ev.QID, k.Token(e.WS.Project, e.WS.Slug, ev.QID, question.Fingerprint(e.WS.Slug, q)))
	return ""
}
