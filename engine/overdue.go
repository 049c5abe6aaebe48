package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// OnOverdue is what happens to an open question of one gate that nobody
// answers: the on_overdue entry of its gate in the notify configuration.
type OnOverdue struct {
	// Remind is how often an overdue question is reminded; 0 is once per
	// SLA period.
	Remind time.Duration `json:"remind,omitempty"`
	// EscalateTo are the people paged, besides the usual recipients, once
	// the question is overdue: recorded in the block as escalated_to and
	// given to the hook as DEVRITES_ESCALATED_TO.
	EscalateTo []string `json:"escalate_to,omitempty"`
	// ExpireAfter, counted from raised_at, is when the question is
	// accepted by expiry with Accept ("recommended": option 1). Only
	// advisory and validating gates may have it: a configuration that
	// would accept another gate is refused when read.
	ExpireAfter time.Duration `json:"expire_after,omitempty"`
	Accept      string        `json:"accept,omitempty"`
}

// AcceptRecommended is the one value of accept: option 1, the recommended.
const AcceptRecommended = "recommended"

// expiryGates are the gates a question of which may be accepted by expiry.
var expiryGates = []string{"advisory", "validating"}

// readOnOverdue reads the on_overdue mapping of gates. Nothing in it makes
// the file fail (a bad entry costs its gate the entry, not the hook its
// pages): every problem is a warning and what it concerns is ignored. An
// entry that would accept a blocking or escalating question by expiry keeps
// its reminders and loses the acceptance.
func readOnOverdue(path string, v *yaml.Node) (map[string]OnOverdue, []string) {
	var warn []string
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d: on_overdue", path, n.Line) }
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, []string{at(v) + ": want a gate per line, such as blocking: {remind: 30m} (ignored)"}
	}
	out := map[string]OnOverdue{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		g, body := v.Content[i], v.Content[i+1]
		where := at(g) + "." + g.Value
		if !validGate(g.Value) {
			warn = append(warn, fmt.Sprintf("%s: unknown gate (ignored; gates are %s)", where, strings.Join(gates, ", ")))
			continue
		}
		if _, dup := out[g.Value]; dup {
			warn = append(warn, where+": set twice (the second is ignored)")
			continue
		}
		if body.Kind != yaml.MappingNode {
			warn = append(warn, where+": want keys remind, escalate_to, expire_after, accept (ignored)")
			continue
		}
		var o OnOverdue
		for j := 0; j+1 < len(body.Content); j += 2 {
			k, x := body.Content[j], body.Content[j+1]
			kat := fmt.Sprintf("%s:%d: on_overdue.%s.%s", path, k.Line, g.Value, k.Value)
			switch k.Value {
			case "remind", "expire_after":
				d, ok := parseSLA(x.Value)
				if x.Kind != yaml.ScalarNode || !ok {
					warn = append(warn, fmt.Sprintf("%s: %q is not a duration such as 30m, 8h or 1d (ignored)", kat, x.Value))
					continue
				}
				if k.Value == "remind" {
					o.Remind = d
				} else {
					o.ExpireAfter = d
				}
			case "escalate_to":
				names, msg := stringList(x)
				if msg != "" {
					warn = append(warn, kat+": "+msg+" (ignored)")
					continue
				}
				o.EscalateTo = texts(names)
			case "accept":
				if x.Kind != yaml.ScalarNode || x.Value != AcceptRecommended {
					warn = append(warn, fmt.Sprintf("%s: %q: the only answer accepted by expiry is recommended (ignored)", kat, x.Value))
					continue
				}
				o.Accept = x.Value
			default:
				warn = append(warn, fmt.Sprintf("%s: unknown key (ignored; keys are remind, escalate_to, expire_after, accept)", kat))
			}
		}
		switch expiring := o.Accept != "" || o.ExpireAfter > 0; {
		case expiring && !slices.Contains(expiryGates, g.Value):
			warn = append(warn, fmt.Sprintf("%s: refused: %s question is never accepted by expiry (expire_after and accept ignored; reminders and escalation stay)", where, aGate(g.Value)))
			o.Accept, o.ExpireAfter = "", 0
		case o.Accept != "" && o.ExpireAfter == 0:
			warn = append(warn, where+": accept without expire_after does nothing (add expire_after: 8h, say)")
			o.Accept = ""
		case o.Accept == "" && o.ExpireAfter > 0:
			warn = append(warn, where+": expire_after without accept: recommended does nothing (nothing is accepted)")
			o.ExpireAfter = 0
		}
		out[g.Value] = o
	}
	return out, warn
}

// expiryRefusal says why q is never accepted by expiry, or "": its gate
// is not advisory or validating, or the policy's hard stops (an always-
// stop or never-auto tag, a never-auto rule, scope or acceptance, the
// seal) cover it, or its responders are checked (a vote is not a default).
func (e *Engine) expiryRefusal(q Question) string {
	if !slices.Contains(expiryGates, q.Gate) {
		return aGate(q.Gate) + " question is never accepted by expiry"
	}
	if d := hardStop(e.AFK, Gatekeeping{Gate: q.Gate, Tags: q.Tags, Slice: q.Slice, Breakpoint: q.Breakpoint, Rules: &e.Rules}); d != nil {
		return d.Reason + ", so it is never accepted by expiry"
	}
	if q.routed() {
		return "its responders are checked (strategy " + q.Strategy + "), so it is never accepted by expiry"
	}
	if len(q.Options) == 0 || IsEscapeHatch(q.Options[0]) {
		return "it has no recommended option to accept"
	}
	return ""
}

// expiryDue reports whether q is to be accepted by expiry now.
func (e *Engine) expiryDue(q Question, now time.Time) bool {
	o := e.Hook.OnOverdue[q.Gate]
	raised, ok := q.raisedTime()
	return q.Status == StatusOpen && e.expiring() && o.Accept != "" && o.ExpireAfter > 0 && ok &&
		!now.Before(raised.Add(o.ExpireAfter)) && e.expiryRefusal(q) == ""
}

// OverdueText says what on_overdue does to a question of gate g with the
// given tags and slice, for `afk explain`.
func (e *Engine) OverdueText(g Gatekeeping) string {
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
	why := e.expiryRefusal(Question{Gate: g.Gate, Tags: g.Tags, Slice: g.Slice, Breakpoint: g.Breakpoint, Options: []string{"recommended"}})
	switch {
	case why != "":
		parts = append(parts, why)
	case o.Accept != "" && e.Hook.Untrusted != "":
		parts = append(parts, "not accepted by expiry while "+e.Hook.Path+" is "+e.Hook.Untrusted+" on this machine ("+TrustHint+")")
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

// aGate is a gate with its article: "a blocking", "an escalating".
func aGate(g string) string {
	if strings.HasPrefix(g, "a") || strings.HasPrefix(g, "e") {
		return "an " + g
	}
	return "a " + g
}
