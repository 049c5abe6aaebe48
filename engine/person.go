package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// A person's channel, or none (docs/trust.md, "Questions that need a
// person"). Every resolution records how it came in answered_via; a
// question that needs a person is never resolved through a channel an
// agent drives on its own (agent, cli), so no command the engine offers
// lets an agent answer it in the person's name.

// ErrNeedsPerson: the command widens what runs or approves, or resolves a
// question that needs a person, and no person is at a terminal (or the
// channel is an agent's).
var ErrNeedsPerson = errors.New("needs a person")

// How a resolution came, as answered_via records it.
const (
	ViaTerminal    = "terminal"    // a person at a terminal (stdin and the controlling terminal)
	ViaServe       = "serve"       // serve's question page
	ViaElicitation = "elicitation" // the person's answer to an MCP client's form
	ViaChat        = "chat"        // the person's own words in the harness's chat
	ViaAgent       = "agent"       // MCP relay_answer: an agent relaying words
	ViaCLI         = "cli"         // the command line without a terminal
	ViaAFK         = "afk"         // the config.AFK policy (allow_gates, auto_approve_after)
	ViaExpiry      = "expiry"      // on_overdue's expire_after
	ViaRule        = "rule"        // an always-approve rule
)

// personChannels are the channels that carry a person's own act: a
// terminal, a page, a form, the chat, a relay channel's tap or reply.
var personChannels = []string{ViaTerminal, ViaServe, ViaElicitation, ViaChat, "ntfy", "telegram", "slack"}

// personChannel reports whether via is a person's own channel. "" (a
// caller that did not say) is not: it fails closed.
func personChannel(via string) bool { return slices.Contains(personChannels, via) }

// viaOf is the answered_via of a resolution: what the caller said, else,
// for the engine's own picks, which of them decided.
func viaOf(via, by, auto string) string {
	switch {
	case via != "":
		return via
	case by == ExpiryActor:
		return ViaExpiry
	case strings.HasPrefix(auto, "rule "):
		return ViaRule
	case auto != "" || by == "afk":
		return ViaAFK
	}
	return ""
}

// NeedsPerson reports whether q may be resolved only through a person's
// channel, and why: an escalating gate, an always-stop tag, a never-auto
// tag (the AFK file's never_auto, or a never-auto rule by tag), or a
// person-only rule of a rules file this machine trusts (by breakpoint,
// tag or gate). A person-only rule of an untrusted file still applies: it
// only narrows what passes; a rules file that does not parse fails closed.
func (e *Engine) NeedsPerson(q question.Question) (bool, string) {
	if strings.TrimSpace(q.Gate) == "escalating" {
		return true, "escalating gates need a person"
	}
	for _, t := range q.Tags {
		t = config.NormTag(t)
		if slices.Contains(alwaysStop, t) {
			return true, fmt.Sprintf("tag %q is an always-stop class", t)
		}
		for _, n := range e.AFK.NeverAuto {
			if config.NormTag(n) == t {
				return true, fmt.Sprintf("tag %q is listed in never_auto", t)
			}
		}
	}
	if r := e.Rules.Match(config.NeverAuto, "", q.Tags); r != nil {
		return true, fmt.Sprintf("%s has never-auto rule %s", r.Selector(), r.ID)
	}
	if e.Rules.Broken {
		// A person-only rule in it cannot be read: fail closed, as the
		// policy does (rules-broken).
		return true, e.Rules.Path + " does not parse, so a person-only rule in it cannot be read"
	}
	if r := e.Rules.MatchQuestion(config.PersonOnly, q.Breakpoint, q.Gate, q.Tags); r != nil {
		return true, fmt.Sprintf("%s has person-only rule %s", r.Selector(), r.ID)
	}
	return false, ""
}

// personGuard refuses a resolution of q, as validate read it, that needs a
// person when it does not come through a person's channel. It runs before
// any write, so a refusal writes nothing. A final question is guarded too:
// an identical re-run completes state.md and decisions.md from
// questions.md, which a branch may have forged.
func (e *Engine) personGuard(q question.Question, it Resolution, where string) error {
	if personChannel(it.Via) {
		return nil
	}
	if need, why := e.NeedsPerson(q); need {
		return needsPersonError(where, why, it.Via)
	}
	return nil
}

// needsPersonError says that the person must answer, where, and offers no
// command to copy: there is none an agent may run.
func needsPersonError(where, why, via string) error {
	how := "without a terminal"
	if via == ViaAgent {
		how = "through an agent"
	}
	return mdstore.WithHint(mdstore.Errorf(ErrNeedsPerson, "%s needs a person (%s): it cannot be answered %s", where, why, how),
		"the person must answer it themselves: at a terminal, on serve's page, on a relay channel, in the client's form (elicitation) or in the chat")
}

// recordGuard refuses to record, with question raise --answered or
// --choice, an answer to a question that needs a person unless it comes
// through a person's channel: the record would be a resolution.
func (e *Engine) recordGuard(r RaiseRequest) error {
	if r.Answered == nil && r.Choice == nil || personChannel(r.Via) {
		return nil
	}
	if need, why := e.NeedsPerson(question.Question{Gate: r.Gate, Tags: r.Tags, Breakpoint: r.Breakpoint}); need {
		return needsPersonError("the question", why, r.Via)
	}
	return nil
}

// unrecordedPause refuses a raise that would move state.md's pause off a
// question that questions.md alone says is final (no Log line of its
// resolution, no decision record): a branch that forged that block would
// otherwise have its answer taken as given by the next pause
// (evidence.go).
func (e *Engine) unrecordedPause(f *Files) error {
	id := f.State.AwaitingQID()
	b := f.Questions.Find(id)
	if id == "" || b == nil {
		return nil
	}
	st := b.Value("status")
	if st != question.StatusAnswered && st != question.StatusDropped && st != question.StatusRejected ||
		Evidenced(f.State, b, func(id string) (Record, bool) { return recordedDecision(f.Decisions, id) }) {
		return nil
	}
	return mdstore.WithHint(mdstore.Errorf(ErrConflict, "state.md awaits %s, which questions.md says is %s, but %s", id, st, NoRecord),
		"nothing was written; a person answers it, then this question can be raised")
}
