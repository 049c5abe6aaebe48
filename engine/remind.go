package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// Overdue returns the open questions past their SLA, in file order.
func (e *Engine) Overdue() ([]Question, error) {
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	out := []Question{}
	for q := range e.questions(f.questions) {
		if q.Overdue {
			out = append(out, q)
		}
	}
	return out, nil
}

// OverdueBy is how long past its SLA an open question is; 0 when it is not.
func (q Question) OverdueBy(now time.Time) time.Duration {
	sla, ok := q.slaDuration()
	raised, ok2 := q.raisedTime()
	if q.Status != StatusOpen || !ok || !ok2 || now.Sub(raised) <= sla {
		return 0
	}
	return now.Sub(raised) - sla
}

// reminderDue reports whether an overdue question may be reminded now: it
// never was, or its last reminder is at least one SLA period old. A
// reminded_at that does not parse is treated as never.
func (q Question) reminderDue(now time.Time) bool {
	if !q.Overdue {
		return false
	}
	last, err := time.Parse(time.RFC3339, q.RemindedAt)
	if err != nil {
		return true
	}
	sla, _ := q.slaDuration()
	return now.Sub(last) >= sla
}

// RemindResult is what `remind` reports.
type RemindResult struct {
	Reminded []Question `json:"reminded"`
	// Waiting are overdue questions reminded less than one SLA period ago,
	// or, when reminders are off, every overdue question.
	Waiting []Question `json:"waiting"`
	// Off says why reminders are off; "" when they are on.
	Off      string   `json:"off,omitempty"`
	Warnings []string `json:"warnings"`
}

// Remind fires the notify hook with the event "reminder" for each overdue
// open question, at most once per SLA period per question. Under the lock it
// records reminded_at in each block it reminds (and a Log line in state.md);
// the hook runs after the lock is released. Nothing is written when the hook
// would not fire for reminders: the AFK file must be present, parse, name a
// notify command and list "reminder" in notify_on.
func (e *Engine) Remind(ctx context.Context) (*RemindResult, error) {
	res := &RemindResult{Reminded: []Question{}, Waiting: []Question{}, Warnings: e.ConfigWarnings()}
	if why := e.remindersOff(); why != "" {
		over, err := e.Overdue()
		if err != nil {
			return nil, err
		}
		res.Waiting, res.Off = over, why
		if len(over) > 0 { // a cron line that finds nothing overdue stays quiet
			res.Warnings = append(res.Warnings, fmt.Sprintf("no reminder sent: %s (%d overdue)", why, len(over)))
		}
		return res, nil
	}
	type done struct{ reminded, waiting []Question }
	d, err := transact(ctx, e, func(f *files) (done, error) {
		d := done{reminded: []Question{}, waiting: []Question{}}
		now := e.Now()
		var overdue []Question // read before any is edited: an edit ends a pass
		for q := range e.questions(f.questions) {
			if q.Overdue {
				overdue = append(overdue, q)
			}
		}
		for _, q := range overdue {
			switch {
			case !q.reminderDue(now):
				d.waiting = append(d.waiting, q)
			default:
				q.RemindedAt = e.timestamp()
				if err := f.questions.Set(q.QID, mdstore.KV{Key: "reminded_at", Value: q.RemindedAt}); err != nil {
					return done{}, err
				}
				f.state.AppendLog(e.logLine(f.state, "reminded "+q.QID+" (SLA "+q.SLA+")"))
				d.reminded = append(d.reminded, q)
			}
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	res.Reminded, res.Waiting = d.reminded, d.waiting
	for _, q := range res.Reminded {
		res.Warnings = append(res.Warnings, e.fire(ctx, "reminder", q)...)
	}
	return res, nil
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
	}
	return ""
}
