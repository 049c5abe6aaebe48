package engine

import (
	"strings"
	"time"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/question"
)

// expiryRefusal says why q is never accepted by expiry, or "": its gate
// is not advisory or validating, or the policy's hard stops (an always-
// stop or never-auto tag, a never-auto rule, scope or acceptance, the
// seal) cover it, or its responders are checked (a vote is not a default).
func (e *Engine) expiryRefusal(q question.Question) string {
	if why := config.ExpiryRefusal(q.Gate); why != "" {
		return why
	}
	if d := hardStop(e.AFK, Gatekeeping{Gate: q.Gate, Tags: q.Tags, Slice: q.Slice, Breakpoint: q.Breakpoint, Rules: &e.Rules}); d != nil {
		return d.Reason + ", so it is never accepted by expiry"
	}
	if q.Routed() {
		return "its responders are checked (strategy " + q.Strategy + "), so it is never accepted by expiry"
	}
	if len(q.Options) == 0 || question.IsEscapeHatch(q.Options[0]) {
		return "it has no recommended option to accept"
	}
	return ""
}

// expiryDue reports whether q is to be accepted by expiry now.
func (e *Engine) expiryDue(q question.Question, now time.Time) bool {
	o := e.Hook.OnOverdue[q.Gate]
	raised, ok := q.RaisedTime()
	return q.Status == question.StatusOpen && e.expiring() && o.Accept != "" && o.ExpireAfter > 0 && ok &&
		!now.Before(raised.Add(o.ExpireAfter)) && e.expiryRefusal(q) == ""
}

// overdueText says what on_overdue does to a question of gate g with the
// given tags and slice, for `afk explain`.
func (e *Engine) overdueText(g Gatekeeping) string {
	o, ok := e.Hook.OnOverdue[g.Gate]
	var parts []string
	switch {
	case !ok:
		parts = append(parts, "reminded once per SLA period (no on_overdue entry for "+g.Gate+")")
	case o.Remind > 0:
		parts = append(parts, "reminded every "+shortDuration(o.Remind))
	default:
		parts = append(parts, "reminded once per SLA period")
	}
	if len(o.EscalateTo) > 0 {
		parts = append(parts, "escalated to "+strings.Join(o.EscalateTo, ", "))
	}
	why := e.expiryRefusal(question.Question{Gate: g.Gate, Tags: g.Tags, Slice: g.Slice, Breakpoint: g.Breakpoint, Options: []string{"recommended"}})
	switch {
	case why != "":
		parts = append(parts, why)
	case o.Accept != "" && e.Hook.Untrusted != "":
		parts = append(parts, "not accepted by expiry while "+e.Hook.Path+" is "+e.Hook.Untrusted+" on this machine ("+config.TrustHint+")")
	case o.Accept != "":
		parts = append(parts, "option 1 accepted by expiry "+shortDuration(o.ExpireAfter)+" after it is raised")
	default:
		parts = append(parts, "never accepted by expiry (no expire_after and accept)")
	}
	return "when overdue: " + strings.Join(parts, "; ")
}

// shortDuration writes 30m and 8h, not 30m0s and 8h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
