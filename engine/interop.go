package engine

import (
	"bytes"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// What DevRites workspaces write that the engine's own writes do not
// (shared/INTEROP.md): questions without sla, gates in headings, register
// rows, questions the engine did not raise.

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

// mayHaveInterrupted reports whether b can be what a pausing raise
// interrupted before state.md was written leaves: an open blocking or
// escalating question the engine raised, not provisional. It is, when
// state.md nowhere names it (readDrift). Questions the engine did not
// raise, and advisory or validating ones, never pause.
func mayHaveInterrupted(b *mdstore.Block) bool {
	if !pausing(b) || !raisedByEngine(b) {
		return false
	}
	g := b.Value("gate")
	return g == "blocking" || g == "escalating"
}

// mentions reports whether text names id as a word: "q-2026-11-29-001" is
// not named by "q-2026-11-29-0012".
func mentions(text []byte, id string) bool {
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte(id))
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(id)
		if (at == 0 || !idByte(text[at-1])) && (end == len(text) || !idByte(text[end])) {
			return true
		}
		i = at + 1
	}
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// anyOpen reports whether any question is open.
func anyOpen(qs *mdstore.Questions) bool {
	for _, b := range qs.Blocks() {
		if b.Value("status") == question.StatusOpen {
			return true
		}
	}
	return false
}
