package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/question"
)

// Outcomes of a raise.
const (
	Paused      = "paused"
	AutoPicked  = "auto-picked"
	Provisional = "provisional"
	Recorded    = "recorded"
)

// alwaysStop are the tag classes that always pause, whatever the AFK file says.
var alwaysStop = []string{"destructive-migration", "auth-boundary", "public-api-break", "external-contract", "fs-destruction"}

// Decision is the policy's verdict on a raised question.
type Decision struct {
	Outcome string `json:"outcome"`
	Rule    int    `json:"rule"`
	Name    string `json:"name"`   // short rule name, written as "auto:"
	Reason  string `json:"reason"` // one sentence for people
	// Untrusted is the file that would have auto-picked the question had a
	// person trusted it on this machine (docs/trust.md), "" when trust did not
	// decide.
	Untrusted string `json:"untrusted,omitempty"`
}

// RuleApproval is the number reported for a decision of an approval rule
// (.devrites/rules.yaml, see config/rules.go). Approval rules are checked after
// rules 2–5 and before rule 6; they are numbered 9 so that rules 1–8 keep
// the numbers the specification gives them.
const RuleApproval = 9

// Gatekeeping is what the policy looks at.
type Gatekeeping struct {
	Gate       string
	Tags       []string
	Slice      string
	Breakpoint string
	// History is the questions of Breakpoint already in questions.md, in
	// file order (more may be given: only those of Breakpoint count).
	History []question.Question
	// Rules are the approval rules; nil is none.
	Rules *config.Rules
}

// Decide applies the AFK policy of the specification, first matching rule
// wins. It is the only place that decides whether a person is asked.
// Tags match without regard to case or surrounding space.
//
// Approval rules join it: a never-auto rule pauses as rule 3 does, and so
// does a rules file that does not parse (nothing is auto-picked while a
// never-auto rule may be unreadable); an always-approve rule auto-picks
// after rules 2–5 and before rule 6, in AFK mode and out of it, because a
// person asked for it.
func Decide(afk config.AFK, g Gatekeeping) Decision {
	stop := hardStop(afk, g)
	// An always-approve rule of a rules file not trusted here approves
	// nothing; the question goes on to the rules after it, and when it
	// pauses, held is why.
	rule, ok := approved(g)
	var held *Decision
	if ok && g.Rules.Untrusted != "" {
		held = &Decision{Paused, RuleApproval, "untrusted", fmt.Sprintf("%s, but %s is %s on this machine, so it does not apply (%s)",
			rule.Reason, g.Rules.Path, g.Rules.Untrusted, config.TrustHint), g.Rules.Path}
		ok = false
	}
	if !afk.On {
		// Out of AFK mode only an always-approve rule auto-picks; when rules
		// 2–5 stop one that covers the question, they are what decided.
		switch {
		case (ok || held != nil) && stop != nil:
			return *stop
		case ok:
			return rule
		case held != nil:
			return *held
		}
		return Decision{Paused, 1, "afk-off", "AFK mode is off (.devrites/AFK absent): a person answers", ""}
	}
	if stop != nil {
		return *stop
	}
	if ok {
		return rule
	}
	notTrusted := func(n int, why string) Decision {
		return Decision{Paused, n, "untrusted", fmt.Sprintf("%s, but %s is %s on this machine, so nothing is auto-picked (%s)",
			why, afk.Path, afk.Untrusted, config.TrustHint), afk.Path}
	}
	if slices.Contains(afk.AllowGates, g.Gate) {
		if afk.Untrusted != "" {
			return notTrusted(6, g.Gate+" is in allow_gates")
		}
		if g.Gate == "validating" {
			return Decision{Provisional, 6, "allow_gates", "validating is in allow_gates: proceed on option 1 while a person validates", ""}
		}
		return Decision{AutoPicked, 6, "allow_gates", fmt.Sprintf("%s is in allow_gates", g.Gate), ""}
	}
	if n := afk.AutoApproveAfter; n > 0 && g.Breakpoint != "" {
		if got := HumanStreak(g.History, g.Breakpoint); got >= n {
			why := fmt.Sprintf("the last %d resolutions of breakpoint %s were human picks of option 1", n, g.Breakpoint)
			if afk.Untrusted != "" {
				return notTrusted(7, why)
			}
			return Decision{AutoPicked, 7, "auto_approve_after", why, ""}
		}
	}
	if held != nil {
		return *held
	}
	var reason string
	switch {
	case afk.Broken:
		reason = "the AFK file does not parse, so nothing is auto-picked"
	case afk.AutoApproveAfter > 0 && g.Breakpoint != "":
		reason = fmt.Sprintf("%s is not in allow_gates [%s], and breakpoint %s has %d of the %d human picks of option 1 in a row that auto_approve_after asks",
			g.Gate, strings.Join(afk.AllowGates, ", "), g.Breakpoint, HumanStreak(g.History, g.Breakpoint), afk.AutoApproveAfter)
	default:
		reason = fmt.Sprintf("%s is not in allow_gates [%s]", g.Gate, strings.Join(afk.AllowGates, ", "))
	}
	return Decision{Paused, 8, "default", reason, ""}
}

