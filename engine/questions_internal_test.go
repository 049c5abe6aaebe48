package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// questions yields the questions whose status is the one asked for, as
// question.FromBlock reads it: the first status field, by any spelling of its key,
// in a heading's block or a register row. Its callers rely on it and do
// not check the status again.
func TestQuestionsFilterByStatus(t *testing.T) {
	qs := mdstore.ParseQuestions([]byte("# Questions\n\n" +
		"## q-2026-11-29-001\nstatus: open\n\n" +
		"## q-2026-11-29-002\nstatus: answered\nstatus: open\n\n" +
		"## q-2026-11-29-003\nStatus: open\nstatus: dropped\n\n" +
		"## q-2026-11-29-004\ngate: blocking\n\n" +
		"## Question register\n\n| Question ID | Status | Gate |\n| --- | --- | --- |\n| Q-001 | open | validating |\n| Q-002 | answered | validating |\n"))
	e := &Engine{Now: func() time.Time { return time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC) }}
	for _, tc := range []struct {
		status string
		want   []string
	}{
		{question.StatusOpen, []string{"q-2026-11-29-001", "q-2026-11-29-003", "Q-001"}},
		{question.StatusAnswered, []string{"q-2026-11-29-002", "Q-002"}},
		{question.StatusDropped, nil},
	} {
		t.Run(tc.status, func(t *testing.T) {
			var got []string
			for q := range e.questions(qs, tc.status) {
				if q.Status != tc.status {
					t.Errorf("%s: got status %q, want %q", q.QID, q.Status, tc.status)
				}
				got = append(got, q.QID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
