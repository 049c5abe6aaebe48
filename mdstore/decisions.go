package mdstore

import (
	"iter"
	"strings"
	"unsafe"

	"github.com/devrites/devrites-engine/qid"
)

// decisions.md is read by questions.md's grammar (one heading rule, fields,
// values that are data and hidden from the fence finder); only which
// headings start an entry differs: every level-2 one does, whatever its
// title ("q-2026-11-29-001 answered" for the engine's records, "DEC-004 …"
// in an ADR log). A value line such as "  ## q-…" or "  ```sh" is therefore
// neither an entry nor a fence, as it is not in questions.md.

// DecisionEntry is one level-2 heading of decisions.md: where an entry starts.
type DecisionEntry struct {
	Title string // the heading's text without its marks
	Line  int    // 1-based, a BOM not counted
}

// parseLedger parses decisions.md: its blocks are the entries, each with
// the heading's title as its QID.
func parseLedger(b []byte) *Questions {
	q := &Questions{d: lazyDoc(unsafe.String(unsafe.SliceData(b), len(b))), ledger: true}
	q.index()
	return q
}

// DecisionEntries returns decisions.md's entries in file order. The titles
// share b's memory.
func DecisionEntries(b []byte) []DecisionEntry {
	blocks := parseLedger(b).Blocks()
	out := make([]DecisionEntry, len(blocks))
	for i, bl := range blocks {
		out[i] = DecisionEntry{Title: bl.QID, Line: bl.Line()}
	}
	return out
}

// HasDecision reports whether decisions.md has an entry with the title.
func HasDecision(b []byte, title string) bool {
	for _, e := range parseLedger(b).Blocks() {
		if e.QID == title {
			return true
		}
	}
	return false
}

// DecisionID is the question id an entry's title records ("q-… answered"),
// or "" for an entry about something else.
func DecisionID(title string) string {
	if id, _, _ := strings.Cut(title, " "); qid.Shaped(id) {
		return id
	}
	return ""
}

// DecisionQIDs yields the question ids that decisions.md records, in file
// order: the first word of each heading that is a qid. They share b's
// memory.
func DecisionQIDs(b []byte) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, e := range parseLedger(b).Blocks() {
			if id := DecisionID(e.QID); id != "" && !yield(id) {
				return
			}
		}
	}
}

// DecisionBlocks returns decisions.md's entries as blocks: each QID is the
// entry's title, and its fields are read as a question's are.
func DecisionBlocks(b []byte) []*Block { return parseLedger(b).Blocks() }
