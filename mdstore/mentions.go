package mdstore

import (
	"iter"

	"github.com/devrites/devrites-engine/qid"
)

// Mention is a question id written in a file, and the line (from 1) that
// holds it.
type Mention struct {
	QID  string
	Line int
}

// Mentions yields the canonical question ids that state.md's Awaiting and
// Log sections mention, in file order: ids that were handed out, which a
// new question must never get again, even when questions.md lost them. A
// Log of ten thousand answers mentions twenty thousand: none is kept.
func (s *State) Mentions() iter.Seq[Mention] {
	return func(yield func(Mention) bool) {
		for _, name := range [...]string{"awaitinghuman", "log"} {
			sec := s.section(name)
			if sec == nil {
				continue
			}
			for i := sec.head + 1; i < sec.end; i++ {
				for id := range qid.All(s.d.lines[i].text) {
					if !yield(Mention{QID: id, Line: i + 1}) {
						return
					}
				}
			}
		}
	}
}
