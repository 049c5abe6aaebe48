package engine

import (
	"context"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// AlwaysApproveCommand is the command that answers q with option 1 and adds
// an always-approve rule for its breakpoint: the "always approve" offer of
// questions show and the notify payload. It names the workspace and the
// responder as ResolveCommand does.
func (e *Engine) AlwaysApproveCommand(q question.Question) string {
	return "devrites-engine state resolve --always " + e.ResolveFlags(q) + pickFlag(q) + q.QID + " 1"
}

// alwaysApproveOffer is the "always approve" line's text: where the rule
// would apply, and that a person makes it at a terminal. It holds no
// command: an agent reading it has nothing to run (docs/trust.md).
func (e *Engine) alwaysApproveOffer(q question.Question) string {
	return "a person at a terminal can answer option 1 and approve breakpoint " + q.Breakpoint + " in workspace " + e.WS.Slug + " from now on (state resolve --always)"
}

// alwaysRefusal says why an always-approve rule may not be added from q, or
// returns nil: q needs a breakpoint and the offer (it was not raised with
// --no-always-approve), and the rule must be able to apply, which rules 2–5
// of the policy, a never-auto rule or a broken rules file forbid.
func (e *Engine) alwaysRefusal(q question.Question, rules *config.Rules) error {
	switch {
	case q.Breakpoint == "":
		return mdstore.Errorf(ErrBadArgs, "%s has no breakpoint, so there is nothing to always approve", q.QID).
			Hint("answer it without --always; a question raised with --breakpoint (or --slice) can be always approved")
	case strings.EqualFold(strings.TrimSpace(q.AlwaysApprove), "no"):
		return mdstore.Errorf(ErrBadArgs, "%s was raised without the always-approve offer (always_approve: no)", q.QID).
			Hint("answer it without --always")
	case q.Routed() && len(q.Route) > 1:
		return mdstore.Errorf(ErrBadArgs, "%s is routed to %s: one of them cannot approve its breakpoint for all", q.QID, question.Plural(len(q.Route), "responder")).
			Hint("answer it without --always")
	}
	d := hardStop(e.AFK, Gatekeeping{Gate: q.Gate, Tags: q.Tags, Slice: q.Slice, Breakpoint: q.Breakpoint, Rules: rules})
	switch {
	case d == nil:
		return nil
	case d.Name == "never-auto" && rules.Match(config.NeverAuto, q.Breakpoint, q.Tags) != nil:
		return mdstore.Errorf(ErrConflict, "%s: %s", q.QID, d.Reason).Hint("a person removes the never-auto rule first, if it no longer holds")
	}
	return mdstore.Errorf(ErrBadArgs, "%s: an always-approve rule would never apply: %s", q.QID, d.Reason).
		Hint("answer it without --always")
}

// OffersAlwaysApprove reports whether q, an open question that paused,
// offers "always approve": it has a breakpoint, was not raised with
// --no-always-approve, and an always-approve rule for it could apply.
func (e *Engine) OffersAlwaysApprove(q question.Question) bool {
	return q.Status == question.StatusOpen && !q.Provisional && e.alwaysRefusal(q, &e.Rules) == nil
}

// AlwaysResult is what `state resolve --always` reports: the resolution and
// the rule.
type AlwaysResult struct {
	*ResolveResult
	Rule      config.Rule `json:"rule"`
	RuleAdded bool        `json:"rule_added"` // false: the same rule was already there
}

// ResolveAlways answers a question with an option number and adds an
// always-approve rule for its breakpoint, created by by. It holds the rules
// lock around the whole: the question and the rules are checked first, the
// answer is recorded (questions.md is the source of truth), then the rule
// is written. Re-running it after a crash between the two completes it, as
// the answer's re-run is a no-op. Text, a drop or a reject is never a
// standing approval: only an option number is taken.
func (e *Engine) ResolveAlways(ctx context.Context, id, answer, by string) (*AlwaysResult, error) {
	if n := strings.TrimSpace(answer); !question.IsNumber(n) {
		return nil, mdstore.Errorf(ErrBadArgs, "--always takes an option number, not %q", question.Brief(answer)).
			Hint("always approve records the option picked; to answer in words, leave out --always")
	} else if strings.TrimLeft(n, "0") != "1" {
		// A rule auto-picks option 1, the recommended one: approving another
		// option for good would make the rule pick what the person refused.
		return nil, mdstore.Errorf(ErrBadArgs, "--always approves option 1 (the recommended one) from now on, not option %s", n).
			Hint("to answer option " + n + " this once, leave out --always")
	}
	if err := checkQID(id); err != nil {
		return nil, err
	}
	by, err := e.answerer(by)
	if err != nil {
		return nil, err
	}
	// check refuses what it can from the files as they are, without a lock:
	// the question, the offer, the rules, the answer itself.
	check := func(rules *config.Rules) (question.Question, error) {
		rules.Workspace = e.WS.Slug
		f, err := e.read()
		if err != nil {
			return question.Question{}, err
		}
		b, err := e.find(f, id, "")
		if err != nil {
			return question.Question{}, err
		}
		q := question.FromBlock(b, e.Now())
		if err := e.alwaysRefusal(q, rules); err != nil {
			return q, err
		}
		_, err = e.validate(f, Resolution{QID: id, Kind: question.StatusAnswered, Text: answer}, by)
		return q, err
	}
	var res *AlwaysResult
	warning, err := config.EditRules(ctx, e.WS.Devrites, e.LockTimeout, func(rules *config.Rules) error {
		_, err := check(rules)
		return err
	}, func(rules *config.Rules) error {
		q, err := check(rules)
		if err != nil {
			return err
		}
		// The rule is this workspace's: the same breakpoint in another
		// feature is another decision (config/rules_scope.go).
		req := config.RuleRequest{Breakpoint: q.Breakpoint, Action: config.AlwaysApprove, By: by, Slug: e.WS.Slug,
			Note: "state resolve --always " + id + " " + strings.TrimSpace(answer)}
		if err := req.Check(alwaysPauses); err != nil {
			return err
		}
		// The command line lets only a person at a terminal ask for a
		// standing approval (docs/trust.md), so this is their answer.
		rr, err := e.Resolve(ctx, []Resolution{{QID: id, Kind: question.StatusAnswered, Text: answer, Via: ViaTerminal}}, by)
		if err != nil {
			return err
		}
		change, err := rules.Add(req, e.timestamp())
		if err != nil {
			return err
		}
		res = &AlwaysResult{ResolveResult: rr, Rule: change.Rule, RuleAdded: change.Added}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Warnings = appendOnce(res.Warnings, warning)
	return res, nil
}
