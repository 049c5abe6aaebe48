package mdstore

import (
	"strings"
	"unsafe"

	"github.com/devrites/devrites-engine/qid"
)

// DecisionHeadings returns the titles of decisions.md's level-2 headings
// outside fenced code, in file order: "q-2026-11-29-001 answered" for the
// engine's records, whatever a person or another tool wrote for theirs
// (an ADR log's "DEC-004 …" entries).
func DecisionHeadings(b []byte) []string {
	d := splitString(unsafe.String(unsafe.SliceData(b), len(b)))
	fenced := d.fenced(nil)
	var out []string
	for i, l := range d.lines {
		if !fenced[i] && headingLevel(l.text) == 2 {
			out = append(out, strings.Clone(headingTitle(l.text)))
		}
	}
	return out
}

// DecisionQIDs returns the question ids that decisions.md records: the
// first word of each heading that is a qid.
func DecisionQIDs(b []byte) []string {
	var out []string
	for _, h := range DecisionHeadings(b) {
		if id, _, _ := strings.Cut(h, " "); qid.Shaped(id) {
			out = append(out, id)
		}
	}
	return out
}
