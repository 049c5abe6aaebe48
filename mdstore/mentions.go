package mdstore

import "github.com/devrites/devrites-engine/qid"

// Mention is a question id written in a file, and the line (from 1) that
// holds it.
type Mention struct {
	QID  string
	Line int
}

// Mentions returns the canonical question ids that state.md's Awaiting and
// Log sections mention, in file order: ids that were handed out, which a
// new question must never get again, even when questions.md lost them.
func (s *State) Mentions() []Mention {
	var out []Mention
	for _, name := range [...]string{"awaitinghuman", "log"} {
		sec := s.section(name)
		if sec == nil {
			continue
		}
		for i := sec.head + 1; i < sec.end; i++ {
			t := s.d.lines[i].text
			for at := 0; ; {
				start, end := qid.Index(t, at)
				if start < 0 {
					break
				}
				out = append(out, Mention{QID: t[start:end], Line: i + 1})
				at = end
			}
		}
	}
	return out
}
