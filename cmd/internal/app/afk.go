package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/engine"
)

// afkCommands are the AFK, notify and reminder commands. `questions
// overdue` lives in the questions command (commands.go) and runs cmdOverdue.
func afkCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name: "afk", Usage: "AFK mode: what .devrites/AFK allows, and why a question would pause",
			Subcommands: []*cli.Command{
				{
					Name: "explain", Usage: "say which policy rule decides a question, without raising it",
					Flags: []cli.Flag{
						&cli.StringFlag{Name: "gate", Usage: "advisory, validating, blocking or escalating (else the slice's, from tasks.md)"},
						&cli.StringSliceFlag{Name: "tag", Usage: "a tag (repeatable)"},
						&cli.StringFlag{Name: "breakpoint", Usage: "breakpoint id (default: from slice and gate)"},
						&cli.StringFlag{Name: "slice", Usage: "slice, e.g. \"3 — payments\", 3, or seal"},
					},
					Action: cmdAFKExplain,
				},
				{Name: "status", Usage: "the effective AFK configuration", Action: cmdAFKStatus},
			},
		},
		{
			Name: "notify", Usage: "the notify hook",
			Subcommands: []*cli.Command{{
				Name: "test", Usage: "fire the hook once with the newest open question (or sample values) and print the outcome",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "event", Value: "test", Usage: "the event to send: " + strings.Join(engine.TestEvents(), ", ")},
				},
				Action: cmdNotifyTest,
			}},
		},
		{
			Name: "remind", Usage: "fire the notify hook (event reminder) for overdue open questions, once per SLA period each",
			Action: cmdRemind,
		},
	}
}

func cmdAFKExplain(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	e.warn(eng.ConfigWarnings())
	e.warn(eng.Rules.Warnings())
	for _, u := range eng.Untrusted() { // what would decide otherwise, once trusted
		e.warn([]string{u.Warning()})
	}
	x, err := eng.Explain(engine.ExplainRequest{Gate: c.String("gate"), Tags: c.StringSlice("tag"),
		Slice: c.String("slice"), Breakpoint: c.String("breakpoint")})
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: rule %d (%s): %s\n", x.Outcome, x.Rule, x.Name, x.Reason)
	tags := "none"
	if len(x.Tags) > 0 {
		tags = strings.Join(x.Tags, ", ")
	}
	bp := x.Breakpoint
	if bp == "" {
		bp = "none (no slice or --breakpoint)"
	}
	fmt.Fprintf(&b, "gate: %s; tags: %s; breakpoint: %s\n", x.Gate, tags, bp)
	b.WriteString(x.WhenOverdue + "\n")
	if x.HumanStreak != nil {
		fmt.Fprintf(&b, "human picks of option 1 in a row at %s: %d of %d (auto_approve_after)\n", x.Breakpoint, *x.HumanStreak, x.AutoApproveAfter)
	}
	e.print(x, b.String())
	return nil
}

func cmdAFKStatus(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	e.warn(eng.ConfigWarnings())
	s := eng.Status()
	var b strings.Builder
	switch {
	case !s.On:
		b.WriteString("afk: off (no .devrites/AFK): every question pauses for a person\n")
	case s.Broken:
		fmt.Fprintf(&b, "afk: on, but %s does not parse: nothing is auto-picked and the hook does not fire\n", s.Path)
	case s.Untrusted != "":
		fmt.Fprintf(&b, "afk: on, but %s is %s on this machine: nothing is auto-picked and its notify command does not run\n", s.Path, s.Untrusted)
	default:
		fmt.Fprintf(&b, "afk: on (%s)\n", s.Path)
	}
	list := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, ", ")
	}
	// The hook lines are the hook in force, and say which file it is
	// read from: notify.yaml, when it is there, over the AFK file.
	notifyCmd := s.Hook.Notify
	if notifyCmd == "" {
		notifyCmd = "none"
	}
	if s.HookFrom != "" && (s.Hook.Notify != "" || s.HookFrom != s.Path) {
		notifyCmd += " (from " + s.HookFrom + ")"
	}
	fmt.Fprintf(&b, "allow_gates: %s\n", list(s.AllowGates))
	fmt.Fprintf(&b, "notify: %s\n", notifyCmd)
	fmt.Fprintf(&b, "notify_timeout: %s\n", s.Hook.NotifyTimeout)
	fmt.Fprintf(&b, "notify_on: %s\n", list(s.Hook.NotifyOn))
	fmt.Fprintf(&b, "never_auto: %s\n", list(s.NeverAuto))
	fmt.Fprintf(&b, "always_stop: %s\n", list(s.AlwaysStop))
	if s.AutoApproveAfter > 0 {
		fmt.Fprintf(&b, "auto_approve_after: %d\n", s.AutoApproveAfter)
	} else {
		b.WriteString("auto_approve_after: off\n")
	}
	if s.MaxSlices > 0 {
		fmt.Fprintf(&b, "max_slices: %d\n", s.MaxSlices)
	}
	for _, u := range s.UntrustedFiles {
		fmt.Fprintf(&b, "untrusted: %s (%s): %s; %s\n", u.Path, u.Why, u.Effect, config.TrustHint)
	}
	e.print(s, b.String())
	return nil
}

func cmdNotifyTest(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	e.warn(eng.ConfigWarnings())
	for _, u := range eng.Untrusted() {
		if u.Path != eng.Hook.Path || !e.terminal() || e.json {
			continue
		}
		// A person trying the hook they just wrote is asked to trust it.
		if ok, err := offerTrust(e, u); err != nil {
			return err
		} else if ok {
			if eng, err = e.open(); err != nil {
				return err
			}
		}
	}
	r, err := eng.NotifyTest(e.ctx, c.String("event"))
	if err != nil {
		return err
	}
	var b strings.Builder
	what := r.QID
	if r.Sample {
		what += " (sample values: no question is open)"
	}
	fmt.Fprintf(&b, "fired %s for %s: %s\n", r.Event, what, r.Command)
	fmt.Fprintf(&b, "from: %s\n", r.From)
	if r.OK {
		fmt.Fprintf(&b, "ok: exit 0 in %s\n", r.Duration)
	} else {
		fmt.Fprintf(&b, "failed: %s after %s\n", r.Error, r.Duration)
	}
	if r.LogError == "" {
		fmt.Fprintf(&b, "log: %s\n", r.Log)
	}
	if r.AnswerURL != "" {
		fmt.Fprintf(&b, "answer link: %s\n", r.AnswerURL)
	}
	e.print(r, b.String())
	e.warn(r.Warnings)
	// A failing hook is a warning, never an error, here as everywhere; so is
	// a notify.log that cannot be written.
	if !r.OK && r.LogError == "" {
		e.warn([]string{r.Error + "; see " + r.Log})
	} else if !r.OK {
		e.warn([]string{r.Error})
	}
	if r.LogError != "" {
		e.warn([]string{r.LogError})
	}
	return nil
}

// span is a duration for people: 1h45m, 3d2h, 40s.
func span(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd%dh", d/(24*time.Hour), d%(24*time.Hour)/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%dh%dm", d/time.Hour, d%time.Hour/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	default:
		return fmt.Sprintf("%ds", d/time.Second)
	}
}
