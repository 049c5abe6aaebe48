package mdstore

import (
	"iter"
	"strings"
	"unsafe"

	"github.com/devrites/devrites-engine/qid"
)

// DecisionHeadings returns the titles of decisions.md's level-2 headings
// outside fenced code, in file order: "q-2026-11-29-001 answered" for the
// engine's records, whatever a person or another tool wrote for theirs
// (an ADR log's "DEC-004 …" entries).
func DecisionHeadings(b []byte) []string {
	var out []string
	for t := range decisionTitles(b) {
		out = append(out, strings.Clone(t))
	}
	return out
}

// HasDecision reports whether decisions.md has an entry with the title.
func HasDecision(b []byte, title string) bool {
	for t := range decisionTitles(b) {
		if t == title {
			return true
		}
	}
	return false
}

// decisionTitles yields the titles DecisionHeadings returns, sharing b's
// memory. A file without fenced code is read line by line, without
// keeping its lines.
func decisionTitles(b []byte) iter.Seq[string] {
	return func(yield func(string) bool) {
		s := unsafe.String(unsafe.SliceData(b), len(b))
		if !hasMarker(s) {
			s = strings.TrimPrefix(s, utf8BOM)
			for s != "" {
				l, rest, _ := strings.Cut(s, "\n")
				if headingLevel(l) == 2 && !yield(headingTitle(l)) {
					return
				}
				s = rest
			}
			return
		}
		d := splitString(s)
		for _, i := range d.level2() {
			if !yield(headingTitle(d.lines[i].text)) {
				return
			}
		}
	}
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
	for t := range decisionTitles(b) {
		if id, _, _ := strings.Cut(t, " "); qid.Shaped(id) {
			out = append(out, strings.Clone(id))
		}
	}
	return out
}
