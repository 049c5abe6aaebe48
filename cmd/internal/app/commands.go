package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// commands is the command tree: the HITL core here, AFK and notify in
// afk.go, doctor in doctor.go.
func commands() []*cli.Command {
	cmds := coreCommands()
	cmds = append(cmds, afkCommands()...)
	cmds = append(cmds, recoveryCommands()...)
	cmds = append(cmds, rulesCommands()...)
	cmds = append(cmds, claimCommands()...)
	cmds = append(cmds, trustCommands()...)
	cmds = append(cmds, signCommands()...)
	cmds = append(cmds, serveCommands()...)
	cmds = append(cmds, waitCommands()...)
	cmds = append(cmds, mcpCommands()...)
	cmds = append(cmds, hookCommands()...)
	return withGit(append(cmds, doctorCommands()...))
}

func coreCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name: "init", Usage: "create .devrites/work/<slug>/ and make it the active feature",
			ArgsUsage: "[slug]", Action: cmdInit,
		},
		{
			Name: "question", Usage: "raise HITL questions",
			Subcommands: []*cli.Command{{
				Name: "raise", Usage: "the HITL checkpoint: record a question and pause (or auto-pick in AFK mode)",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "slice", Usage: "slice, e.g. \"3 — payments\" or 3 (looked up in tasks.md)"},
					&cli.StringFlag{Name: "gate", Usage: "advisory, validating, blocking or escalating"},
					&cli.StringFlag{Name: "question", Usage: "the question"},
					&cli.StringSliceFlag{Name: "option", Usage: "an option, recommended first (1 to 3)"},
					&cli.StringFlag{Name: "proposed", Usage: "best-guess answer (default: option 1)"},
					&cli.StringFlag{Name: "sla", Usage: "none, 15m, 4h, 24h … (default by gate)"},
					&cli.StringSliceFlag{Name: "route", Usage: "whom to page and ask (repeatable; owner: whoever runs the project); anyone may answer unless --strategy; required for escalating"},
					&cli.StringFlag{Name: "strategy", Usage: "make the route a vote that only its responders answer (--by): single, first-response-wins, collect-all or quorum:N"},
					&cli.StringSliceFlag{Name: "tag", Usage: "a tag (repeatable)"},
					&cli.StringFlag{Name: "breakpoint", Usage: "breakpoint id (default: from slice and gate)"},
					&cli.StringFlag{Name: "blocking-slices", Usage: "slices this blocks, e.g. \"3, 4\""},
					&cli.StringFlag{Name: "input", Usage: "read the fields as JSON from FILE, or - for stdin"},
					&cli.StringFlag{Name: "answered", Usage: "record an answer given interactively (no pause, no notify)"},
					&cli.IntFlag{Name: "choice", Usage: "record the option picked interactively"},
					&cli.StringFlag{Name: "by", Usage: "who answered, with --answered/--choice"},
					&cli.BoolFlag{Name: "explain", Usage: "say which policy rule decided"},
					&cli.BoolFlag{Name: "no-always-approve", Usage: "do not offer \"always approve\" for this question"},
					&cli.StringSliceFlag{Name: "claim-check", Usage: "a path the question's work touches (repeatable): refused (exit 3) while another session holds one live"},
					&cli.StringFlag{Name: "session", Usage: "the session raising, with --claim-check: its own claims do not count"},
				},
				Action: cmdRaise,
			}},
		},
		{
			Name: "state", Usage: "read and move the cursor in state.md",
			Subcommands: []*cli.Command{
				{Name: "show", Usage: "the cursor, the awaited question, the open questions", Action: cmdShow},
				{
					Name: "check", Usage: "exit 0 when the agent may proceed, 3 when a human must act",
					Flags:  []cli.Flag{&cli.BoolFlag{Name: "seal", Usage: "also stop while any question is open"}},
					Action: cmdCheck,
				},
				{
					Name: "stop", Usage: "record a cold-resumable stop",
					Flags: []cli.Flag{
						&cli.StringFlag{Name: "status", Usage: "blocked, awaiting_human or running"},
						&cli.StringFlag{Name: "reason", Usage: "the exact reason"},
						&cli.StringFlag{Name: "resume", Usage: "the one command that resumes"},
					},
					Action: cmdStop,
				},
				{
					Name: "resume", Usage: "lift a stop (what state stop --status running does): a person's decision",
					Action: cmdResume,
				},
				{
					Name: "resolve", Usage: "answer, drop or reject a question",
					ArgsUsage: "<qid> <answer…> | --drop <qid> <reason…> | --reject <qid> <feedback…> | --always <qid> 1 | --batch FILE|-",
					Flags: []cli.Flag{
						&cli.BoolFlag{Name: "drop", Usage: "drop the question; the words are the reason"},
						&cli.BoolFlag{Name: "reject", Usage: "reject; the words are feedback for re-scoping"},
						&cli.StringFlag{Name: "batch", Usage: "resolve many from FILE, or - for stdin"},
						&cli.StringFlag{Name: "by", Usage: "who answered (default $DEVRITES_ACTOR, else human)"},
						&cli.BoolFlag{Name: "always", Usage: "with option 1: also always approve the question's breakpoint (a rule in .devrites/rules.yaml)"},
					},
					Action: cmdResolve,
				},
				{
					Name: "rescoped", Usage: "say the re-scope owed after a rejection of <qid> is done (the agent re-planned)",
					ArgsUsage: "<qid>", Action: cmdRescoped,
				},
			},
		},
		{
			Name: "qid", Usage: "question ids",
			Subcommands: []*cli.Command{{Name: "next", Usage: "the id the next raise would get", Action: cmdQIDNext}},
		},
		{
			Name: "questions", Usage: "read questions.md",
			Subcommands: []*cli.Command{
				{
					Name: "list", Usage: "qid, status, gate, slice, age, SLA, overdue",
					Flags: []cli.Flag{
						&cli.StringFlag{Name: "status", Value: "open", Usage: "open, answered, dropped, rejected or all"},
						&cli.StringFlag{Name: "gate", Usage: "only questions of this gate"},
						&cli.StringFlag{Name: "slice", Usage: "only questions of this slice (\"3\", \"SLICE-003\" or as written)"},
						&cli.BoolFlag{Name: "overdue", Usage: "only questions past their SLA"},
						&cli.BoolFlag{Name: "awaited", Usage: "only the question state.md awaits"},
					},
					Action: cmdList,
				},
				{Name: "show", Usage: "the option set as a person sees it", ArgsUsage: "<qid>", Action: cmdQuestionShow},
				{Name: "overdue", Usage: "open questions past their SLA (see remind)", Action: cmdOverdue},
			},
		},
	}
}

