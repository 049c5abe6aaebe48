package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// rulesCommands are the approval rules' commands (.devrites/rules.yaml).
// state resolve --always (commands.go) adds a rule too, through
// cmdResolveAlways below.
func rulesCommands() []*cli.Command {
	return []*cli.Command{{
		Name: "rules", Usage: "approval rules in .devrites/rules.yaml: always-approve, never-auto or person-only, by breakpoint, tag or gate",
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "every rule, in file order", Action: cmdRulesList},
			{
				Name: "add", Usage: "add a rule (the same rule again changes nothing)",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "breakpoint", Usage: "the breakpoint id the rule covers"},
					&cli.StringFlag{Name: "tag", Usage: "the tag the rule covers (instead of --breakpoint)"},
					&cli.StringFlag{Name: "gate", Usage: "person-only or require-signature: every question of this gate (instead of --breakpoint or --tag)"},
					&cli.StringFlag{Name: "action", Usage: "always-approve (a person at a terminal only), never-auto, person-only or require-signature"},
					&cli.StringFlag{Name: "scope", Usage: "project: the rule applies in every workspace (an always-approve rule otherwise names one with --slug)"},
					&cli.StringFlag{Name: "note", Usage: "why, for the people who review it"},
					&cli.StringFlag{Name: "by", Usage: "who asks for it (default $DEVRITES_ACTOR, else human)"},
				},
				Action: cmdRulesAdd,
			},
			{Name: "remove", Usage: "remove a rule by its id", ArgsUsage: "<id>", Action: cmdRulesRemove},
		},
	}}
}

// devrites finds the .devrites directory the rules live in (devritesOf).
// No active feature is needed.
func (e *env) devrites() (string, error) {
	return devritesOf(e.locator(), "approval rules live in .devrites/"+config.RulesFile+": pass --root with the project directory")
}

// devritesOf finds the .devrites directory of loc: the one of its
// --workspace feature directory, else the project's (--root, or found by
// walking up). A feature directory outside any .devrites is refused, with
// hint saying why one is needed.
func devritesOf(loc mdstore.Locator, hint string) (string, error) {
	if loc.Workspace == "" {
		return mdstore.DevritesDir(loc)
	}
	ws, err := mdstore.Find(loc)
	if err != nil {
		return "", err
	}
	if ws.Devrites == "" {
		return "", mdstore.WithHint(mdstore.Errorf(mdstore.ErrNoWorkspace, "%s is not inside a .devrites directory", ws.Dir), hint)
	}
	return ws.Devrites, nil
}

func ruleText(r config.Rule) string {
	s := fmt.Sprintf("%s  %-14s  %s  (%s)", r.ID, r.Action, r.Selector(), r.ScopeText())
	if r.CreatedBy != "" || r.CreatedAt != "" {
		s += "  (" + strings.TrimSpace(r.CreatedBy+" "+r.CreatedAt) + ")"
	}
	if r.Note != "" {
		s += "  " + mdstore.OneLine(r.Note)
	}
	return s + "\n"
}

func rulesEnv(c *cli.Context) (*env, string, error) {
	e, err := envOf(c)
	if err != nil {
		return nil, "", err
	}
	d, err := e.devrites()
	return e, d, err
}

func cmdRulesList(c *cli.Context) error {
	e, devrites, err := rulesEnv(c)
	if err != nil {
		return err
	}
	rules, err := config.ListRules(devrites)
	if err != nil {
		return err
	}
	e.warn(rules.Warnings())
	if rules.Untrusted != "" {
		e.warn([]string{rules.TrustWarning()})
	}
	var b strings.Builder
	if len(rules.List) == 0 {
		fmt.Fprintf(&b, "no approval rules (%s)\n", filepath.Join(devrites, config.RulesFile))
	}
	for _, r := range rules.List {
		b.WriteString(ruleText(r))
	}
	e.print(map[string]any{"rules": rules.List}, b.String())
	return nil
}

func cmdRulesAdd(c *cli.Context) error {
	e, devrites, err := rulesEnv(c)
	if err != nil {
		return err
	}
	by := c.String("by")
	if !c.IsSet("by") {
		by = os.Getenv("DEVRITES_ACTOR")
	}
	slug := c.String("slug")
	if c.String("action") == config.AlwaysApprove {
		if err := needPerson(e, "an always-approve rule"); err != nil {
			return err
		}
		if ws, err := mdstore.Find(e.locator()); err == nil && slug == "" && c.String("scope") == "" {
			slug = ws.Slug // the feature at hand, as state resolve --always records it
		}
	}
	res, err := engine.AddRule(e.ctx, devrites, c.Duration("lock-timeout"), e.now(), config.RuleRequest{
		Breakpoint: c.String("breakpoint"), Tag: c.String("tag"), Gate: c.String("gate"), Action: c.String("action"),
		Slug: slug, Scope: c.String("scope"), Note: c.String("note"), By: by})
	if errors.Is(err, engine.ErrConflict) {
		return mdstore.WithHint(err, "remove it first if it no longer holds: devrites-engine rules remove <id>")
	}
	if err != nil {
		return err
	}
	what := "added "
	if !res.Added {
		what = "already there: "
	}
	e.warn(res.Warnings)
	e.print(res, what+ruleText(res.Rule))
	return nil
}

func cmdRulesRemove(c *cli.Context) error {
	e, devrites, err := rulesEnv(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return mdstore.Errorf(engine.ErrBadArgs, "want one rule <id>, got %s", question.Plural(c.NArg(), "argument"))
	}
	// Removing a rule that stops approval widens what passes without a
	// person: a person's act, as adding an always-approve rule is.
	allow := func(r config.Rule) error {
		if r.Action == config.AlwaysApprove {
			return nil
		}
		return needPerson(e, "removing a "+r.Action+" rule")
	}
	r, err := config.RemoveRule(e.ctx, devrites, c.Duration("lock-timeout"), c.Args().First(), allow)
	if errors.Is(err, engine.ErrUnknownRule) {
		return mdstore.WithHint(err, "list the rules: devrites-engine rules list")
	}
	if err != nil {
		return err
	}
	e.print(map[string]any{"removed": r}, "removed "+ruleText(*r))
	return nil
}

// cmdResolveAlways is state resolve --always <qid> 1: the answer and an
// always-approve rule for the question's breakpoint.
func cmdResolveAlways(c *cli.Context, e *env, kind string, batch bool) error {
	if kind != question.StatusAnswered || batch {
		return mdstore.Errorf(engine.ErrBadArgs, "--always goes with option 1 only, not with --drop, --reject or --batch").
			Hint("a drop or a reject is never a standing approval")
	}
	if c.NArg() != 2 {
		return mdstore.Errorf(engine.ErrBadArgs, "want <qid> <option number>, got %s", question.Plural(c.NArg(), "argument")).
			Hint("e.g. devrites-engine state resolve --always q-2026-11-29-001 1")
	}
	if err := needPerson(e, "state resolve --always"); err != nil {
		return err
	}
	eng, err := e.openFor(c.Args().First())
	if err != nil {
		return err
	}
	res, err := eng.ResolveAlways(e.ctx, c.Args().First(), c.Args().Get(1), c.String("by"))
	if err != nil {
		return err
	}
	e.warn(res.Warnings)
	what := "added"
	if !res.RuleAdded {
		what = "already there"
	}
	text := resolvedText(res.ResolveResult) + fmt.Sprintf("always approve %s (%s): rule %s (%s)\n", res.Rule.Selector(), res.Rule.ScopeText(), res.Rule.ID, what)
	e.print(res, text)
	return nil
}
