package engine

import (
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// What DevRites workspaces write that the engine's own writes do not
// (docs/formats.md, The forms of DevRites workspaces): questions without
// sla, gates in headings, register rows, questions the engine did not
// raise.

// textOf names the text of a resolution of each kind.
var textOf = map[string]string{question.StatusAnswered: "answer", question.StatusDropped: "drop reason", question.StatusRejected: "reject feedback"}

// raisedByEngine reports whether a block is one the engine's raise wrote:
// a heading with a canonical qid, and the fields only the engine writes
// together (DevRites never writes sla).
func raisedByEngine(b *mdstore.Block) bool {
	if b.Row() || !qid.Shaped(b.QID) {
		return false
	}
	for _, k := range []string{"raised_at", "sla", "options"} {
		if _, ok := b.Get(k); !ok {
			return false
		}
	}
	return true
}

// pausing reports whether an open block waits for a person: provisional
// validating questions are open but let the agent proceed.
func pausing(b *mdstore.Block) bool {
	v, _ := b.Peek("status", "provisional") // a pass over every block: not kept
	if v[0] != question.StatusOpen {
		return false
	}
	p := strings.TrimSpace(v[1])
	return p == "" || p == "0" || p == "false"
}

// MayHaveInterrupted reports whether b can be what a pausing raise
// interrupted before state.md was written leaves: an open blocking or
// escalating question the engine raised, not provisional. It is, when
// state.md nowhere names it (doctor's drift check, checkup/drift.go).
// Questions the engine did not raise, and advisory or validating ones,
// never pause.
func MayHaveInterrupted(b *mdstore.Block) bool {
	if !pausing(b) || !raisedByEngine(b) {
		return false
	}
	g := b.Value("gate")
	return g == "blocking" || g == "escalating"
}