func cmdInit(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if c.NArg() > 1 {
		return mdstore.Errorf(errUsage, "want at most one slug, got %s", question.Plural(c.NArg(), "word"))
	}
	if c.IsSet("workspace") {
		return mdstore.Errorf(errUsage, "--workspace names a feature directory that exists; init makes one").
			Hint("give the project with --root DIR and the slug as the argument: devrites-engine init --root DIR <slug>")
	}
	if c.IsSet("slug") && c.NArg() == 1 && c.String("slug") != c.Args().First() {
		return mdstore.Errorf(errUsage, "--slug %s and the argument %s name two features", c.String("slug"), c.Args().First())
	}
	slug := c.Args().First()
	if slug == "" {
		slug = c.String("slug")
	}
	ws, err := mdstore.Init(e.locator(), slug, e.now())
	if err != nil {
		return err
	}
	e.print(map[string]string{"workspace": ws.Dir, "slug": ws.Slug},
		fmt.Sprintf("created %s\nactive feature: %s\n", ws.Dir, ws.Slug))
	return offerTrustAll(e, ws)
}

func cmdShow(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	v, err := eng.Show()
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "workspace: %s (%s, schema %d, %s form)\n", v.Workspace, v.Slug, v.Schema, v.Encoding)
	for _, k := range v.CursorKey {
		fmt.Fprintf(&b, "%s: %s\n", k, v.Cursor[k])
	}
	if v.Awaiting != nil {
		fmt.Fprintf(&b, "awaiting: %s (%s) %s\n", v.Awaiting["question_id"], v.Awaiting["gate"], v.Awaiting["question"])
	}
	if v.Resolve != "" {
		fmt.Fprintf(&b, "resolve: %s\n", v.Resolve)
	}
	if len(v.Open) == 0 {
		b.WriteString("open questions: none\n")
	} else {
		fmt.Fprintf(&b, "open questions: %d\n", len(v.Open))
		for _, q := range v.Open {
			fmt.Fprintf(&b, "  %s  %-10s  %s\n", q.QID, q.Gate, mdstore.OneLine(q.Question))
		}
	}
	e.print(v, b.String())
	return nil
}

