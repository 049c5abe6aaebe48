package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Overdue returns the open questions past their SLA, in file order.
func (e *Engine) Overdue() ([]question.Question, error) {
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	out := []question.Question{}
	for q := range e.questions(f.Questions, question.StatusOpen) {
		if q.Overdue {
			out = append(out, q)
		}
	}
	return out, nil
}

// reminderDue reports whether an overdue question may be reminded now: it
// never was, or its last reminder is at least one period old (on_overdue's
// remind for its gate, else its SLA). A reminded_at that does not parse is
// treated as never.
func (e *Engine) reminderDue(q question.Question, now time.Time) bool {
	if !q.Overdue {
		return false
	}
	last, err := time.Parse(time.RFC3339, q.RemindedAt)
	if err != nil {
		return true
	}
	return now.Sub(last) >= e.remindEvery(q)
}

// remindEvery is how often q is reminded while it is overdue.
func (e *Engine) remindEvery(q question.Question) time.Duration {
	if every := e.Hook.OnOverdue[q.Gate].Remind; every > 0 {
		return every
	}
	sla, _ := q.SLADuration()
	return sla
}

// RemindResult is what `remind` reports.
type RemindResult struct {
	Reminded []question.Question `json:"reminded"`
	// Waiting are overdue questions reminded less than one period ago,
	// or, when reminders are off, every overdue question.
	Waiting []question.Question `json:"waiting"`
	// Accepted are the questions on_overdue accepted by expiry.
	Accepted []question.Question `json:"accepted"`
	// Off says why reminders are off; "" when they are on.
	Off      string   `json:"off,omitempty"`
	Warnings []string `json:"warnings"`
}

// ExpiryActor is the answered_by of a question accepted by expiry.
const ExpiryActor = "expiry"

// Remind applies on_overdue to the open questions nobody answers: each
// overdue question is reminded (the hook's event "reminder") at most once
// per period, and escalated once (escalate_to), and an advisory or
// validating question whose expire_after has passed is accepted with its
// recommended option (answered_by expiry) through the transaction of
// `state resolve`: the decision entry, state.md and the event "resolved".
// Under the lock it records reminded_at (and escalated_to) in each block
// it reminds, with a Log line in state.md; the hook runs after the lock is
// released. Reminders need the hook to fire for them (a notify command,
// "reminder" in notify_on, a file that parses); when it would not, nothing
// but an acceptance is written.
func (e *Engine) Remind(ctx context.Context) (*RemindResult, error) {
	res := &RemindResult{Reminded: []question.Question{}, Waiting: []question.Question{}, Accepted: []question.Question{}, Warnings: e.ConfigWarnings()}
	off := e.remindersOff()
	if off != "" && !e.expiring() {
		over, err := e.Overdue()
		if err != nil {
			return nil, err
		}
		res.Waiting, res.Off = over, off
		if len(over) > 0 { // a cron line that finds nothing overdue stays quiet
			res.Warnings = append(res.Warnings, fmt.Sprintf("no reminder sent: %s (%d overdue)", off, len(over)))
		}
		return res, nil
	}
	type done struct {
		reminded, waiting, accepted []question.Question
		warnings                    []string
	}
	d, err := transact(ctx, e, func(f *Files) (done, error) {
		d := done{reminded: []question.Question{}, waiting: []question.Question{}, accepted: []question.Question{}}
		now := e.Now()
		var due []question.Question // read before any is edited: an edit ends a pass
		for q := range e.questions(f.Questions, question.StatusOpen) {
			if q.Overdue || e.expiryDue(q, now) {
				due = append(due, q)
			}
		}
		for _, q := range due {
			switch {
			case e.expiryDue(q, now):
				o := e.Hook.OnOverdue[q.Gate]
				aq, err := e.answer(f, q.QID, resolution{kind: question.StatusAnswered, choice: 1}, ExpiryActor,
					"on_overdue "+q.Gate+" expire_after "+shortDuration(o.ExpireAfter))
				if err != nil {
					return done{}, err
				}
				if _, warn := e.ResolveState(f, aq, question.StatusAnswered, false); warn != "" {
					d.warnings = append(d.warnings, warn)
				}
				d.accepted = append(d.accepted, aq)
			case off != "", !e.reminderDue(q, now):
				d.waiting = append(d.waiting, q)
			default:
				q.RemindedAt = e.timestamp()
				kvs := []mdstore.KV{{Key: "reminded_at", Value: q.RemindedAt}}
				logText := "reminded " + q.QID + " (SLA " + q.SLA + ")"
				if to := e.Hook.OnOverdue[q.Gate].EscalateTo; len(to) > 0 && len(q.EscalatedTo) == 0 {
					q.EscalatedTo = to
					kvs = append(kvs, mdstore.KV{Key: "escalated_to", Value: strings.Join(to, ", ")})
					logText += "; escalated to " + strings.Join(to, ", ")
				}
				if err := f.Questions.Set(q.QID, kvs...); err != nil {
					return done{}, err
				}
				f.State.AppendLog(e.LogLine(f.State, logText))
				d.reminded = append(d.reminded, q)
			}
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	res.Reminded, res.Waiting, res.Accepted, res.Off = d.reminded, d.waiting, d.accepted, off
	res.Warnings = append(res.Warnings, d.warnings...)
	if off != "" && len(d.waiting) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("no reminder sent: %s (%d overdue)", off, len(d.waiting)))
	}
	for _, q := range res.Reminded {
		res.Warnings = append(res.Warnings, e.fire(ctx, "reminder", q)...)
	}
	for _, q := range res.Accepted {
		res.Warnings = append(res.Warnings, e.fire(ctx, eventOf[q.Status], q)...)
	}
	return res, nil
}

// expiring reports whether on_overdue accepts questions of any gate by
// expiry: an answer without a person, so only from a file that parses and
// that a person trusted on this machine.
func (e *Engine) expiring() bool {
	if e.Hook.Broken || e.Hook.Untrusted != "" {
		return false
	}
	for _, o := range e.Hook.OnOverdue {
		if o.Accept != "" {
			return true
		}
	}
	return false
}

// remindersOff says why the hook would not fire for reminders, or "".
func (e *Engine) remindersOff() string {
	h := e.Hook
	switch {
	case !h.On:
		return "no notify hook (neither .devrites/notify.yaml nor .devrites/AFK is there)"
	case h.Broken:
		return filepath.Base(h.Path) + " does not parse"
	case h.Notify == "":
		return filepath.Base(h.Path) + " has no notify command"
	case !slices.Contains(h.NotifyOn, "reminder"):
		return "notify_on does not list reminder"
	case h.Untrusted != "":
		return h.TrustWarning()
	}
	return ""
}
