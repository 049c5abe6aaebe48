package app

import (
	"time"

	"github.com/devrites/devrites-engine/engine"
)

// showText is a question as a person needs it to decide (the prompt of
// state resolve and answer): engine.Question.Text, which questions show and
// the pages of serve print too.
func showText(q engine.Question, now time.Time) string { return q.Text(now) }