func openEnv(c *cli.Context) (*env, *engine.Engine, error) {
	e, err := envOf(c)
	if err != nil {
		return nil, nil, err
	}
	eng, err := e.open()
	return e, eng, err
}

func cmdCheck(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	r, err := eng.Check(c.Bool("seal"))
	if err != nil {
		return err
	}
	text := "proceed: " + r.Reason + "\n"
	if !r.Proceed {
		text = "stop: " + r.Reason + "\n"
	}
	if r.Resolve != "" {
		text += "resolve: " + r.Resolve + "\n"
	}
	e.print(r, text)
	if !r.Proceed {
		return status(exitPaused)
	}
	return nil
}

func cmdStop(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	req := engine.StopRequest{Status: c.String("status"), Reason: c.String("reason"), Resume: c.String("resume")}
	if req.Status == "" {
		return mdstore.WithHint(mdstore.Errorf(engine.ErrBadArgs, "--status is required"), "use one of blocked, awaiting_human, running")
	}
	res, err := eng.Stop(e.ctx, req)
	if err != nil {
		return err
	}
	if req.Status == engine.CursorRunning { // a lift: no stop_reason stays
		e.print(map[string]string{"status": res.Status, "next_action": res.NextAction},
			fmt.Sprintf("stop lifted (%s); state: %s; next: %s\n", req.Reason, res.Status, res.NextAction))
		return nil
	}
	e.print(map[string]string{"status": res.Status, "stop_reason": req.Reason, "next_action": res.NextAction},
		fmt.Sprintf("stopped: %s — %s\nresume: %s\n", res.Status, req.Reason, res.NextAction))
	return nil
}

func cmdResolve(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	kind := question.StatusAnswered
	switch {
	case c.Bool("drop") && c.Bool("reject"):
		return mdstore.Errorf(engine.ErrBadArgs, "--drop and --reject exclude each other")
	case c.Bool("drop"):
		kind = question.StatusDropped
	case c.Bool("reject"):
		kind = question.StatusRejected
	}
	batch := c.IsSet("batch")
	if c.Bool("always") {
		return cmdResolveAlways(c, e, kind, batch)
	}
	if batch {
		if c.NArg() > 0 || kind != question.StatusAnswered {
			return mdstore.Errorf(engine.ErrBadArgs, "--batch takes no other arguments")
		}
		text, err := readInput("--batch", c.String("batch"), e.stdin)
		if err != nil {
			return err
		}
		b, err := engine.ReadBatch(string(text))
		if err != nil {
			return err
		}
		eng, err := e.openFor(b.IDs()...)
		if err != nil {
			return err
		}
		if err := e.atTerminal(eng); err != nil {
			return err
		}
		for i := range b.Items {
			b.Items[i].Via = e.via()
		}
		res, err := eng.ResolveBatch(e.ctx, b, c.String("by"))
		if err != nil {
			return err
		}
		e.warn(res.Warnings)
		e.print(res, resolvedText(res))
		return nil
	}
	if c.NArg() == 1 && kind == question.StatusAnswered && e.terminal() {
		return resolveAtTerminal(c, e, c.Args().First())
	}
	if c.NArg() < 2 {
		what := map[string]string{question.StatusAnswered: "answer", question.StatusDropped: "reason", question.StatusRejected: "feedback"}[kind]
		return mdstore.WithHint(mdstore.Errorf(engine.ErrBadArgs, "want <qid> <%s…>, got %s", what, question.Plural(c.NArg(), "argument")),
			"an empty answer is never approval; use -- before an answer that starts with '-'")
	}
	item := engine.Resolution{QID: c.Args().First(), Kind: kind, Text: strings.Join(c.Args().Tail(), " "), Via: e.via()}
	eng, err := e.openFor(item.QID)
	if err != nil {
		return err
	}
	if err := e.atTerminal(eng); err != nil {
		return err
	}
	res, err := eng.Resolve(e.ctx, []engine.Resolution{item}, c.String("by"))
	if err != nil {
		return err
	}
	e.warn(res.Warnings)
	e.print(res, resolvedText(res))
	return nil
}

