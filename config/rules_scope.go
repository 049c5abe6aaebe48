package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// Rules are per feature (docs/recovery-and-rules.md, "Scope"): an
// always-approve rule applies in the workspace its slug names, or in every
// workspace of the project when it says scope: project; one that says
// neither approves nothing (it fails closed, and is reported). Never-auto
// and person-only rules only narrow what passes: without a slug they apply
// everywhere.

// scopeProblems are what is wrong with a rule's slug and scope.
func (r Rule) scopeProblems() []RuleProblem {
	var probs []RuleProblem
	if r.Scope != "" && r.Scope != ScopeProject {
		probs = append(probs, RuleProblem{r.Line, fmt.Sprintf("%s: scope %q is not project (leave it out for the workspace of slug)", orUnnamed(r.ID), r.Scope)})
	}
	if r.Slug != "" && mdstore.CheckSlug(r.Slug) != nil {
		probs = append(probs, RuleProblem{r.Line, fmt.Sprintf("%s: slug %q is not a workspace name", orUnnamed(r.ID), r.Slug)})
	}
	if r.Gate != "" && !slices.Contains(mdstore.Gates, r.Gate) {
		probs = append(probs, RuleProblem{r.Line, fmt.Sprintf("%s: gate %q is not one of %s", orUnnamed(r.ID), r.Gate, strings.Join(mdstore.Gates, ", "))})
	}
	if r.Gate != "" && slices.Contains(ruleActions, r.Action) && !byGate(r.Action) {
		probs = append(probs, RuleProblem{r.Line, fmt.Sprintf("%s: %s rules select by breakpoint or tag, not gate", orUnnamed(r.ID), r.Action)})
	}
	return probs
}

// appliesIn reports whether the rule applies in the workspace slug.
func (r Rule) appliesIn(slug string) bool {
	switch {
	case r.Scope == ScopeProject:
		return true
	case r.Slug != "":
		return r.Slug == slug
	}
	return r.Action != AlwaysApprove
}

// ScopeText says where a rule applies: "project", "workspace pay" or,
// for an always-approve rule with neither, "nowhere (no slug, no scope)".
func (r Rule) ScopeText() string {
	switch {
	case r.Scope == ScopeProject:
		return "project"
	case r.Slug != "":
		return "workspace " + r.Slug
	case r.Action == AlwaysApprove:
		return "nowhere: no slug and no scope: project"
	}
	return "project"
}

// LoadRulesIn reads the rules as they apply in the workspace slug.
func LoadRulesIn(devrites, slug string) Rules {
	r := LoadRules(devrites)
	r.Workspace = slug
	return r
}

// MatchQuestion returns the first rule with action that covers a question
// (its breakpoint, gate and tags) in the workspace the rules are applied
// in. A broken file matches nothing here; callers that must fail closed
// check Broken.
func (r *Rules) MatchQuestion(action, breakpoint, gate string, tags []string) *Rule {
	if r == nil || r.Broken {
		return nil
	}
	for i, rule := range r.List {
		if rule.Action != action || !rule.appliesIn(r.Workspace) {
			continue
		}
		switch {
		case rule.Breakpoint != "" && rule.Breakpoint == breakpoint,
			rule.Gate != "" && rule.Gate == strings.TrimSpace(gate),
			rule.Tag != "" && slices.ContainsFunc(tags, func(t string) bool { return NormTag(t) == NormTag(rule.Tag) }):
			return &r.List[i]
		}
	}
	return nil
}

// checkScope refuses a request whose gate, slug or scope cannot be
// written: an always-approve rule names its workspace or says scope
// project, and a name is written only in the safe set (names.go).
func (q *RuleRequest) checkScope() error {
	if q.Slug != "" {
		if err := mdstore.CheckSlug(q.Slug); err != nil {
			return mdstore.Errorf(ErrBadArgs, "--slug %q: %v", q.Slug, err)
		}
	}
	if err := CheckName("--by", q.By); err != nil {
		return err
	}
	switch {
	case q.Scope != "" && q.Scope != ScopeProject:
		return mdstore.Errorf(ErrBadArgs, "--scope %q", q.Scope).Hint("use --scope project, or leave it out for the workspace of --slug")
	case q.Gate != "" && !byGate(q.Action):
		return mdstore.Errorf(ErrBadArgs, "--gate selects only for person-only and require-signature rules").Hint(q.Action + " rules select by --breakpoint or --tag")
	case q.Gate != "" && !slices.Contains(mdstore.Gates, q.Gate):
		return mdstore.Errorf(ErrBadArgs, "--gate %q", q.Gate).Hint("use one of " + strings.Join(mdstore.Gates, ", "))
	case q.Action == AlwaysApprove && q.Slug == "" && q.Scope == "":
		return mdstore.Errorf(ErrBadArgs, "an always-approve rule applies in one workspace (--slug) or, with --scope project, in every one").
			Hint("name the feature with --slug, or say --scope project")
	}
	return nil
}

// overlaps reports whether two rules can apply in one workspace.
func (r Rule) overlaps(o Rule) bool {
	return r.Scope == ScopeProject || o.Scope == ScopeProject || r.Slug == "" || o.Slug == "" || r.Slug == o.Slug
}

// Requires reports whether any rule Requires a signature.
func (r *Rules) Requires() bool {
	if r == nil || r.Broken {
		return false
	}
	for _, x := range r.List {
		if x.Action == RequireSignature {
			return true
		}
	}
	return false
}
