package app

// The person at a terminal: `state resolve <qid>` without an answer, and
// `answer`, which walks every open question. They prompt only when stdin and
// stdout are both a terminal; without one they are refused as before, so an
// agent can never be left waiting on a prompt. Nothing is written until a
// question's answer is complete: end of input (Ctrl-D) or Ctrl-C before that
// writes nothing.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

// errCancelled: the person ended the input before an answer was complete.
var errCancelled = errors.New("cancelled")

// personCommands are the commands for a person at a terminal.
func personCommands() []*cli.Command {
	return []*cli.Command{{
		Name: "answer", Usage: "at a terminal: answer every open question in turn, the awaited one first",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "by", Usage: "who answers (default $DEVRITES_ACTOR, else human)"}},
		Action: cmdAnswer,
	}}
}

// terminal reports whether both stdin and stdout are a terminal.
func (e *env) terminal() bool {
	return isTerminal(e.stdin) && isTerminal(e.stdout)
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// prompter reads a person's answers line by line.
type prompter struct {
	in  *bufio.Reader
	out io.Writer
	now func() time.Time
}

// line prints the prompt and reads one line; io.EOF when input ended.
func (p *prompter) line(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	s, err := p.in.ReadString('\n')
	if err != nil { // end of input, even after words typed: nothing was confirmed
		fmt.Fprintln(p.out)
		return "", err
	}
	return strings.TrimSpace(s), nil
}

// show prints q as questions show does, without the command line that
// answers it (the prompt is that), and what the prompt takes.
func (p *prompter) show(q engine.Question, skip bool) {
	var lines []string
	for _, l := range strings.SplitAfter(q.Text(p.now()), "\n") {
		if !strings.HasPrefix(l, "resolve: ") {
			lines = append(lines, l)
		}
	}
	fmt.Fprint(p.out, strings.Join(lines, ""))
	help := "a number picks an option; other text is the answer; r rejects, d drops (a reason follows)"
	if skip {
		help += "; s skips, q stops"
	}
	fmt.Fprintln(p.out, help)
}

// ask reads a resolution for q. With skip, "s" passes to the next question
// and "q" stops (ok false, nil error). Empty input asks again.
func (p *prompter) ask(q engine.Question, skip bool) (engine.Resolution, bool, error) {
	for {
		s, err := p.line("answer> ")
		if err != nil {
			return engine.Resolution{}, false, errCancelled
		}
		switch {
		case s == "":
			continue
		case skip && (s == "s" || s == "q"):
			return engine.Resolution{}, s == "s", nil
		case s == "r" || s == "d":
			kind, what := engine.StatusRejected, "feedback> "
			if s == "d" {
				kind, what = engine.StatusDropped, "reason> "
			}
			for {
				reason, err := p.line(what)
				if err != nil {
					return engine.Resolution{}, false, errCancelled
				}
				if reason != "" {
					return engine.Resolution{QID: q.QID, Kind: kind, Text: reason}, true, nil
				}
			}
		default:
			return engine.Resolution{QID: q.QID, Kind: engine.StatusAnswered, Text: s}, true, nil
		}
	}
}

// resolveAtTerminal is `state resolve <qid>` with no answer, at a terminal.
func resolveAtTerminal(c *cli.Context, e *env, id string) error {
	eng, err := e.openFor(id)
	if err != nil {
		return err
	}
	q, err := eng.Get(id)
	if err != nil {
		return err
	}
	if q.Status != engine.StatusOpen {
		return mdstore.Errorf(engine.ErrNotOpen, "%s is already %s", id, q.Status)
	}
	p := &prompter{in: bufio.NewReader(e.stdin), out: e.stdout, now: e.now}
	p.show(q, false)
	for {
		r, _, err := p.ask(q, false)
		if err != nil {
			fmt.Fprintln(e.stdout, "cancelled: nothing was written")
			return nil
		}
		if ok, err := resolveOne(c, e, eng, r); ok || err != nil {
			return err
		}
	}
}

// resolveOne applies one resolution and prints what state resolve prints.
// A resolution the engine refuses as bad arguments (an option that does not
// exist) is shown and asked again (ok false); other errors end the command.
func resolveOne(c *cli.Context, e *env, eng *engine.Engine, r engine.Resolution) (bool, error) {
	res, err := eng.Resolve(e.ctx, []engine.Resolution{r}, c.String("by"))
	if errors.Is(err, engine.ErrBadArgs) {
		fmt.Fprintf(e.stdout, "not recorded: %v\n", err)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	e.warn(res.Warnings)
	e.flushWarnings()
	fmt.Fprint(e.stdout, resolvedText(res))
	return true, nil
}

// cmdAnswer walks every open question, the awaited ones first: of every
// workspace of the project, unless --slug or --workspace names one.
func cmdAnswer(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if !e.terminal() {
		return mdstore.Errorf(engine.ErrBadArgs, "answer needs a terminal").
			Hint("without one, answer each question: devrites-engine state resolve <qid> \"<answer>\"")
	}
	engines, err := e.openAll()
	if err != nil {
		return err
	}
	type asked struct {
		eng *engine.Engine
		q   engine.Question
	}
	var awaited, others []asked
	for _, eng := range engines {
		v, err := eng.Show()
		if err != nil {
			if len(engines) == 1 {
				return err
			}
			e.warn([]string{eng.WS.Slug + " is left out: " + err.Error()})
			continue
		}
		for _, q := range v.Open {
			if q.QID == v.Awaiting["question_id"] {
				awaited = append(awaited, asked{eng, q})
			} else {
				others = append(others, asked{eng, q})
			}
		}
	}
	e.flushWarnings()
	open := append(awaited, others...)
	if len(open) == 0 {
		fmt.Fprintln(e.stdout, "no open questions")
		return nil
	}
	p := &prompter{in: bufio.NewReader(e.stdin), out: e.stdout, now: e.now}
	done, again := 0, false
	for i := 0; i < len(open); i++ {
		it := open[i]
		if !again {
			where := ""
			if len(engines) > 1 {
				where = ", " + it.eng.WS.Slug
			}
			fmt.Fprintf(e.stdout, "\n(%d of %d%s)\n", i+1, len(open), where)
			p.show(it.q, true)
		}
		again = false
		r, next, err := p.ask(it.q, true)
		if err != nil {
			fmt.Fprintf(e.stdout, "cancelled: %s answered, nothing else written\n", plural(done, "question"))
			return nil
		}
		if !next {
			break
		}
		if r.QID == "" {
			continue // skipped
		}
		ok, err := resolveOne(c, e, it.eng, r)
		if err != nil {
			return err
		}
		if !ok {
			i, again = i-1, true // ask the same question again
			continue
		}
		done++
	}
	fmt.Fprintf(e.stdout, "%s answered\n", plural(done, "question"))
	return nil
}

// openAll prepares the engines of the workspaces a person answers: the one
// --slug, --workspace or DEVRITES_WORKSPACE names, else every workspace of
// the project.
func (e *env) openAll() ([]*engine.Engine, error) {
	loc := e.locator()
	devrites, err := mdstore.DevritesDir(loc)
	all := []*mdstore.Workspace(nil)
	if err == nil && loc.Workspace == "" && loc.Slug == "" {
		all = mdstore.Workspaces(devrites)
	}
	if len(all) < 2 {
		eng, err := e.open()
		if err != nil {
			return nil, err
		}
		return []*engine.Engine{eng}, nil
	}
	engines := make([]*engine.Engine, 0, len(all))
	for _, ws := range all {
		eng, err := e.engineOf(ws)
		if err != nil {
			e.warn([]string{ws.Slug + " is left out: " + err.Error()})
			continue
		}
		engines = append(engines, eng)
	}
	return engines, nil
}
