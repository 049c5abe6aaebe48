package app

import (
	"strings"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/urfave/cli/v2"
)

// cmdRescoped is `state rescoped <qid>`: the agent says it has re-scoped
// after the rejection of qid, which is then owed no more.
func cmdRescoped(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return mdstore.Errorf(engine.ErrBadArgs, "want one <qid>, got %s", question.Plural(c.NArg(), "argument"))
	}
	id := c.Args().First()
	eng, err := e.openFor(id)
	if err != nil {
		return err
	}
	r, err := eng.Rescoped(e.ctx, id)
	if err != nil {
		return err
	}
	text := "no re-scope owed for " + r.QID + "; nothing changed\n"
	if r.Owed {
		text = "re-scoped " + r.QID + "; next: " + r.NextAction + "\n"
		if len(r.Pending) > 0 {
			text += "re-scope still pending for " + strings.Join(r.Pending, ", ") + "\n"
		}
	}
	e.print(r, text)
	return nil
}
