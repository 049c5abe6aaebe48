package merge

import (
	"bytes"
	"iter"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// The Log section of state.md merges as a union: theirs' entries that
// neither ours nor the base has go in time order among ours', each once.
// The base is read first, and only its entries' digests are kept; then
// theirs, of which the entries the base lacks are kept, as copies; then
// ours, whose entries take from those the ones it has (logUnion).

type logLine struct {
	text string // after "- "
	at   string // its timestamp, or the one before it
}

// logEntries are the "- " entries of s's Log section, bounded as mdstore
// reads it: each one's line index and text, trimmed.
func logEntries(s *mdstore.State) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		head, end, ok := s.LogSpan()
		for i := head + 1; ok && i < end; i++ {
			if rest, ok := strings.CutPrefix(s.Line(i), "- "); ok && !yield(i, strings.TrimSpace(rest)) {
				return
			}
		}
	}
}

// logUnion gathers the Log entries theirs adds, as the versions are read:
// the base's, then theirs', then ours.
type logUnion struct {
	base   [][16]byte // digests of the base's entries (sorted once theirs are read)
	sorted bool
	added  []logLine       // theirs' entries the base does not have, each once, as copies
	has    map[string]bool // added's texts
}

func (u *logUnion) inBase(l logLine) { u.base = append(u.base, digest(l.text)) }

func (u *logUnion) inTheirs(l logLine) {
	if !u.sorted {
		slices.SortFunc(u.base, compareSums)
		u.sorted, u.has = true, map[string]bool{}
	}
	if _, inBase := slices.BinarySearchFunc(u.base, digest(l.text), compareSums); inBase || u.has[l.text] {
		return
	}
	l = logLine{text: strings.Clone(l.text), at: strings.Clone(l.at)}
	u.added = append(u.added, l)
	u.has[l.text] = true
}

func compareSums(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) }

// newTo is what theirs added that ours' entries (log) do not have, in
// theirs' order.
func (u *logUnion) newTo(log []logLine) []logLine {
	if len(u.added) == 0 {
		return nil
	}
	for _, l := range log {
		delete(u.has, l.text)
	}
	return slices.DeleteFunc(u.added, func(l logLine) bool { return !u.has[l.text] })
}

// mergeLog adds to the Log section of s (ours, edited) the entries added
// (theirs' new ones, logUnion), in time order; ours' entries (log, as
// read, ids renamed) keep their places, and are renamed in place.
func mergeLog(s *mdstore.State, log, added []logLine) []byte {
	out := s.Bytes()
	head, end, ok := s.LogSpan()
	if !ok {
		end = -1
	}
	entries, at := make([]string, 0, max(end-head-1, 0)), make([]int, 0, max(end-head-1, 0))
	for i, e := range logEntries(s) {
		entries, at = append(entries, e), append(at, i)
	}
	// An entry whose ids the renumbering renames is written as log has it.
	var renamed []int
	for i, e := range entries {
		if i < len(log) && log[i].text != e {
			renamed = append(renamed, i)
		}
	}
	if len(added) == 0 && len(renamed) == 0 {
		return out
	}
	x := splitText(out)
	for _, i := range renamed {
		x.lines[at[i]] = strings.Replace(x.lines[at[i]], entries[i], log[i].text, 1)
	}
	if len(added) == 0 {
		return join(x)
	}
	line := func(l logLine) string { return "- " + l.text + x.nl }
	if end < 0 {
		lines := endLine(x.lines, x.nl)
		if n := len(lines); n > 0 && !isBlankLine(lines[n-1]) {
			lines = append(lines, x.nl)
		}
		lines = append(lines, "## Log"+x.nl)
		for _, l := range added {
			lines = append(lines, line(l))
		}
		x.lines = lines
		return join(x)
	}
	// Where each added entry goes: before the first of ours' entries (from
	// where the last one went) that is later, else after ours' last entry.
	logAt := func(i int) string {
		if i < len(log) {
			return log[i].at
		}
		return ""
	}
	before := map[int][]string{}
	var after []string
	next := 0
	for _, l := range added {
		for next < len(entries) && (l.at == "" || logAt(next) <= l.at) {
			next++
		}
		if next < len(entries) {
			before[at[next]] = append(before[at[next]], line(l))
		} else {
			after = append(after, line(l))
		}
	}
	// The rest go after the section's last line with text: after ours' last
	// entry and whatever belongs to it (a fenced block under it).
	last := -1
	for i := end - 1; i >= 0; i-- {
		if !isBlankLine(x.lines[i]) {
			last = i
			break
		}
	}
	lines := make([]string, 0, len(x.lines)+len(added))
	for i, l := range x.lines {
		lines = append(lines, before[i]...)
		if i == last && len(after) > 0 {
			lines = append(lines, endLine([]string{l}, x.nl)...)
			lines = append(lines, after...)
			if i+1 == len(x.lines) && !hasEOL(l) {
				// A file without a final newline keeps that shape.
				lines[len(lines)-1] = body(lines[len(lines)-1])
			}
			continue
		}
		lines = append(lines, l)
	}
	x.lines = lines
	return join(x)
}

// join writes t's lines into one slice, of their size.
func join(t text) []byte {
	n := 0
	if t.bom {
		n = len(utf8BOM)
	}
	for _, l := range t.lines {
		n += len(l)
	}
	var b bytes.Buffer
	b.Grow(n)
	if t.bom {
		b.WriteString(utf8BOM)
	}
	for _, l := range t.lines {
		b.WriteString(l)
	}
	return b.Bytes()
}
