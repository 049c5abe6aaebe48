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
			// Without fenced code a heading is a line that starts (after at
			// most three spaces) with "##": found by searching for "##",
			// not by cutting every line.
			s = strings.TrimPrefix(s, utf8BOM)
			for at := 0; ; {
				i := strings.Index(s[at:], "##")
				if i < 0 {
					return
				}
				i += at
				start := strings.LastIndexByte(s[:i], '\n') + 1
				end := strings.IndexByte(s[i:], '\n')
				if end < 0 {
					end = len(s)
				} else {
					end += i
				}
				if l := s[start:end]; strings.Trim(s[start:i], " ") == "" && headingLevel(l) == 2 && !yield(headingTitle(l)) {
					return
				}
				at = end
			}
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
// first word of each heading that is a qid. They share b's memory.
func DecisionQIDs(b []byte) []string {
	var out []string
	for t := range decisionTitles(b) {
		if id, _, _ := strings.Cut(t, " "); qid.Shaped(id) {
			out = append(out, id)
		}
	}
	return out
}
