package engine

import (
	"slices"
	"strings"
)

// ruleActions are the actions a rule may have: always-approve widens what
// passes without a person (it needs trust, §22); the others only narrow it.
var ruleActions = []string{AlwaysApprove, NeverAuto, RequireSignature}

func actionList() string {
	return strings.Join(ruleActions[:len(ruleActions)-1], ", ") + " or " + ruleActions[len(ruleActions)-1]
}

// opposed: always-approve and never-auto on one selector contradict each
// other; a rule of another action stands beside either.
func opposed(a, b string) bool {
	pair := []string{AlwaysApprove, NeverAuto}
	return a != b && slices.Contains(pair, a) && slices.Contains(pair, b)
}

// selectors counts the selectors given.
func selectors(s ...string) int {
	n := 0
	for _, x := range s {
		if x != "" {
			n++
		}
	}
	return n
}

// matchQuestion returns the first rule with action that selects q by its
// breakpoint, one of its tags or its gate, or nil. A broken file matches
// nothing.
func (r *Rules) matchQuestion(action string, q Question) *Rule {
	if m := r.match(action, q.Breakpoint, q.Tags); m != nil || r == nil || r.Broken {
		return m
	}
	for i, rule := range r.List {
		if rule.Action == action && rule.Gate != "" && rule.Gate == strings.TrimSpace(q.Gate) {
			return &r.List[i]
		}
	}
	return nil
}

// byGate reports whether a rule of action may select by gate: the policy
// (always-approve, never-auto) matches breakpoints and tags only, so a gate
// selector there would be a rule that never applies.
func byGate(action string) bool { return action == RequireSignature }
