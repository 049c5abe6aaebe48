package engine

import (
	"fmt"
	"strings"
)

// Outcomes of a raise.
const (
	Paused      = "paused"
	AutoPicked  = "auto-picked"
	Provisional = "provisional"
	Recorded    = "recorded"
)

// AlwaysStop are the tag classes that always pause, whatever the AFK file says.
var AlwaysStop = []string{"destructive-migration", "auth-boundary", "public-api-break", "external-contract", "fs-destruction"}

// Decision is the policy's verdict on a raised question.
type Decision struct {
	Outcome string `json:"outcome"`
	Rule    int    `json:"rule"`
	Name    string `json:"name"`   // short rule name, written as "auto:"
	Reason  string `json:"reason"` // one sentence for people
}

// Gatekeeping is what the policy looks at.
type Gatekeeping struct {
	Gate       string
	Tags       []string
	Slice      string
	Breakpoint string
	// History is the questions already in questions.md, in file order.
	History []Question
}

// Decide applies the AFK policy of the specification, first matching rule
// wins. It is the only place that decides whether a person is asked.
func Decide(afk AFK, g Gatekeeping) Decision {
	if !afk.On {
		return Decision{Paused, 1, "afk-off", "AFK mode is off (.devrites/AFK absent): a person answers"}
	}
	if g.Gate == "escalating" {
		return Decision{Paused, 2, "escalating", "escalating gates always pause"}
	}
	for _, t := range g.Tags {
		if contains(AlwaysStop, t) {
			return Decision{Paused, 3, "always-stop", fmt.Sprintf("tag %q is an always-stop class", t)}
		}
		if contains(afk.NeverAuto, t) {
			return Decision{Paused, 3, "never-auto", fmt.Sprintf("tag %q is listed in never_auto", t)}
		}
	}
	for _, t := range g.Tags {
		if t == "scope" || t == "acceptance" {
			return Decision{Paused, 4, "scope-or-acceptance", fmt.Sprintf("tag %q: added scope or acceptance is never auto-picked", t)}
		}
	}
	if strings.EqualFold(strings.TrimSpace(g.Slice), "seal") {
		return Decision{Paused, 5, "seal", "a person answers the seal"}
	}
	if contains(afk.AllowGates, g.Gate) {
		if g.Gate == "validating" {
			return Decision{Provisional, 6, "allow_gates", "validating is in allow_gates: proceed on option 1 while a person validates"}
		}
		return Decision{AutoPicked, 6, "allow_gates", fmt.Sprintf("%s is in allow_gates", g.Gate)}
	}
	if n := afk.AutoApproveAfter; n > 0 && g.Breakpoint != "" && humanPicksOfOne(g.History, g.Breakpoint, n) {
		return Decision{AutoPicked, 7, "auto_approve_after", fmt.Sprintf("the last %d resolutions of breakpoint %s were human picks of option 1", n, g.Breakpoint)}
	}
	reason := fmt.Sprintf("%s is not in allow_gates %v", g.Gate, afk.AllowGates)
	if afk.Broken {
		reason = "the AFK file does not parse, so nothing is auto-picked"
	}
	return Decision{Paused, 8, "default", reason}
}

// humanPicksOfOne reports whether the last n resolutions of the breakpoint
// were all human answers choosing option 1.
func humanPicksOfOne(history []Question, bp string, n int) bool {
	var last []Question
	for _, q := range history {
		if q.Breakpoint == bp && q.Status != StatusOpen {
			last = append(last, q)
		}
	}
	if len(last) < n {
		return false
	}
	for _, q := range last[len(last)-n:] {
		if q.Status != StatusAnswered || q.Choice == nil || *q.Choice != 1 || q.AnsweredBy == "afk" || q.Auto != "" {
			return false
		}
	}
	return true
}
