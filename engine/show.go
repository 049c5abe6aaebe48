package engine

import (
	"github.com/devrites/devrites-engine/question"
)

// ResolveCommand is the command a person runs to answer q, as every output,
// hint and the notify hook (DEVRITES_RESUME) spell it: run as printed, with
// the answer filled in, it records the answer on q. It names the workspace
// (--slug) when the project has more than one, so that it never lands on a
// question of another feature, and who answers (--by) when q checks its
// responders: the one responder awaited, or "<one of: a, b>".
func (e *Engine) ResolveCommand(q question.Question) string {
	return "devrites-engine state resolve " + e.ResolveFlags(q) + pickFlag(q) + q.QID + ` "<answer>"`
}

// resolveFlags are the flags of a command that resolves q, each followed
// by a space: --slug and --by, when they are needed.
func (e *Engine) ResolveFlags(q question.Question) string {
	flags := ""
	if e.severalWorkspaces() {
		flags += "--slug " + question.ShellWord(e.WS.Slug) + " "
	}
	if by := q.ResponderPlaceholder(); by != "" {
		flags += "--by " + by + " "
	}
	return flags
}

// ShowText is what questions show prints: the question's Text and, while
// it is open, the command that answers it and, when it offers it, the
// "always approve" line:
//
//	resolve: devrites-engine state resolve --by <one of: alice, bob> q-2026-11-29-004 "<answer>"
//	always approve: a person at a terminal can answer option 1 and approve breakpoint … in workspace pay from now on (state resolve --always)
//
// The offer holds no command: it is read by agents too (docs/trust.md).
func (e *Engine) ShowText(q question.Question) string {
	text := q.Text(e.Now())
	if q.Fingerprint != "" {
		// What a person compares with a link, a token or a refusal.
		text += "fingerprint: " + question.ShortFingerprint(q.Fingerprint) + "\n"
	}
	if q.Status == question.StatusOpen {
		text += "resolve: " + e.ResolveCommand(q) + "\n"
	}
	if e.OffersAlwaysApprove(q) {
		text += "always approve: " + e.alwaysApproveOffer(q) + "\n"
	}
	return text
}
