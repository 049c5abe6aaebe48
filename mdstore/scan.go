package mdstore

// Heading is a level-1 or level-2 ATX heading of questions.md, as doctor
// sees it: headings inside fenced code are listed too, marked Fenced, so
// that a question heading a stray fence has swallowed can be reported.
type Heading struct {
	Line   int // 1-based
	Level  int
	Text   string // the line as written
	Fenced bool
	// Unclosed: inside a fenced code block that no line closes, which
	// runs to the end of the file (a fence left open by mistake).
	Unclosed bool
}

// Headings returns the level-1 and level-2 headings of the file in order.
func (q *Questions) Headings() []Heading {
	opaque := q.valueMask()
	lines := q.d.all()
	// An unclosed fence holds every line to the end of the file; the
	// fenced mask marks a block's content, not its fence lines.
	open := len(lines)
	for open > 0 && q.fenced != nil && (q.fenced[open-1] || isBlank(lines[open-1].text)) {
		open--
	}
	var out []Heading
	for i, l := range lines {
		if opaque != nil && opaque[i] {
			continue // a field's value: data, not a heading
		}
		if lvl := headingLevel(l.text); lvl == 1 || lvl == 2 {
			fenced := q.fenced != nil && q.fenced[i]
			out = append(out, Heading{Line: i + 1, Level: lvl, Text: l.text, Fenced: fenced, Unclosed: fenced && i >= open})
		}
	}
	return out
}

// IsQuestionHeading reports whether a line is a question heading by its
// id alone ("## q-YYYY-MM-DD-NNN", "## Q-012 validating"): a named block's
// heading needs its fields to be one.
func IsQuestionHeading(s string) bool {
	_, _, form := headingID(s)
	return form == idForm
}

// AwaitingLine is the 1-based line of the "Awaiting human" heading, or 0
// when state.md has no such section.
func (s *State) AwaitingLine() int {
	if a := s.section("awaitinghuman"); a != nil {
		return a.head + 1
	}
	return 0
}
