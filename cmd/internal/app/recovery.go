package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/recovery"
)

// recoveryCommands are the recovery ledger's commands (recovery.md).
//
// Output: the first line of record and resolver-failed is the next action
// alone (retry, escalate <level>, parked, stopped), so that an agent can
// read it without --json; --quiet prints that line only.
func recoveryCommands() []*cli.Command {
	failure := []cli.Flag{
		&cli.StringFlag{Name: "command", Usage: "the failing command line, exactly as run"},
		&cli.StringFlag{Name: "exit", Usage: "its exit code (0 to 255)"},
		&cli.StringFlag{Name: "stderr-line", Usage: "its decisive stderr line (may be empty)"},
	}
	return []*cli.Command{{
		Name: "recovery", Usage: "the recovery ledger: corrections by failure fingerprint, escalation, parking, resolver failures",
		Subcommands: []*cli.Command{
			{
				Name: "fingerprint", Usage: "print the fingerprint of a failure: 12 hex digits of sha256(command NUL exit NUL stderr-line)",
				Flags: failure, Action: cmdRecoveryFingerprint,
			},
			{
				Name: "record", Usage: "count one correction of a fingerprint and print the next action: retry, escalate <level> or parked",
				ArgsUsage: "<fingerprint>",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "progress", Usage: "the correction made progress"},
					&cli.BoolFlag{Name: "no-progress", Usage: "the correction made no progress"},
					&cli.StringFlag{Name: "note", Usage: "what was tried (replaces the row's note)"},
				},
				Action: cmdRecoveryRecord,
			},
			{Name: "status", Usage: "every fingerprint with its level, attempts and state", Action: cmdRecoveryStatus},
			{
				Name: "reopen", Usage: "reopen a parked fingerprint (or a stopped resolver failure): a person's or an explicit invocation's decision",
				ArgsUsage: "<fingerprint> | --all",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "reopen every parked or stopped fingerprint"}},
				Action:    cmdRecoveryReopen,
			},
			{
				Name: "resolver-failed", Usage: "count a failure of state resolve: retry once, then stop the workspace (blocked, resume /rite-doctor)",
				Flags: failure, Action: cmdResolverFailed,
			},
		},
	}}
}

// failureOf reads --command, --exit and --stderr-line.
func failureOf(c *cli.Context) (engine.Failure, error) {
	for _, name := range []string{"command", "exit", "stderr-line"} {
		if !c.IsSet(name) {
			return engine.Failure{}, mdstore.Errorf(engine.ErrBadArgs, "--%s is required", name).
				Hint("give the failing command, its exit code and its decisive stderr line (--stderr-line '' when it printed none)")
		}
	}
	exit, err := strconv.Atoi(strings.TrimSpace(c.String("exit")))
	if err != nil {
		return engine.Failure{}, mdstore.Errorf(engine.ErrBadArgs, "--exit %q is not a number", c.String("exit"))
	}
	return engine.Failure{Command: c.String("command"), Exit: exit, StderrLine: c.String("stderr-line")}, nil
}

func cmdRecoveryFingerprint(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	f, err := failureOf(c)
	if err != nil {
		return err
	}
	fp, err := f.Fingerprint()
	if err != nil {
		return err
	}
	e.print(struct {
		Fingerprint string `json:"fingerprint"`
		engine.Failure
	}{fp, f}, fp)
	return nil
}

func cmdRecoveryRecord(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return mdstore.Errorf(engine.ErrBadArgs, "want one <fingerprint>, got %s", question.Plural(c.NArg(), "argument")).
			Hint("get it with: devrites-engine recovery fingerprint --command … --exit … --stderr-line …")
	}
	if c.Bool("progress") == c.Bool("no-progress") {
		return mdstore.Errorf(engine.ErrBadArgs, "give one of --progress and --no-progress").
			Hint("--progress when the correction moved the failure on, --no-progress when it did not")
	}
	fp := c.Args().First()
	res, err := eng.RecoveryRecord(e.ctx, fp, c.Bool("progress"), c.String("note"))
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(res.Action + "\n")
	switch recovery.Action(res.Action) {
	case recovery.ParkedNow:
		fmt.Fprintf(&b, "%s: parked, every strategy is spent (%d corrections in all); finish independent work\n", fp, res.Total)
		fmt.Fprintf(&b, "reopen (an explicit invocation, never a wake-up): devrites-engine recovery reopen %s\n", fp)
	default:
		fmt.Fprintf(&b, "%s: level %s, %d of %d corrections without progress, %d in all\n", fp, res.Level, res.Attempts, recovery.Spend, res.Total)
	}
	printAction(e, res, res.Action, b.String())
	return nil
}

// printAction prints a recovery result; with --quiet, the action line alone.
func printAction(e *env, v any, action, text string) {
	if e.quiet && !e.json {
		fmt.Fprintln(e.stdout, action)
		return
	}
	e.print(v, text)
}

func cmdRecoveryStatus(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	es, err := eng.RecoveryStatus()
	if err != nil {
		return err
	}
	var b strings.Builder
	if len(es) == 0 {
		b.WriteString("no fingerprints in " + recovery.File + "\n")
	}
	for _, en := range es {
		fmt.Fprintf(&b, "%s  %-7s  %-24s  attempts %d  total %d  %s", en.Fingerprint, en.State, en.Level, en.Attempts, en.Total, en.UpdatedAt)
		if en.Note != "" {
			b.WriteString("  " + en.Note)
		}
		b.WriteString("\n")
	}
	e.print(map[string]any{"fingerprints": es}, b.String())
	return nil
}

func cmdRecoveryReopen(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	all := c.Bool("all")
	if all && c.NArg() > 0 || !all && c.NArg() != 1 {
		return mdstore.Errorf(engine.ErrBadArgs, "want one <fingerprint> or --all, got %s", describeReopen(all, c.NArg()))
	}
	res, err := eng.RecoveryReopen(e.ctx, c.Args().First(), all)
	if errors.Is(err, recovery.ErrUnknown) {
		return mdstore.WithHint(err, "list the fingerprints: devrites-engine recovery status")
	}
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, en := range res.Reopened {
		fmt.Fprintf(&b, "reopened %s: level %s, state open (%d in all)\n", en.Fingerprint, en.Level, en.Total)
	}
	for _, en := range res.Unchanged {
		fmt.Fprintf(&b, "%s is %s, not parked: nothing to reopen\n", en.Fingerprint, en.State)
	}
	if all && len(res.Reopened) == 0 {
		b.WriteString("nothing to reopen: no fingerprint is parked or stopped\n")
	}
	e.print(res, b.String())
	return nil
}

func describeReopen(all bool, n int) string {
	if all {
		return "--all and " + question.Plural(n, "argument")
	}
	return question.Plural(n, "argument")
}

func cmdResolverFailed(c *cli.Context) error {
	e, eng, err := openEnv(c)
	if err != nil {
		return err
	}
	f, err := failureOf(c)
	if err != nil {
		return err
	}
	res, err := eng.ResolverFailed(e.ctx, f)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(res.Action + "\n")
	if recovery.Action(res.Action) == recovery.Retry {
		fmt.Fprintf(&b, "%s: resolver failure 1: one identical re-run is allowed\n", res.Fingerprint)
	} else {
		fmt.Fprintf(&b, "%s: resolver failure %d: state blocked — %s\n", res.Fingerprint, res.Attempts, res.StopReason)
		fmt.Fprintf(&b, "resume: %s (a person lifts the stop: devrites-engine state resume)\n", res.NextAction)
	}
	printAction(e, res, res.Action, b.String())
	return nil
}
