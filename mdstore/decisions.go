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
	s := unsafe.String(unsafe.SliceData(b), len(b))
	var out []string
	if !hasMarker(s) { // no fenced code: every level-2 heading counts, and the lines need not be kept
		s = strings.TrimPrefix(s, utf8BOM)
		for s != "" {
			l, rest, _ := strings.Cut(s, "\n")
			if headingLevel(l) == 2 {
				out = append(out, strings.Clone(headingTitle(l)))
			}
			s = rest
		}
		return out
	}
	d := splitString(s)
	for _, i := range d.level2() {
		out = append(out, strings.Clone(headingTitle(d.lines[i].text)))
	}
	return out
}

// DecisionHeadingLines returns the indexes (from 0, a BOM not counted) of
// decisions.md's lines that are level-2 headings outside fenced code: where
// its entries start.
func DecisionHeadingLines(b []byte) []int {
	d := splitString(unsafe.String(unsafe.SliceData(b), len(b)))
	return d.level2()
}

// level2 returns the indexes of the level-2 headings outside fenced code.
func (d *doc) level2() []int {
	fenced := d.fenced(nil)
	var out []int
	for i, l := range d.lines {
		if !fenced[i] && headingLevel(l.text) == 2 {
			out = append(out, i)
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