// resolvedText is what state resolve prints for people. A response to a
// routed question that leaves it open says so, and what it still waits for:
//
//	q-2026-11-29-001 response by alice recorded: answered (option 1): Banker's rounding
//	still open: 1 of 3 responded; waiting for bob, carol
func resolvedText(res *engine.ResolveResult) string {
	var b strings.Builder
	for _, r := range res.Resolved {
		again := ""
		if r.Unchanged {
			again = " (already recorded)"
		}
		if p := r.Response; p != nil && r.Status == question.StatusOpen {
			choice := ""
			if p.Choice != 0 {
				choice = " (option " + strconv.Itoa(p.Choice) + ")"
			}
			recorded := "recorded"
			if r.Unchanged {
				recorded = "already recorded"
			}
			fmt.Fprintf(&b, "%s response by %s %s: %s%s: %s\n", r.QID, p.By, recorded, p.Status, choice, mdstore.OneLine(p.Answer))
			fmt.Fprintf(&b, "still open: %s\n", r.Progress)
			continue
		}
		choice := ""
		if r.Choice != nil {
			choice = " (option " + strconv.Itoa(*r.Choice) + ")"
		}
		fmt.Fprintf(&b, "%s %s%s%s: %s\n", r.QID, r.Status, choice, again, mdstore.OneLine(r.Answer))
		if r.Progress != "" {
			fmt.Fprintf(&b, "responses: %s\n", r.Progress)
		}
		switch {
		case r.State == engine.CursorBlocked:
			fmt.Fprintf(&b, "state: blocked (%s); a person lifts the stop: devrites-engine state resume\n", r.StopReason)
		case r.StateUpdated:
			fmt.Fprintf(&b, "state: %s; next: %s\n", r.State, r.NextAction)
		}
	}
	return b.String()
}

func cmdResume(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	r, err := eng.Resume(e.ctx)
	if err != nil {
		return err
	}
	text := "state: " + r.Status + " (no stop to lift)\n"
	if r.Changed {
		text = fmt.Sprintf("stop lifted (%s); state: %s; next: %s\n", r.Lifted, r.Status, r.NextAction)
	}
	e.print(r, text)
	return nil
}

func cmdQIDNext(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	id, err := eng.NextQID(e.ctx)
	if err != nil {
		return err
	}
	e.print(map[string]string{"qid": id}, id+"\n")
	return nil
}

func cmdList(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	defer out.Flush()
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false) // as print: "<answer>" stays readable
	enc.SetIndent("    ", "  ")
	now, n := e.now(), 0
	// The list is written as it is read, in the form print gives it.
	err = eng.List(engine.ListFilter{Status: c.String("status"), Gate: c.String("gate"), Slice: c.String("slice"),
		Overdue: c.Bool("overdue"), Awaited: c.Bool("awaited")}, func(q question.Question) error {
		n++
		switch {
		case e.json:
			item.Reset()
			if err := enc.Encode(q); err != nil {
				return err
			}
			if n == 1 {
				out.WriteString("{\n  \"questions\": [\n    ")
			} else {
				out.WriteString(",\n    ")
			}
			out.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n")))
		case !e.quiet:
			marks := ""
			for _, m := range []struct {
				on   bool
				word string
			}{{q.Awaited, "AWAITED"}, {q.Provisional && q.Status == question.StatusOpen, "PROVISIONAL"}, {q.Overdue, "OVERDUE"}} {
				if m.on {
					marks += "  " + m.word
				}
			}
			fmt.Fprintf(out, "%s  %-8s  %-10s  age %-4s  sla %-4s  %s%s\n", q.QID, q.Status, q.Gate, q.Age(now), q.SLA, q.Slice, marks)
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case e.json && n == 0:
		out.WriteString("{\n  \"questions\": []\n}\n")
	case e.json:
		out.WriteString("\n  ]\n}\n")
	case n == 0 && !e.quiet:
		fmt.Fprintf(out, "no %s questions\n", c.String("status"))
	}
	return nil
}

func cmdQuestionShow(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return mdstore.Errorf(engine.ErrBadArgs, "want one <qid>, got %s", question.Plural(c.NArg(), "argument"))
	}
	eng, err := e.openFor(c.Args().First())
	if err != nil {
		return err
	}
	q, err := eng.Get(c.Args().First())
	if err != nil {
		return err
	}
	text := eng.ShowText(q)
	if eng.OffersAlwaysApprove(q) && e.person() {
		text += "always approve, at this terminal: " + eng.AlwaysApproveCommand(q) + "\n"
	}
	if e.color() { // the recommended option in bold
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "▸ ") {
				lines[i] = "\x1b[1m" + l + "\x1b[0m"
			}
		}
		text = strings.Join(lines, "\n")
	}
	e.print(q, text)
	return nil
}
