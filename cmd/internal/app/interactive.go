package app

// The person at a terminal: `state resolve <qid>` without an answer, and
// `answer`, which walks every open question. They prompt only when stdin and
// stdout are both a terminal; without one they are refused as before, so an
// agent can never be left waiting on a prompt. Nothing is written until a
// question's answer is complete: end of input (Ctrl-D, exit 7) or Ctrl-C
// (exit 130) before that writes nothing (prompt.go).

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// personCommands are the commands for a person at a terminal.
func personCommands() []*cli.Command {
	return []*cli.Command{{
		Name: "answer", Usage: "at a terminal: answer every open question in turn, the awaited ones first, of every workspace (--slug: one)",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "by", Usage: "who answers (default $DEVRITES_ACTOR, else human)"}},
		Action: cmdAnswer,
	}}
}

// terminal reports whether both stdin and stdout are a terminal.
func (e *env) terminal() bool {
	return isTerminal(e.stdin) && isTerminal(e.stdout)
}

// isTerminal reports whether v is a terminal: a file the terminal driver
// answers for (term.IsTerminal). /dev/null, pipes and files are not, though
// /dev/null is a character device too. It is the one check of every
// command: prompts, colour, mapped reads.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// resolveAtTerminal is `state resolve <qid>` with no answer, at a terminal.
func resolveAtTerminal(c *cli.Context, e *env, id string) error {
	eng, err := e.openFor(id)
	if err == nil {
		err = e.atTerminal(eng)
	}
	if err != nil {
		return err
	}
	q, err := eng.Get(id)
	if err != nil {
		return err
	}
	if q.Status != question.StatusOpen {
		return mdstore.Errorf(engine.ErrNotOpen, "%s is already %s", id, q.Status)
	}
	p := newPrompter(e, c.String("by"))
	defer p.close()
	p.show(q, false)
	for {
		r, _, err := p.ask(q, false)
		if err == nil {
			r.By, err = p.name(q, eng)
		}
		if err != nil {
			return p.ended(err, "nothing was written")
		}
		if ok, err := resolveOne(e, eng, r); ok || err != nil {
			return err
		}
	}
}

// resolveOne applies one resolution and prints what state resolve prints.
// A resolution the engine refuses as bad arguments (an option that does not
// exist) is shown and asked again (ok false); other errors end the command.
func resolveOne(e *env, eng *engine.Engine, r answerOf) (bool, error) {
	r.Resolution.Via = e.via()
	res, err := eng.Resolve(e.ctx, []engine.Resolution{r.Resolution}, r.By)
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
	for _, eng := range engines {
		if err := e.atTerminal(eng); err != nil {
			return err
		}
	}
	type asked struct {
		eng *engine.Engine
		q   question.Question
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
	p := newPrompter(e, c.String("by"))
	defer p.close()
	done, again := 0, false
	for i := 0; i < len(open); i++ {
		it := open[i]
		if !again {
			// Someone may have answered it since the walk began: the
			// person is asked only what is still open.
			cur, err := it.eng.GetByFingerprint(it.q.QID, it.q.Fingerprint)
			if err == nil && cur.Status != question.StatusOpen {
				by := ""
				if cur.AnsweredBy != "" {
					by = " by " + cur.AnsweredBy
				}
				fmt.Fprintf(e.stdout, "\n%s was %s meanwhile%s: on to the next question\n", cur.QID, cur.Status, by)
				continue
			}
			if err == nil {
				it.q = cur
			}
			where := ""
			if len(engines) > 1 {
				where = ", " + it.eng.WS.Slug
			}
			fmt.Fprintf(e.stdout, "\n(%d of %d%s)\n", i+1, len(open), where)
			p.show(it.q, true)
		}
		again = false
		r, next, err := p.ask(it.q, true)
		if err == nil && next && r.QID != "" {
			r.By, err = p.name(it.q, it.eng)
		}
		if err != nil {
			return p.ended(err, question.Plural(done, "question")+" answered, nothing else written")
		}
		if !next {
			break
		}
		if r.QID == "" {
			continue // skipped
		}
		ok, err := resolveOne(e, it.eng, r)
		switch {
		case errors.Is(err, engine.ErrConflict) || errors.Is(err, engine.ErrNotOpen):
			// Resolved otherwise while the person was typing.
			fmt.Fprintf(e.stdout, "not recorded: %v\non to the next question\n", err)
			continue
		case err != nil:
			return err
		case !ok:
			i, again = i-1, true // ask the same question again
			continue
		}
		done++
	}
	fmt.Fprintf(e.stdout, "%s answered\n", question.Plural(done, "question"))
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
