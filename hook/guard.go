package hook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/machine"
)

// Words of the denials. Each says why and what to do: the harness shows
// them to the model as the reason a call was refused.
const (
	doWait = "Stop here and tell the person what you are waiting for, or wait with: devrites-engine wait"
	person = "Only the person answers: in this chat (answer 2, answer: <words>, reject: <reason>, drop: <reason>), " +
		"at a terminal (devrites-engine answer), or through serve or the relay"
)

// always is the guard that holds whether or not a question awaits: the
// agent never answers, signs, trusts or always-approves for the person, and
// never edits the workspace files or the hooks' settings with the
// harness's edit tools. It returns the denial, or "".
func always(c Call, v shellVerdict, g *guardPaths) string {
	switch c.Kind {
	case callShell:
		if v.forbidden == "question raise --answered" {
			return "devrites-engine hook: refused `question raise --answered` (or --choice): the agent never records " +
				"the person's pick itself. Raise the question without it (it pauses), then ask with AskUserQuestion: the hook " +
				"records the person's selection. " + person + "."
		}
		if v.forbidden != "" {
			return "devrites-engine hook: refused `" + v.forbidden + "` run by the agent: answering, signing, trusting " +
				"and approving are the person's acts. " + person + "."
		}
		if v.write != "" {
			return "devrites-engine hook: refused a command line that writes " + v.write + ": the workspace files and the " +
				"hooks' settings change only through devrites-engine commands a person runs. " + doWait + "."
		}
	case callEdit:
		for _, p := range c.Paths {
			if p != "" && g.protected(p) {
				return "devrites-engine hook: refused an edit of " + p + ": the engine's files in .devrites/, this machine's " +
					"devrites-engine settings and the hooks' settings are written by devrites-engine or the person only. " +
					"Use devrites-engine commands (question raise, state stop); a person answers questions. " + doWait + "."
			}
		}
	case callMCP:
		if c.Tool == "relay_answer" {
			return "devrites-engine hook: refused " + c.Server + "'s relay_answer: with the hooks installed, the person's " +
				"chat answer is recorded by the hook itself, never retyped by the agent. " + person + "."
		}
	}
	return ""
}

// mcpRead are the engine's MCP tools that only read or wait.
var mcpRead = map[string]bool{"get_state": true, "list_questions": true, "get_question": true, "check": true, "wait_for_answer": true}

// reads reports whether a call only reads, or waits through the engine:
// what stays allowed while a question awaits the person.
func reads(c Call, sh shellVerdict) bool {
	switch c.Kind {
	case callRead, callAsk:
		return true
	case callShell:
		return sh.readOnly
	case callMCP:
		return mcpRead[c.Tool] && strings.Contains(strings.ToLower(c.Server), "devrites")
	}
	return false
}

// engineFiles are the files of a feature directory that only the engine
// writes: the record and its machinery. The rest of a feature directory
// (spec, plan, tasks.md …) is the agent's work in DevRites.
var engineFiles = map[string]bool{"state.md": true, "questions.md": true, "decisions.md": true,
	"recovery.md": true, "relay.json": true, "notify.log": true}

// engineOwned reports whether a path (its elements, lower case) is the
// engine's in a .devrites directory: the directory itself, every file at
// its top (ACTIVE, AFK, rules.yaml, notify.yaml, engine.yaml, serve.key,
// claims.jsonl, allowed_signers …), a feature directory itself, and the
// engine's files and dotfiles inside one.
func engineOwned(els []string) bool {
	i := slices.Index(els, ".devrites")
	if i < 0 {
		return false
	}
	rest := els[i+1:]
	switch {
	case len(rest) <= 1:
		return true
	case rest[0] != "work" && rest[0] != "features":
		return true // no feature directory: the engine's own
	case len(rest) == 2:
		return true // a feature directory itself (moved or removed whole)
	case len(rest) == 3:
		return engineFiles[rest[2]] || strings.HasPrefix(rest[2], ".")
	}
	return false
}

// guardPaths decides which paths are protected: the engine's files in a
// .devrites directory (engineOwned), the settings files of either harness
// that hold hooks, and this machine's own settings directory (its name,
// keys and trust store).
type guardPaths struct {
	cwd string // relative paths are read from here
}

func (g *guardPaths) protected(p string) bool {
	if p == "" {
		return false
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.cwd, p)
	}
	p = filepath.Clean(p)
	cands := []string{p}
	// A symbolic link to a protected file is that file: read the link of
	// the directory (and of the file when it exists).
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		cands = append(cands, filepath.Join(r, filepath.Base(p)))
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		cands = append(cands, r)
	}
	mine, _ := machine.Dir() // this machine's settings and trust store: a person's, never the agent's
	for _, c := range cands {
		if mine != "" && strings.HasPrefix(strings.ToLower(c), strings.ToLower(mine)+string(filepath.Separator)) {
			return true
		}
		lc := strings.ToLower(c) // case-insensitive file systems name one file many ways
		if engineOwned(strings.Split(filepath.ToSlash(lc), "/")) {
			return true
		}
		dir, base := filepath.Dir(lc), filepath.Base(lc)
		for _, h := range Harnesses {
			if h.Protected(dir, base) {
				return true
			}
		}
	}
	return false
}