// hardStop is the first of rules 2–5 that pauses the question, or nil:
// what no rule of a person or the AFK file can auto-pick.
func hardStop(afk config.AFK, g Gatekeeping) *Decision {
	if g.Gate == "escalating" {
		return &Decision{Paused, 2, "escalating", "escalating gates always pause", ""}
	}
	for _, t := range g.Tags {
		t = config.NormTag(t)
		if slices.Contains(alwaysStop, t) {
			return &Decision{Paused, 3, "always-stop", fmt.Sprintf("tag %q is an always-stop class", t), ""}
		}
		for _, n := range afk.NeverAuto {
			if config.NormTag(n) == t {
				return &Decision{Paused, 3, "never-auto", fmt.Sprintf("tag %q is listed in never_auto", t), ""}
			}
		}
	}
	if g.Rules != nil && g.Rules.Broken {
		return &Decision{Paused, 3, "rules-broken", g.Rules.Path + " does not parse, so no approval rule applies and nothing is auto-picked", ""}
	}
	if r := g.Rules.Match(config.NeverAuto, g.Breakpoint, g.Tags); r != nil {
		return &Decision{Paused, 3, "never-auto", fmt.Sprintf("%s has never-auto rule %s%s", r.Selector(), r.ID, createdBy(*r)), ""}
	}
	// An auto-pick is never signed, so it would hold the agent for good
	// (docs/signing.md): a person answers, and signs.
	if r := g.Rules.MatchQuestion(config.RequireSignature, g.Breakpoint, g.Gate, g.Tags); r != nil {
		return &Decision{Paused, 3, "require-signature", fmt.Sprintf("%s has require-signature rule %s%s: a person answers and signs", r.Selector(), r.ID, createdBy(*r)), ""}
	}
	if r := g.Rules.MatchQuestion(config.PersonOnly, g.Breakpoint, g.Gate, g.Tags); r != nil {
		return &Decision{Paused, 3, "person-only", fmt.Sprintf("%s has person-only rule %s%s", r.Selector(), r.ID, createdBy(*r)), ""}
	}
	for _, t := range g.Tags {
		if t = config.NormTag(t); t == "scope" || t == "acceptance" {
			return &Decision{Paused, 4, "scope-or-acceptance", fmt.Sprintf("tag %q: added scope or acceptance is never auto-picked", t), ""}
		}
	}
	if strings.EqualFold(strings.TrimSpace(g.Slice), "seal") {
		return &Decision{Paused, 5, "seal", "a person answers the seal", ""}
	}
	return nil
}

// approved is the decision of the first always-approve rule that covers
// the question's breakpoint or one of its tags.
func approved(g Gatekeeping) (Decision, bool) {
	r := g.Rules.Match(config.AlwaysApprove, g.Breakpoint, g.Tags)
	if r == nil {
		return Decision{}, false
	}
	return Decision{AutoPicked, RuleApproval, "rule " + r.ID, fmt.Sprintf("%s has always-approve rule %s%s", r.Selector(), r.ID, createdBy(*r)), ""}, true
}

func createdBy(r config.Rule) string {
	if r.CreatedBy == "" {
		return ""
	}
	return ", created by " + r.CreatedBy
}

// HumanStreak counts the latest resolutions of a breakpoint, newest first,
// that were human answers choosing option 1, up to the first one that was
// not: a drop, a reject, another option or an answer in words ends it.
// Resolutions are ordered by answered_at, then file order.
//
// The engine's own auto-picks (answered_by afk, or an auto field) are
// skipped: they are not a person's judgement either way, and counting them
// as breaks would make rule 7 undo itself every time it fires. Open
// questions, provisional ones included, are not resolutions. A resolution
// that is not a person's own on this machine (streak.go) ends the streak.
func HumanStreak(history []question.Question, bp string) int {
	var done []question.Question
	for _, q := range history {
		if q.Breakpoint == bp && q.Status != question.StatusOpen && q.Status != "" {
			done = append(done, q)
		}
	}
	sort.SliceStable(done, func(i, j int) bool { return done[i].AnsweredAt < done[j].AnsweredAt })
	n := 0
	for i := len(done) - 1; i >= 0; i-- {
		q := done[i]
		if q.AnsweredBy == "afk" || q.Auto != "" {
			continue
		}
		if q.Status != question.StatusAnswered || q.Choice == nil || *q.Choice != 1 || !q.AnsweredHere {
			break
		}
		n++
	}
	return n
}

// AddRule adds an approval rule to .devrites/rules.yaml (config.AddRule),
// refusing an always-approve rule for a tag the policy's hard stops
// always pause.
func AddRule(ctx context.Context, devrites string, timeout time.Duration, now time.Time, q config.RuleRequest) (*config.RuleChange, error) {
	return config.AddRule(ctx, devrites, timeout, now, q, alwaysPauses)
}

// alwaysPauses reports whether the policy's hard stops pause every
// question with tag, whatever the AFK file and rules say.
func alwaysPauses(tag string) bool {
	return hardStop(config.AFK{}, Gatekeeping{Tags: []string{tag}}) != nil
}
