package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Env is what a hook call needs from its caller: where to look and how to
// open a workspace, and who answers at this machine.
type Env struct {
	Getenv func(string) string
	// Locate is the locator of a project directory: the engine's global
	// flags and environment, walking up from dir.
	Locate func(dir string) mdstore.Locator
	// Open prepares the engine of a found workspace.
	Open func(ws *mdstore.Workspace) (*engine.Engine, error)
	// Answerer is answered_by for the person's chat answers: this machine's
	// configured name.
	Answerer func() (string, error)
}

// Handle answers one event read from stdin, in h's form. It never fails:
// an error becomes a denial where a denial guards (PreToolUse,
// PermissionRequest), the person is told where a prompt was refused, and
// elsewhere the event passes (docs/harness.md).
func Handle(ctx context.Context, h Harness, stdin []byte, env Env) Output {
	ev, err := decodeEvent(stdin)
	if err != nil {
		// The event is unknown, so it may be a tool call: exit 2 refuses it
		// in both harnesses, with the reason on stderr.
		return Output{Stderr: "devrites-engine hook: " + err.Error() + "; refused until the hook can read it", Exit: 2}
	}
	call := h.Call(ev)
	chat, isChat := parseChat(ev.Prompt)
	switch ev.Name {
	case PreToolUse:
		if call.Kind == callAsk {
			// The harness's own question tool: allowed, and nothing printed
			// (a hook that speaks for it has lost the person's answers).
			return Output{}
		}
	case PermissionRequest, SessionStart:
	case PostToolUse:
		if call.Kind != callAsk {
			return Output{}
		}
	case UserPromptSubmit:
		if !isChat {
			return Output{} // talk, not an answer: untouched, and nothing read
		}
	default:
		return Output{} // no event the engine has a word for
	}
	project := h.Project(ev, env.Getenv)
	if project == "" {
		project, _ = os.Getwd()
	}
	w := env.workspaces(project)
	if w.err == nil && len(w.engines) == 0 {
		return Output{} // no workspace: the hook has nothing to guard
	}
	g := &guardPaths{cwd: ev.Cwd}
	if g.cwd == "" {
		g.cwd = project
	}
	switch ev.Name {
	case PreToolUse, PermissionRequest:
		return reply(ev, Reply{Deny: preToolUse(call, g, w)})
	case UserPromptSubmit:
		return reply(ev, env.prompt(ctx, chat, w))
	case PostToolUse:
		return reply(ev, env.asked(ctx, ev, w))
	case SessionStart:
		if w.err == nil && w.paused != nil {
			return reply(ev, Reply{Context: sessionContext(w.paused)})
		}
	}
	return Output{}
}

// preToolUse is the tool-call guard's verdict: a denial, or "".
func preToolUse(c Call, g *guardPaths, w *workspaces) string {
	var sh shellVerdict
	if c.Kind == callShell {
		sh = analyzeShell(c.Command, g.protected)
	}
	if d := always(c, sh, g); d != "" {
		return d
	}
	if w.err != nil {
		return "devrites-engine hook: the workspace cannot be read, so no tool call goes ahead until it is mended: " +
			mdstore.OneLine(w.err.Error()) + ". Tell the person; they run devrites-engine doctor. " + doWait + "."
	}
	if w.paused != nil && !reads(c, sh) {
		return "devrites-engine hook: " + pausedWords(w.paused) + " Until the person answers, only reading is allowed " +
			"(and devrites-engine state show|check, questions list|show, wait). " + doWait + "."
	}
	return ""
}

// pause is a workspace that awaits a person.
type pause struct {
	eng      *engine.Engine
	reason   string // state check's reason
	question *question.Question
}

// workspaces is what the hook found of the project's workspaces.
type workspaces struct {
	err     error
	paused  *pause
	engines []*engine.Engine
}

// workspaces reads the project's active workspace (as state check does),
// or every workspace when none is active. The verdict is engine.Check's,
// the function state check uses.
func (env Env) workspaces(project string) *workspaces {
	w := &workspaces{}
	loc := env.Locate(project)
	devrites, err := mdstore.DevritesDir(loc)
	if err != nil && loc.Workspace == "" {
		if !errors.Is(err, mdstore.ErrNoWorkspace) {
			w.err = err
		}
		return w // no .devrites: nothing to guard
	}
	var found []*mdstore.Workspace
	ws, err := mdstore.Find(loc)
	switch {
	case err == nil:
		found = []*mdstore.Workspace{ws}
	case noActive(devrites, loc):
		found = mdstore.Workspaces(devrites)
	default:
		w.err = err
		return w
	}
	for _, ws := range found {
		eng, err := env.Open(ws)
		if err == nil {
			err = conflicted(eng)
		}
		if err == nil {
			w.engines = append(w.engines, eng)
			var r *engine.CheckResult
			if r, err = eng.Check(false); err == nil && !r.Proceed && w.paused == nil {
				w.paused = &pause{eng: eng, reason: r.Reason, question: r.Awaited}
			}
		}
		if err != nil {
			w.err = fmt.Errorf("%s: %w", ws.Slug, err)
			return w
		}
	}
	return w
}

// conflicted reports a workspace file that holds the markers of a merge
// git left unresolved: the engine's reads may still parse it, but what it
// says is one side's, and no resolution may be written through it.
func conflicted(eng *engine.Engine) error {
	for _, name := range []string{mdstore.StateFile, mdstore.QuestionsFile, mdstore.DecisionsFile} {
		b, _, err := eng.ReadUnlocked(name) // never waits on a pipe, never follows a link
		if err != nil {
			return err
		}
		if line := mdstore.ConflictLine(b); line > 0 {
			return fmt.Errorf("%s:%d: unresolved merge conflict", eng.WS.Path(name), line)
		}
	}
	return nil
}

// noActive reports whether no feature is active: no --slug and an ACTIVE
// file that is absent or empty. An ACTIVE that holds something else (a
// conflict, a bad slug) is an error, not an absence.
func noActive(devrites string, loc mdstore.Locator) bool {
	if loc.Slug != "" || loc.Workspace != "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(devrites, "ACTIVE"))
	return errors.Is(err, os.ErrNotExist) || err == nil && strings.TrimSpace(string(b)) == ""
}

// pausedWords names what the workspace awaits.
func pausedWords(p *pause) string {
	if q := p.question; q != nil {
		// Not the cursor's next_action: it is the agent's own command.
		return fmt.Sprintf("%s awaits the person: %q.", q.QID, mdstore.OneLine(q.Question))
	}
	return "the workspace " + p.eng.WS.Slug + " awaits a person: " + mdstore.OneLine(p.reason) + "."
}

// sessionContext is what a resuming session is told.
func sessionContext(p *pause) string {
	s := "DevRites: " + pausedWords(p) + " Do not go on with the work until the person answers; wait with: devrites-engine wait."
	if p.question != nil {
		s += " The person answers in this chat with: " + Forms + "; the hook records their words."
	}
	return s
}
