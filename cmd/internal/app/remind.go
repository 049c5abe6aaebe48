package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/question"
)

// remind and questions overdue cover every workspace of the project (the
// documented cron line pages for every feature), unless --slug,
// --workspace or DEVRITES_WORKSPACE chooses one. With several workspaces
// each line starts with the workspace's slug; the JSON lists are the
// workspaces' together (a qid names one question in the project).

func cmdRemind(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	engines, err := e.openAll()
	if err != nil {
		return err
	}
	all := &engine.RemindResult{Reminded: []question.Question{}, Waiting: []question.Question{}, Accepted: []question.Question{}, Warnings: []string{}}
	var b strings.Builder
	now := e.now()
	for _, eng := range engines {
		r, err := eng.Remind(e.ctx)
		if err != nil {
			return err
		}
		for _, w := range r.Warnings {
			if !slices.Contains(all.Warnings, w) { // the project's files warn once
				all.Warnings = append(all.Warnings, w)
			}
		}
		if all.Off == "" {
			all.Off = r.Off
		}
		all.Reminded = append(all.Reminded, r.Reminded...)
		all.Waiting = append(all.Waiting, r.Waiting...)
		all.Accepted = append(all.Accepted, r.Accepted...)
		at := slugPrefix(engines, eng)
		for _, q := range r.Accepted {
			fmt.Fprintf(&b, "%saccepted %s by expiry (%s, raised %s): option 1, %s\n", at, q.QID, q.Gate, q.RaisedAt, *q.Answer)
		}
		for _, q := range r.Reminded {
			escalated := ""
			if len(q.EscalatedTo) > 0 {
				escalated = "; escalated to " + strings.Join(q.EscalatedTo, ", ")
			}
			fmt.Fprintf(&b, "%sreminded %s (%s, SLA %s, overdue by %s)%s\n", at, q.QID, q.Gate, q.SLA, span(q.OverdueBy(now)), escalated)
		}
		for _, q := range r.Waiting {
			if r.Off != "" {
				fmt.Fprintf(&b, "%snot reminded %s (%s, SLA %s, overdue by %s): %s\n", at, q.QID, q.Gate, q.SLA, span(q.OverdueBy(now)), r.Off)
				continue
			}
			if every := eng.Hook.OnOverdue[q.Gate].Remind; every > 0 {
				fmt.Fprintf(&b, "%swaiting %s: reminded at %s, again after %s (on_overdue)\n", at, q.QID, q.RemindedAt, span(every))
				continue
			}
			fmt.Fprintf(&b, "%swaiting %s: reminded at %s, again after one SLA period (%s)\n", at, q.QID, q.RemindedAt, q.SLA)
		}
	}
	e.warn(all.Warnings)
	if len(all.Reminded) == 0 && len(all.Waiting) == 0 && len(all.Accepted) == 0 {
		b.WriteString("no overdue questions\n")
	}
	e.print(all, b.String())
	return nil
}

func cmdOverdue(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	engines, err := e.openAll()
	if err != nil {
		return err
	}
	qs := []question.Question{}
	var b strings.Builder
	now := e.now()
	for _, eng := range engines {
		over, err := eng.Overdue()
		if err != nil {
			return err
		}
		qs = append(qs, over...)
		for _, q := range over {
			fmt.Fprintf(&b, "%s%s  %-10s  age %-4s  sla %-4s  overdue by %-6s  %s\n", slugPrefix(engines, eng), q.QID, q.Gate, q.Age(now), q.SLA, span(q.OverdueBy(now)), q.Slice)
		}
	}
	if len(qs) == 0 {
		b.WriteString("no overdue questions\n")
	}
	e.print(map[string]any{"questions": qs}, b.String())
	return nil
}

// slugPrefix starts a line about eng's questions when there are several
// workspaces: "pay: ".
func slugPrefix(engines []*engine.Engine, eng *engine.Engine) string {
	if len(engines) < 2 {
		return ""
	}
	return eng.WS.Slug + ": "
}
