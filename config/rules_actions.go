package config

import (
	"slices"
	"strings"
)

// ruleActions are the actions a rule may have: always-approve widens what
// passes without a person (it needs a person's trust); the others only
// narrow it.
var ruleActions = []string{AlwaysApprove, NeverAuto, PersonOnly, RequireSignature}

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

// byGate reports whether a rule of action may select by gate: the policy
// matches always-approve and never-auto rules by breakpoint and tag only,
// so a gate selector there would be a rule that never applies.
func byGate(action string) bool { return action == PersonOnly || action == RequireSignature }
