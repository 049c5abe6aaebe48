package mdstore

// The markdown a doc is read by: headings, and fenced code as goldmark
// finds it.

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// headingLevel returns the level (1 to 6) of a line that is a heading, or 0.
// It is the one heading rule of every file the engine reads or merges
// (state.md, questions.md, decisions.md; the engine, doctor, the merge
// driver and qid allocation alike): "#" to "######" at column 0, then a
// blank or the end of the line. The callers pass only lines outside fenced
// code that are not a field's value. An indented line is never a heading:
// values are written indented by four spaces, so no text a person or an
// agent wrote can become one, and a value written by an older version (two
// spaces) cannot either. Setext headings are not recognised: a "---" line
// under a field would otherwise turn the field into a heading.
func headingLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if rest := s[n:]; rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0
	}
	return n
}

// headingTitle returns the text of an ATX heading without its marks.
func headingTitle(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "#")
	s = strings.TrimSpace(s)
	return strings.TrimSpace(strings.TrimRight(s, "#"))
}

// fenced reports, for each line, whether it is content of a fenced code block,
// by CommonMark's rules as goldmark implements them. Lines marked opaque are
// blanked before parsing: they hold field values, which are data and can never
// open or close a fence.
func (d *doc) fenced(opaque []bool) []bool {
	mask := make([]bool, len(d.all()))
	if !d.hasFenceMarker(len(d.lines), opaque) {
		return mask // the common case: no goldmark, no copy of the file
	}
	var src bytes.Buffer
	src.Grow(d.size() + len(d.lines))
	starts := make([]int, len(d.lines))
	for i, l := range d.lines {
		starts[i] = src.Len()
		if opaque != nil && opaque[i] {
			src.WriteByte('\n')
			continue
		}
		src.WriteString(l.text)
		src.WriteByte('\n')
	}
	source := src.Bytes()
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	)
	root := p.Parse(text.NewReader(source))
	lineAt := func(off int) int {
		lo, hi := 0, len(starts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if starts[mid] <= off {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if fc, ok := n.(*ast.FencedCodeBlock); ok {
			segs := fc.Lines()
			for i := 0; i < segs.Len(); i++ {
				mask[lineAt(segs.At(i).Start)] = true
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return mask
}

var fenceOpening = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^ {0,3}(`{3,}|~{3,})") })

// fenceCloser returns the line that closes a fenced code block still open
// at line index at, or "" when a column-0 line inserted there would not be
// inside fenced code. Only a fence outside any list or quote can be open
// there: a column-0 line ends those, and the fences in them. Lines marked
// opaque are hidden from the fence finder, as in fenced.
func (d *doc) fenceCloser(at int, opaque []bool) string {
	if !d.hasFenceMarker(at, opaque) {
		return ""
	}
	d.all()
	probe := doc{lines: append(append(make([]line, 0, at+1), d.lines[:at]...), line{text: "x"})}
	var op []bool
	if opaque != nil {
		op = append(append(make([]bool, 0, at+1), opaque[:at]...), false)
	}
	mask := probe.fenced(op)
	if !mask[at] {
		return ""
	}
	// Every line between the opening fence and at is the block's content.
	for i := at - 1; i >= 0; i-- {
		if mask[i] {
			continue
		}
		if m := fenceOpening().FindStringSubmatch(d.lines[i].text); m != nil {
			return m[1]
		}
		break
	}
	return ""
}

// hasFenceMarker reports whether any of the first n lines that are not
// opaque holds "```" or "~~~": without one there is no fenced code.
func (d *doc) hasFenceMarker(n int, opaque []bool) bool {
	if d.noFence {
		return false
	}
	for i, l := range d.all()[:n] {
		if opaque != nil && opaque[i] {
			continue
		}
		if hasMarker(l.text) {
			return true
		}
	}
	return false
}

func hasMarker(s string) bool { return strings.Contains(s, "```") || strings.Contains(s, "~~~") }
