package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

func waitCommands() []*cli.Command {
	return []*cli.Command{{
		Name:      "wait",
		Usage:     "block until a question (default: the awaited one) is answered, dropped or rejected; exit 3 at --timeout",
		ArgsUsage: "[qid]",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "timeout", Usage: "give up after this long, e.g. 30s or 10m (default: wait until it is final)"},
		},
		Action: cmdWait,
	}}
}

// waitResult is what wait prints with --json, and what the MCP tool
// wait_for_answer returns: the question as it reads when the wait ended.
type waitResult struct {
	QID      string            `json:"qid"`
	Status   string            `json:"status"`
	Final    bool              `json:"final"`
	TimedOut bool              `json:"timed_out,omitempty"`
	Question question.Question `json:"question"`
}

func cmdWait(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if c.NArg() > 1 {
		return mdstore.Errorf(engine.ErrBadArgs, "want at most one <qid>, got %s", question.Plural(c.NArg(), "argument"))
	}
	eng, err := e.openFor(c.Args().Slice()...)
	if err != nil {
		return err
	}
	timeout := c.Duration("timeout")
	if timeout < 0 {
		return mdstore.Errorf(errUsage, "--timeout %s is negative", timeout)
	}
	ctx := e.ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	q, err := eng.Wait(ctx, c.Args().First(), nil)
	timedOut := errors.Is(err, context.DeadlineExceeded) && q.QID != ""
	if err != nil && !timedOut {
		return err
	}
	r := waitResult{QID: q.QID, Status: q.Status, Final: !timedOut, TimedOut: timedOut, Question: q}
	if timedOut && q.Unsigned != "" {
		e.print(r, engine.UnsignedText(q)+"\n")
		return status(exitPaused)
	}
	if timedOut {
		e.print(r, fmt.Sprintf("%s still open after %s\nresolve: %s\n", q.QID, timeout, eng.ResolveCommand(q)))
		return status(exitPaused)
	}
	e.print(r, resolutionText(q))
	return nil
}

// resolutionText is a final question's resolution as wait prints it:
//
//	q-2026-11-29-001 answered (option 2): Round half up
//	by alice via elicitation at 2026-11-29T14:05:00Z
func resolutionText(q question.Question) string {
	var b strings.Builder
	choice := ""
	if q.Choice != nil {
		choice = " (option " + strconv.Itoa(*q.Choice) + ")"
	}
	fmt.Fprintf(&b, "%s %s%s: %s\n", q.QID, q.Status, choice, deref(q.Answer))
	if how := q.HowResolved(); how != "" {
		b.WriteString(how + "\n")
	}
	return b.String()
}
