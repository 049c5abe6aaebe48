package app

import (
	"strings"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// openFor finds the workspace of a command that names questions by their
// ids and prepares its engine. A workspace chosen with --workspace, --slug
// or DEVRITES_WORKSPACE is the one. Else, in a project of several
// workspaces, it is the one workspace that holds the ids (a warning names
// it when it is not the active feature): a qid of another feature is never
// looked up in the active one, where an older id could name an unrelated
// question. ids held by no workspace go to the active one, which reports
// them unknown; an id held by several workspaces is refused as ambiguous,
// and so are ids of different workspaces in one command.
func (e *env) openFor(ids ...string) (*engine.Engine, error) {
	loc := e.locator()
	if loc.Workspace != "" || loc.Slug != "" || len(ids) == 0 {
		return e.open()
	}
	devrites, err := mdstore.DevritesDir(loc)
	if err != nil || len(mdstore.Workspaces(devrites)) < 2 {
		return e.open()
	}
	var holder *mdstore.Workspace
	var holderID string
	for _, id := range ids {
		found := engine.Locate(devrites, id)
		switch {
		case len(found) == 0:
			continue
		case len(found) > 1:
			slugs := make([]string, len(found))
			for i, ws := range found {
				slugs[i] = ws.Slug
			}
			err := mdstore.Errorf(engine.ErrAmbiguous, "%s is a question of %d workspaces: %s", id, len(found), strings.Join(slugs, ", ")).
				Hint("nothing was written; choose the workspace with --slug " + strings.Join(slugs, " or --slug "))
			// doctor renumbers the engine's ids only: DevRites numbers each
			// feature's Q-NNN apart, and two of them are no slip.
			if _, perr := qid.Parse(id); perr == nil {
				if later := engine.Later(found, id); later != nil {
					err = err.Hint("give the later one its own id: devrites-engine doctor --slug " + later.Slug + " --fix")
				}
			}
			return nil, err
		case holder != nil && holder.Dir != found[0].Dir:
			return nil, mdstore.Errorf(engine.ErrBadArgs, "%s is a question of %s and %s of %s: one command acts on one workspace", holderID, holder.Slug, id, found[0].Slug).
				Hint("nothing was written; answer the questions of each workspace apart, with --slug")
		}
		holder, holderID = found[0], id
	}
	if holder == nil {
		return e.open()
	}
	if active, err := mdstore.Find(loc); err != nil || active.Dir != holder.Dir {
		e.warn([]string{holderID + " is a question of " + holder.Slug + ", not of the active feature: acting on " + holder.Dir})
	}
	return e.engineOf(holder)
}
