package app

import (
	"os"

	"golang.org/x/term"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

// A person at a terminal (docs/trust.md, "Trust is a person's act"): the
// commands that widen what runs or approves without a person — trust,
// rules add --action always-approve, state resolve --always — run only
// when stdin and the process's controlling terminal are both terminals.
// An agent's tool call has neither; a person typing has both. Without one
// they are refused (exit 7) before anything is read or written.

// person reports whether a person is at a terminal: stdin is one, and
// the process has a controlling terminal (/dev/tty opens and is one).
func (e *env) person() bool {
	if !isTerminal(e.stdin) {
		return false
	}
	tty, err := os.Open(controllingTerminal)
	if err != nil {
		return false
	}
	defer tty.Close()
	return term.IsTerminal(int(tty.Fd()))
}

// via is how a resolution given on this command line came: "terminal"
// when a person is at one, else "cli".
func (e *env) via() string {
	if e.person() {
		return engine.ViaTerminal
	}
	return engine.ViaCLI
}

// needPerson refuses what, a command that widens what runs or approves,
// without a person at a terminal. Its hint names no command to run: an
// agent that reads it has nothing to copy.
func needPerson(e *env, what string) error {
	if e.person() {
		return nil
	}
	return mdstore.Errorf(engine.ErrNeedsPerson, "%s needs a person at a terminal: nothing was written", what).
		Hint("a person must run `devrites-engine trust` (or add the rule) at a terminal themselves; an agent cannot grant trust or approval")
}
