package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/devrites/devrites-engine/mdstore"
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

// acceptRecommended is the one value of accept: option 1, the recommended.
const acceptRecommended = "recommended"

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
		if !mdstore.ValidGate(g.Value) {
			warn = append(warn, fmt.Sprintf("%s: unknown gate (ignored; gates are %s)", where, strings.Join(mdstore.Gates, ", ")))
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
				d, ok := mdstore.ParseSLA(x.Value)
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
				if x.Kind != yaml.ScalarNode || x.Value != acceptRecommended {
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

// ExpiryRefusal says why a question of gate is never accepted by expiry,
// or "" when its gate may be.
func ExpiryRefusal(gate string) string {
	if slices.Contains(expiryGates, gate) {
		return ""
	}
	return aGate(gate) + " question is never accepted by expiry"
}

// aGate is a gate with its article: "a blocking", "an escalating".
func aGate(g string) string {
	if strings.HasPrefix(g, "a") || strings.HasPrefix(g, "e") {
		return "an " + g
	}
	return "a " + g
}
