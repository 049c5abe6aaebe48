package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// nextFree goes one above the highest id of the day that questions.md,
// decisions.md, the awaited question and the other workspaces hold, and
// past the ids the Log names, which set no high-water mark themselves.
func TestNextFree(t *testing.T) {
	const date = "2026-11-29"
	questions := "# Questions\n\n## q-2026-11-29-001\nstatus: answered\n\n## q-2026-11-29-005\nstatus: answered\n\n## q-2026-11-30-090\nstatus: open\n"
	state := func(awaited, log string) string {
		s := "# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n| schema | 3 |\n"
		if awaited != "" {
			s += "\n## Awaiting human\n| Key | Value |\n| --- | --- |\n| question_id | " + awaited + " |\n"
		}
		return s + "\n## Log\n" + log
	}
	for _, tc := range []struct {
		name, awaited, log, decisions string
		others                        []string
		want                          string
	}{
		{name: "questions", want: "q-2026-11-29-006"},
		{name: "decisions", decisions: "# Decisions\n\n## q-2026-11-29-007 answered\nanswer: A\n", want: "q-2026-11-29-008"},
		{name: "awaited", awaited: "q-2026-11-29-009", want: "q-2026-11-29-010"},
		{name: "others", others: []string{"q-2026-11-29-011", "q-2026-11-28-500"}, want: "q-2026-11-29-012"},
		{name: "log next", log: "- raised q-2026-11-29-006\n- raised q-2026-11-29-007 and q-2026-11-29-003\n", want: "q-2026-11-29-008"},
		{name: "log beyond", log: "- raised q-2026-11-29-020\n", want: "q-2026-11-29-006"},
		{name: "log below awaited", awaited: "q-2026-11-29-009", log: "- raised q-2026-11-29-010\n", want: "q-2026-11-29-011"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Files{State: mdstore.ParseState([]byte(state(tc.awaited, tc.log))),
				Questions: mdstore.ParseQuestions([]byte(questions)), Decisions: []byte(tc.decisions)}
			got, _, err := nextFree(f, date, tc.others)
			if err != nil || got != tc.want {
				t.Errorf("nextFree = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// When the day's ids run out, the error names the file and line of the
// first mention of the day's highest id: in questions.md, else state.md
// (its Awaiting and Log sections), else decisions.md.
func TestNextQIDExhaustedNamesHighest(t *testing.T) {
	const limit = "q-2026-11-29-999999"
	questions := "# Questions\n\n## q-2026-11-29-999998\nstatus: answered\n"
	state := "# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n| schema | 3 |\n\n## Log\n- raised q-2026-11-29-001\n"
	for _, tc := range []struct {
		name, questions, log, decisions string
		want                            string
	}{
		{name: "questions", questions: "\n## " + limit + "\nstatus: open\n", log: "- raised " + limit + "\n",
			decisions: "# Decisions\n\n## " + limit + " answered\n", want: "questions.md:6: " + limit},
		{name: "log", log: "- raised " + limit + "\n- again " + limit + "\n",
			decisions: "# Decisions\n\n## " + limit + " answered\n", want: "state.md:11: " + limit},
		{name: "decisions", decisions: "# Decisions\n\n## q-2026-11-29-001 answered\n\n## " + limit + " answered\n", want: "decisions.md:5: " + limit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Engine{WS: &mdstore.Workspace{Dir: "ws"}, Now: func() time.Time { return time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC) },
				severalWorkspaces: func() bool { return false }}
			f := &Files{State: mdstore.ParseState([]byte(state + tc.log)),
				Questions: mdstore.ParseQuestions([]byte(questions + tc.questions)), Decisions: []byte(tc.decisions)}
			got, err := e.nextQID(f)
			want := filepath.Join("ws", tc.want) + ": 2026-11-29: no question id left for the day"
			if err == nil || err.Error() != want {
				t.Errorf("nextQID = %q, %v; want error %q", got, err, want)
			}
		})
	}
}
