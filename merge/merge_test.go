package merge

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// q builds a questions.md from blocks written with "\n".
func q(blocks ...string) string { return "# Questions\n" + strings.Join(blocks, "") }

func blk(id string, fields ...string) string {
	return "\n## " + id + "\n" + strings.Join(fields, "\n") + "\n"
}

const (
	id1 = "q-2026-11-29-001"
	id2 = "q-2026-11-29-002"
	id3 = "q-2026-11-29-003"
	t10 = "raised_at: 2026-11-29T10:00:00Z"
	t11 = "raised_at: 2026-11-29T11:00:00Z"
)

func TestQuestions(t *testing.T) {
	open := "status: open"
	for _, c := range []struct {
		name               string
		base, ours, theirs string
		want               string
		conflicts          []string
		renamed            []Rename
	}{
		{
			name:   "theirs answers, ours adds",
			base:   q(blk(id1, open, "question: A?", t10)),
			ours:   q(blk(id1, open, "question: A?", t10), blk(id2, open, "question: B?", t11)),
			theirs: q(blk(id1, "status: answered", "question: A?", t10, "answered_at: 2026-11-29T12:00:00Z", "answer: yes")),
			want:   q(blk(id1, "status: answered", "question: A?", t10, "answered_at: 2026-11-29T12:00:00Z", "answer: yes"), blk(id2, open, "question: B?", t11)),
		},
		{
			name:    "one id, two questions: theirs renumbered",
			base:    q(),
			ours:    q(blk(id1, open, "question: Ours?", t10)),
			theirs:  q(blk(id1, "status: answered", "question: Theirs?", t10, "answer: no")),
			want:    q(blk(id1, open, "question: Ours?", t10), blk(id2, "status: answered", "question: Theirs?", t10, "answer: no", "renumbered_from: "+id1)),
			renamed: []Rename{{id1, id2}},
		},
		{
			name:    "only the colliding id moves, past every id in use",
			base:    q(),
			ours:    q(blk(id1, open, "question: Ours?", t10)),
			theirs:  q(blk(id1, open, "question: T1?", t10), blk(id2, open, "question: T2?", t11, "supersedes: "+id1)),
			want:    q(blk(id1, open, "question: Ours?", t10), blk(id3, open, "question: T1?", t10, "renumbered_from: "+id1), blk(id2, open, "question: T2?", t11, "supersedes: "+id3)),
			renamed: []Rename{{id1, id3}},
		},
		{
			// Ours has QC as 001 (never pulled); theirs renumbered it twice,
			// and has another question as 001: QC takes theirs' id, rejected.
			name: "a question renumbered twice elsewhere merges with itself",
			base: q(blk(id1, open, "question: QC?", t10)),
			ours: q(blk(id1, "status: rejected", "question: QC?", t10, "answer: split it")),
			theirs: q(blk(id1, "status: answered", "question: QB?", t11, "answer: yes"),
				blk("q-2026-11-29-004", open, "question: QC?", t10, "renumbered_from: "+id1+", "+id2)),
			want: q(blk("q-2026-11-29-004", "status: rejected", "question: QC?", t10, "answer: split it", "renumbered_from: "+id1+", "+id2),
				blk(id1, "status: answered", "question: QB?", t11, "answer: yes")),
		},
		{
			name:   "theirs renumbers a block again: the chain grows",
			base:   q(),
			ours:   q(blk(id1, open, "question: Ours?", t10), blk(id2, open, "question: Ours 2?", t10)),
			theirs: q(blk(id2, "status: answered", "question: Theirs?", t10, "answer: no", "renumbered_from: "+id1)),
			want: q(blk(id1, open, "question: Ours?", t10), blk(id2, open, "question: Ours 2?", t10),
				blk(id3, "status: answered", "question: Theirs?", t10, "answer: no", "renumbered_from: "+id1+", "+id2)),
			renamed: []Rename{{id2, id3}},
		},
		{
			name: "responses of different people on the two sides are a union",
			base: q(blk(id1, open, "question: Vote?", t10, "route: alice, bob", "strategy: collect-all")),
			ours: q(blk(id1, open, "question: Vote?", t10, "route: alice, bob", "strategy: collect-all",
				"responses: |", "    - by: alice", "      at: 2026-11-29T10:01:00Z", "      status: answered", "      answer: yes")),
			theirs: q(blk(id1, open, "question: Vote?", t10, "route: alice, bob", "strategy: collect-all",
				"responses: |", "    - by: bob", "      at: 2026-11-29T10:02:00Z", "      status: answered", "      answer: no")),
			want: q(blk(id1, open, "question: Vote?", t10, "route: alice, bob", "strategy: collect-all",
				"responses: |", "    - by: alice", "      at: 2026-11-29T10:01:00Z", "      status: answered", "      answer: yes",
				"    - by: bob", "      at: 2026-11-29T10:02:00Z", "      status: answered", "      answer: no")),
		},
		{
			name:   "a final status beats open; reminded_at merges",
			base:   q(blk(id1, open, "question: A?", t10)),
			ours:   q(blk(id1, open, "question: A?", t10, "reminded_at: 2026-11-29T10:20:00Z")),
			theirs: q(blk(id1, "status: dropped", "question: A?", t10, "answered_at: 2026-11-29T12:00:00Z", "answer: not needed", "answered_by: ana")),
			want:   q(blk(id1, "status: dropped", "question: A?", t10, "reminded_at: 2026-11-29T10:20:00Z", "answered_at: 2026-11-29T12:00:00Z", "answer: not needed", "answered_by: ana")),
		},
		{
			name:   "ours final, theirs still open",
			base:   q(blk(id1, open, "question: A?", t10)),
			ours:   q(blk(id1, "status: answered", "question: A?", t10, "answer: yes")),
			theirs: q(blk(id1, open, "question: A?", t10, "reminded_at: 2026-11-29T10:20:00Z")),
			want:   q(blk(id1, "status: answered", "question: A?", t10, "answer: yes", "reminded_at: 2026-11-29T10:20:00Z")),
		},
		{
			name:   "the same answer on both sides",
			base:   q(blk(id1, open, "question: A?", t10)),
			ours:   q(blk(id1, "status: answered", "question: A?", t10, "answered_at: 2026-11-29T12:00:00Z", "answer: yes")),
			theirs: q(blk(id1, "status: answered", "question: A?", t10, "answered_at: 2026-11-29T12:30:00Z", "answer: yes")),
			want:   q(blk(id1, "status: answered", "question: A?", t10, "answered_at: 2026-11-29T12:00:00Z", "answer: yes")),
		},
		{
			name:      "two different answers",
			base:      q(blk(id1, open, "question: A?", t10), blk(id2, open, "question: B?", t11)),
			ours:      q(blk(id1, "status: answered", "question: A?", t10, "answer: yes"), blk(id2, open, "question: B?", t11)),
			theirs:    q(blk(id1, "status: answered", "question: A?", t10, "answer: no"), blk(id2, "status: answered", "question: B?", t11, "answer: fine")),
			want:      q(blk(id1, "status: answered", "question: A?", t10, "<<<<<<< ours", "answer: yes", "=======", "answer: no", ">>>>>>> theirs"), blk(id2, "status: answered", "question: B?", t11, "answer: fine")),
			conflicts: []string{id1 + `: answered differently on both sides (ours "yes", theirs "no")`},
		},
		{
			name:      "answered and rejected",
			base:      q(blk(id1, open, "question: A?", t10)),
			ours:      q(blk(id1, "status: answered", "question: A?", t10, "answer: yes")),
			theirs:    q(blk(id1, "status: rejected", "question: A?", t10, "answer: scope is wrong")),
			want:      q(blk(id1, "<<<<<<< ours", "status: answered", "question: A?", t10, "answer: yes", "=======", "status: rejected", "question: A?", t10, "answer: scope is wrong", ">>>>>>> theirs")),
			conflicts: []string{id1 + `: ours answered, theirs rejected (ours "yes", theirs "scope is wrong")`},
		},
		{
			name:   "a question both sides added: merged, not renumbered",
			base:   q(),
			ours:   q(blk(id1, open, "question: A?", t10)),
			theirs: q(blk(id1, "status: answered", "question: A?", t10, "answer: yes")),
			want:   q(blk(id1, "status: answered", "question: A?", t10, "answer: yes")),
		},
		{
			name: "rebase: theirs' next commit answers the block a merge renumbered",
			base: q(blk(id1, open, "question: Theirs?", t11)),
			ours: q(blk(id1, open, "question: Ours?", t10), blk(id2, open, "question: Theirs?", t11, "renumbered_from: "+id1)),
			theirs: q(blk(id1, "status: answered", "question: Theirs?", t11, "answer: yes"),
				blk(id2, open, "question: Next?", t11+"Z")),
			want: q(blk(id1, open, "question: Ours?", t10), blk(id2, "status: answered", "question: Theirs?", t11, "renumbered_from: "+id1, "answer: yes"),
				blk(id3, open, "question: Next?", t11+"Z", "renumbered_from: "+id2)),
			renamed: []Rename{{id2, id3}},
		},
		{
			name:   "text outside blocks: theirs' change when ours kept it",
			base:   "# Questions\n\nintro\n" + blk(id1, open, t10) + "\n## Notes\nold\n",
			ours:   "# Questions\n\nintro\n" + blk(id1, "status: answered", t10, "answer: a") + "\n## Notes\nold\n",
			theirs: "# Questions\n\nbetter intro\n" + blk(id1, open, t10) + "\n## Notes\nnew\n",
			want:   "# Questions\n\nbetter intro\n" + blk(id1, "status: answered", t10, "answer: a") + "\n## Notes\nnew\n",
		},
		{
			name:   "text outside blocks: ours' change stands",
			base:   "# Questions\n\nintro\n" + blk(id1, open, t10),
			ours:   "# Questions\n\nour intro\n" + blk(id1, open, t10),
			theirs: "# Questions\n\ntheir intro\n" + blk(id1, open, t10, "reminded_at: 2026-11-29T10:20:00Z"),
			want:   "# Questions\n\nour intro\n" + blk(id1, open, t10, "reminded_at: 2026-11-29T10:20:00Z"),
		},
		{
			name:    "CRLF ours, LF theirs, ours without a final newline",
			base:    crlf(q(blk(id1, open, "question: A?", t10))),
			ours:    strings.TrimSuffix(crlf(q(blk(id1, open, "question: A?", t10, "reminded_at: 2026-11-29T10:20:00Z"))), "\r\n"),
			theirs:  q(blk(id1, open, "question: A?", t10), blk(id2, open, "question: B?", t11)),
			want:    crlf(q(blk(id1, open, "question: A?", t10, "reminded_at: 2026-11-29T10:20:00Z"), blk(id2, open, "question: B?", t11))),
			renamed: nil,
		},
		{
			name:   "ours has nothing new: theirs' bytes",
			base:   q(blk(id1, open, t10)),
			ours:   q(blk(id1, open, t10)),
			theirs: "# Questions  \n" + blk(id1, "status:   answered", t10),
			want:   "# Questions  \n" + blk(id1, "status:   answered", t10),
		},
		{
			name:   "theirs has nothing new: ours' bytes",
			base:   q(blk(id1, open, t10)),
			ours:   q(blk(id1, "status: answered", t10, "answer: yes")),
			theirs: q(blk(id1, open, t10)),
			want:   q(blk(id1, "status: answered", t10, "answer: yes")),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Questions(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)))
			checkResult(t, got, err, c.want, c.conflicts)
			if !slices.Equal(got.Renamed, c.renamed) {
				t.Errorf("renamed %v, want %v", got.Renamed, c.renamed)
			}
			r, err := Plan(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Renamed(), got.Renamed) {
				t.Errorf("Plan renames %v, Questions %v", r.Renamed(), got.Renamed)
			}
		})
	}
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// TestQuestionsRefuses: input that is not text, and a merge that would
// swallow a block, are errors, never a result.
// register is a questions.md whose questions are rows of a register table.
func register(ids ...string) string {
	s := "# Questions\n\n## Question register\n\n| Question ID | Status | Question |\n| --- | --- | --- |\n"
	for _, id := range ids {
		s += "| " + id + " | open | Which one? |\n"
	}
	return s
}

func TestQuestionsRefuses(t *testing.T) {
	for _, c := range []struct{ name, base, ours, theirs string }{
		{"invalid UTF-8", q(), q(blk(id1, "status: \xff")), q(blk(id2, "status: open"))},
		{"NUL byte", q(), q(blk(id1, "status: open")), q(blk(id2, "status: open\x00"))},
		{"ours ends in an open fence", q(), "# Questions\n\n```\nexample\n", q(blk(id2, "status: open"))},
		{"register rows", register(), register(id1), register(id1, id2)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Questions(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)))
			if err == nil {
				t.Fatalf("got no error and\n%s", got.Data)
			}
			switch c.name {
			case "ours ends in an open fence":
			case "register rows":
				if want := "line 7: " + id1 + " is a row of a question register table"; !strings.Contains(err.Error(), want) {
					t.Errorf("error %v does not say %q", err, want)
				}
			default:
				if !errors.Is(err, mdstore.ErrMalformed) {
					t.Errorf("error %v does not wrap mdstore.ErrMalformed", err)
				}
			}
		})
	}
}

// state builds a table-form state.md.
func state(rows [][2]string, awaited [][2]string, log ...string) string {
	var b strings.Builder
	b.WriteString("# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n")
	for _, r := range rows {
		b.WriteString("| " + r[0] + " | " + r[1] + " |\n")
	}
	if awaited != nil {
		b.WriteString("\n## Awaiting human\n| Key | Value |\n| --- | --- |\n")
		for _, r := range awaited {
			b.WriteString("| " + r[0] + " | " + r[1] + " |\n")
		}
	}
	b.WriteString("\n## Log\n")
	for _, l := range log {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// stoppedRows is a cursor stopped for reason, at the times of stopped_at.
func stoppedRows(reason, at string) [][2]string {
	return [][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", reason}, {"stopped_at", at}}
}

// lifted is the Log line of a stop lifted at 10:min.
func lifted(min int) string {
	return fmt.Sprintf("2026-11-29T10:%02d:00Z build: resume: stop lifted (disk full); status running", min)
}

func TestState(t *testing.T) {
	running := [][2]string{{"phase", "build"}, {"status", "running"}, {"next_action", "/rite-build"}, {"schema", "4"}}
	pausedOn := func(id, question string) ([][2]string, [][2]string) {
		return [][2]string{{"phase", "build"}, {"status", "awaiting_human"}, {"next_action", "/rite-resolve " + id + ` "<answer>"`}, {"schema", "4"}},
			[][2]string{{"question_id", id}, {"gate", "blocking"}, {"question", question}, {"raised_at", "2026-11-29T10:00:00Z"}}
	}
	start := "2026-11-29T09:00:00Z build: started"
	// Both sides raised q-…-001; the merged questions.md renumbers theirs'.
	renumbered, err := Plan(Of([]byte(q())), Of([]byte(q(blk(id1, "status: open", "question: Ours?", t10)))),
		Of([]byte(q(blk(id1, "status: open", "question: Theirs?", t10)))))
	if err != nil {
		t.Fatal(err)
	}
	// The same, theirs raised first.
	theirsFirst, err := Plan(Of([]byte(q())), Of([]byte(q(blk(id1, "status: open", "question: Ours?", "raised_at: 2026-11-29T10:05:00Z")))),
		Of([]byte(q(blk(id1, "status: open", "question: Theirs?", "raised_at: 2026-11-29T09:55:00Z")))))
	if err != nil {
		t.Fatal(err)
	}
	pO, aO := pausedOn(id1, "Ours?")
	pT, aT := pausedOn(id1, "Theirs?")
	pT2, aT2 := pausedOn(id2, "Theirs?")
	for _, c := range []struct {
		name               string
		base, ours, theirs string
		r                  *Renumbering
		want               string
		conflicts          []string
	}{
		{
			name:   "theirs' pause wins over running, under its new id",
			base:   state(running, nil, start),
			ours:   state(running, nil, start, "2026-11-29T10:00:00Z build: raised "+id1+" (blocking)", "2026-11-29T10:30:00Z build: answered "+id1+"; next: /rite-build"),
			theirs: state(pT, aT, start, "2026-11-29T10:00:00Z build: raised "+id1+" (blocking)"),
			r:      renumbered,
			want: state(pT2, aT2, start, "2026-11-29T10:00:00Z build: raised "+id1+" (blocking)", "2026-11-29T10:00:00Z build: raised "+id2+" (blocking)",
				"2026-11-29T10:30:00Z build: answered "+id1+"; next: /rite-build"),
		},
		{
			name:   "ours' pause stays; theirs' Log lines join in time order",
			base:   state(running, nil, start),
			ours:   state(pO, aO, start, "2026-11-29T10:00:00Z build: raised "+id1+" (blocking)"),
			theirs: state(running, nil, start, "2026-11-29T09:30:00Z build: note", "2026-11-29T11:00:00Z build: later"),
			want:   state(pO, aO, start, "2026-11-29T09:30:00Z build: note", "2026-11-29T10:00:00Z build: raised "+id1+" (blocking)", "2026-11-29T11:00:00Z build: later"),
		},
		{
			name:   "a heading in fenced code does not end the Log",
			base:   state(running, nil, start),
			ours:   state(running, nil, start, "2026-11-29T10:00:00Z build: output\n```\n## sample\n```"),
			theirs: state(running, nil, start, "2026-11-29T11:00:00Z build: later"),
			want:   state(running, nil, start, "2026-11-29T10:00:00Z build: output\n```\n## sample\n```", "2026-11-29T11:00:00Z build: later"),
		},
		{
			name:   "ours answered the awaited question; theirs changed nothing of the pause",
			base:   state(pO, aO, start),
			ours:   state(running, nil, start, "2026-11-29T10:30:00Z build: answered "+id1),
			theirs: state(pO, aO, start, "2026-11-29T10:10:00Z build: reminded "+id1),
			want:   state(running, nil, start, "2026-11-29T10:10:00Z build: reminded "+id1, "2026-11-29T10:30:00Z build: answered "+id1),
		},
		{
			name:   "a stop beats a pause, and keeps it for the resume",
			base:   state(running, nil),
			ours:   state(pO, aO),
			theirs: state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "disk full"}}, nil),
			want:   state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "disk full"}}, aO),
		},
		{
			// Raised at the same time: ours' is held, theirs' queued.
			name:   "two pauses: one holds the first raised, the other is queued",
			base:   state(running, nil),
			ours:   state(pO, aO),
			theirs: state(pT, aT),
			r:      renumbered,
			want:   state(append(pO, [2]string{"awaiting_next", id2}), aO),
		},
		{
			name:   "theirs' pause raised first holds; ours' is queued",
			base:   state(running, nil),
			ours:   state(pO, [][2]string{{"question_id", id1}, {"gate", "blocking"}, {"question", "Ours?"}, {"raised_at", "2026-11-29T10:05:00Z"}}),
			theirs: state(pT, [][2]string{{"question_id", id1}, {"gate", "blocking"}, {"question", "Theirs?"}, {"raised_at", "2026-11-29T09:55:00Z"}}),
			r:      theirsFirst,
			want: state([][2]string{{"phase", "build"}, {"status", "awaiting_human"}, {"next_action", "/rite-resolve " + id2 + ` "<answer>"`}, {"schema", "4"}, {"awaiting_next", id1}},
				[][2]string{{"question_id", id2}, {"gate", "blocking"}, {"question", "Theirs?"}, {"raised_at", "2026-11-29T09:55:00Z"}}),
		},
		{
			name:   "a stop and a pause on another question: stopped, one pause held, one queued",
			base:   state(running, nil),
			ours:   state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "disk full"}}, aO),
			theirs: state(pT, aT),
			r:      renumbered,
			want:   state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "disk full"}, {"awaiting_next", id2}}, aO),
		},
		{
			name:   "a stop lifted on one side and untouched on the other stays lifted",
			base:   state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "disk full"}}, nil, start),
			ours:   state(running, nil, start, "2026-11-29T10:00:00Z build: resume: stop lifted (disk full); status running"),
			theirs: state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "disk full"}}, nil, start, "2026-11-29T10:30:00Z build: recorded "+id1+" (answered interactively)"),
			want:   state(running, nil, start, "2026-11-29T10:00:00Z build: resume: stop lifted (disk full); status running", "2026-11-29T10:30:00Z build: recorded "+id1+" (answered interactively)"),
		},
		{
			name:      "two different stops are a conflict naming both",
			base:      state(running, nil),
			ours:      state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "disk full"}}, nil),
			theirs:    state([][2]string{{"phase", "build"}, {"status", "blocked"}, {"next_action", "/rite-doctor"}, {"schema", "4"}, {"stop_reason", "CI red"}}, nil),
			want:      "# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n| phase | build |\n| status | blocked |\n| next_action | /rite-doctor |\n| schema | 4 |\n<<<<<<< ours\n| stop_reason | disk full |\n=======\n| stop_reason | CI red |\n>>>>>>> theirs\n\n## Log\n",
			conflicts: []string{`state.md: the stop changed differently on both sides (ours "disk full", theirs "CI red")`},
		},
		{
			name:   "a stop made again with the same reason after a lift stays when theirs lifted the old one",
			base:   state(stoppedRows("disk full", "2026-11-29T10:00:00Z"), nil, start),
			ours:   state(stoppedRows("disk full", "2026-11-29T10:20:00Z"), nil, start, lifted(10), "2026-11-29T10:20:00Z build: stop blocked: disk full"),
			theirs: state(running, nil, start, lifted(15)),
			want:   state(stoppedRows("disk full", "2026-11-29T10:20:00Z"), nil, start, lifted(10), lifted(15), "2026-11-29T10:20:00Z build: stop blocked: disk full"),
		},
		{
			name:   "ours lifted the stop that theirs lifted and made again: theirs' new stop stays",
			base:   state(stoppedRows("disk full", "2026-11-29T10:00:00Z"), nil, start),
			ours:   state(running, nil, start, lifted(15)),
			theirs: state(stoppedRows("disk full", "2026-11-29T10:20:00Z"), nil, start, lifted(10), "2026-11-29T10:20:00Z build: stop blocked: disk full"),
			want:   state(stoppedRows("disk full", "2026-11-29T10:20:00Z"), nil, start, lifted(10), lifted(15), "2026-11-29T10:20:00Z build: stop blocked: disk full"),
		},
		{
			name:   "a stop lifted on one side and replaced on the other: the new stop stays",
			base:   state(stoppedRows("disk full", "2026-11-29T10:00:00Z"), nil),
			ours:   state(running, nil),
			theirs: state(stoppedRows("CI red", "2026-11-29T10:20:00Z"), nil),
			want:   state(stoppedRows("CI red", "2026-11-29T10:20:00Z"), nil),
		},
		{
			name:   "two stops with one reason, one on each side: one stop that holds both",
			base:   state(running, nil),
			ours:   state(stoppedRows("disk full", "2026-11-29T10:20:00Z"), nil),
			theirs: state(stoppedRows("disk full", "2026-11-29T10:10:00Z"), nil),
			want:   state(stoppedRows("disk full", "2026-11-29T10:10:00Z, 2026-11-29T10:20:00Z"), nil),
		},
		{
			name:   "a side that holds one of two merged stops keeps it when the other side lifted the other",
			base:   state(stoppedRows("disk full", "2026-11-29T10:20:00Z"), nil),
			ours:   state(stoppedRows("disk full", "2026-11-29T10:10:00Z, 2026-11-29T10:20:00Z"), nil),
			theirs: state(running, nil),
			want:   state(stoppedRows("disk full", "2026-11-29T10:10:00Z"), nil),
		},
		{
			name:   "a merged stop lifted on one side and untouched on the other stays lifted",
			base:   state(stoppedRows("disk full", "2026-11-29T10:10:00Z, 2026-11-29T10:20:00Z"), nil),
			ours:   state(stoppedRows("disk full", "2026-11-29T10:10:00Z, 2026-11-29T10:20:00Z"), nil),
			theirs: state(running, nil),
			want:   state(running, nil),
		},
		{
			// Ours answered the question the stop held; theirs lifted the
			// stop, back on the pause: neither holds, and the command that
			// answers the question is stale.
			name:   "a pause released by the other side leaves none of its command",
			base:   state(stoppedRows("disk full", "2026-11-29T10:00:00Z"), aO),
			ours:   state(stoppedRows("disk full", "2026-11-29T10:00:00Z"), nil),
			theirs: state(pO, aO),
			want:   state([][2]string{{"phase", "build"}, {"status", "running"}, {"next_action", "/rite-doctor"}, {"schema", "4"}}, nil),
		},
		{
			name:   "an owed re-scope survives theirs' pause",
			base:   state(running, nil, start),
			ours:   state([][2]string{{"phase", "build"}, {"status", "running"}, {"next_action", "/rite-plan reslice --feedback q-2026-11-28-001"}, {"schema", "4"}}, nil, start, "2026-11-29T10:00:00Z build: rejected q-2026-11-28-001; next: /rite-plan reslice --feedback q-2026-11-28-001"),
			theirs: state(pT, aT, start),
			r:      renumbered,
			want: state(append(pT2, [2]string{"rescope_pending", "q-2026-11-28-001"}), aT2, start,
				"2026-11-29T10:00:00Z build: rejected q-2026-11-28-001; next: /rite-plan reslice --feedback q-2026-11-28-001"),
		},
		{
			// More than 999 questions a day: q-…-1000 starts with q-…-100.
			name:   "a rejection of another id that starts with the one next_action names owes nothing",
			base:   state(running, nil, start),
			ours:   state([][2]string{{"phase", "build"}, {"status", "running"}, {"next_action", "/rite-build --after q-2026-11-28-100"}, {"schema", "4"}}, nil, start, "2026-11-29T10:00:00Z build: rejected q-2026-11-28-1000; next: /rite-build --after q-2026-11-28-100"),
			theirs: state(pT, aT, start),
			r:      renumbered,
			want: state(pT2, aT2, start,
				"2026-11-29T10:00:00Z build: rejected q-2026-11-28-1000; next: /rite-build --after q-2026-11-28-100"),
		},
		{
			name:   "next_action and active_slice changed on both sides while running: the later Log wins",
			base:   state(append(running, [2]string{"active_slice", "1"}), nil, start),
			ours:   state([][2]string{{"phase", "build"}, {"status", "running"}, {"next_action", "/rite-build 2"}, {"schema", "4"}, {"active_slice", "2"}}, nil, start, "2026-11-29T11:00:00Z build: slice 2"),
			theirs: state([][2]string{{"phase", "build"}, {"status", "running"}, {"next_action", "/rite-build 3"}, {"schema", "4"}, {"active_slice", "3"}}, nil, start, "2026-11-29T10:00:00Z build: slice 3"),
			want: state([][2]string{{"phase", "build"}, {"status", "running"}, {"next_action", "/rite-build 2"}, {"schema", "4"}, {"active_slice", "2"}}, nil, start,
				"2026-11-29T10:00:00Z build: slice 3", "2026-11-29T11:00:00Z build: slice 2"),
		},
		{
			name:   "rescope_pending joins; a key theirs added comes in",
			base:   state(append(running, [2]string{"rescope_pending", "q-2026-11-28-001"}), nil),
			ours:   state(append(running, [2]string{"rescope_pending", "q-2026-11-28-001, q-2026-11-28-002"}), nil),
			theirs: state(append(running, [2]string{"rescope_pending", "q-2026-11-28-003"}, [2]string{"return_next_action", "/rite-test"}), nil),
			want:   state(append(running, [2]string{"rescope_pending", "q-2026-11-28-002, q-2026-11-28-003"}, [2]string{"return_next_action", "/rite-test"}), nil),
		},
		{
			name:      "phase changed differently",
			base:      state(running, nil),
			ours:      state([][2]string{{"phase", "test"}, {"status", "running"}, {"next_action", "/rite-build"}, {"schema", "4"}}, nil),
			theirs:    state([][2]string{{"phase", "ship"}, {"status", "running"}, {"next_action", "/rite-build"}, {"schema", "4"}}, nil),
			want:      "# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n<<<<<<< ours\n| phase | test |\n=======\n| phase | ship |\n>>>>>>> theirs\n| status | running |\n| next_action | /rite-build |\n| schema | 4 |\n\n## Log\n",
			conflicts: []string{`state.md: phase changed differently on both sides (ours "test", theirs "ship")`},
		},
		{
			name:   "bullets and CRLF: theirs' pause written in ours' form",
			base:   crlf("# State\n\n- Status: running\n- Next step: /rite-build\n\n## Log\n- 2026-11-29T09:00:00Z build: started\n"),
			ours:   crlf("# State\n\n- Status: running\n- Next step: /rite-build\n\n## Log\n- 2026-11-29T09:00:00Z build: started\n- 2026-11-29T10:30:00Z build: answered " + id1 + "\n"),
			theirs: state(pT, aT, start, "2026-11-29T10:00:00Z build: raised "+id1+" (blocking)"),
			r:      renumbered,
			want: crlf("# State\n\n- Status: awaiting_human\n- Next step: /rite-resolve " + id2 + " \"<answer>\"\n- Phase: build\n- Schema: 4\n\n## Awaiting human\n- qid: " + id2 +
				"\n- gate: blocking\n- question: Theirs?\n- raised_at: 2026-11-29T10:00:00Z\n\n## Log\n- 2026-11-29T09:00:00Z build: started\n- 2026-11-29T10:00:00Z build: raised " + id2 + " (blocking)\n- 2026-11-29T10:30:00Z build: answered " + id1 + "\n"),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := State(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)), c.r)
			checkResult(t, got, err, c.want, c.conflicts)
		})
	}
}

func dec(entries ...string) string { return "# Decisions\n" + strings.Join(entries, "") }

func entry(id, status, answer, at string) string {
	return "\n## " + id + " " + status + "\nquestion: Which one?\nanswer: " + answer + "\nanswered_at: " + at + "\n"
}

func TestDecisions(t *testing.T) {
	renumbered, err := Plan(Of([]byte(q())), Of([]byte(q(blk(id1, "status: answered", "question: Ours?", t10)))),
		Of([]byte(q(blk(id1, "status: answered", "question: Theirs?", t10)))))
	if err != nil {
		t.Fatal(err)
	}
	e1 := entry(id1, "answered", "yes", "2026-11-29T10:00:00Z")
	e2 := entry(id2, "answered", "no", "2026-11-29T11:00:00Z")
	e3 := entry(id3, "dropped", "moot", "2026-11-29T12:00:00Z")
	// A "## " line inside fenced code is text of its entry, not an entry.
	f1 := e1 + "```md\n## Example\n```\n"
	f2 := e2 + "```md\n## Example\n```\n"
	// A value's lines are data, as the engine reads them: an older
	// version's "  ```sh" or "  ## q-…" is neither a fence nor an entry.
	v1 := "\n## " + id1 + " answered\nanswer: |-\n  see\n  ## " + id3 + " was the old one\n  ```sh\nanswered_at: 2026-11-29T10:00:00Z\n"
	// An entry that copied its question's raise time: asked is the text it
	// copied.
	raisedEntry := func(id, asked, raised, answer, at string) string {
		return "\n## " + id + " answered\nquestion: " + asked + "\nraised_at: " + raised + "\nanswer: " + answer + "\nanswered_at: " + at + "\n"
	}
	// Ours' questions.md: two questions ask "Ship it?"; the one raised at
	// 10:00 was 001 and is 002 now, the one raised at 11:00 is 001.
	sameText, err := Plan(Of([]byte(q())), Of([]byte(q(blk(id2, "status: answered", "question: Ship it?", t10, "renumbered_from: "+id1),
		blk(id1, "status: answered", "question: Ship it?", t11)))), Of([]byte(q())))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name               string
		base, ours, theirs string
		r                  *Renumbering
		want               string
		conflicts          []string
	}{
		{"union in time order", dec(), dec(e1, e3), dec(e2), nil, dec(e1, e2, e3), nil},
		{"each entry once, theirs' in time order", dec(e1), dec(e1, e3), dec(e1, e2, e3), nil, dec(e1, e2, e3), nil},
		{"theirs' heading follows the renumbering", dec(), dec(entry(id1, "answered", "ours", "2026-11-29T12:00:00Z")),
			dec(entry(id1, "answered", "theirs", "2026-11-29T11:00:00Z")), renumbered,
			dec(entry(id2, "answered", "theirs", "2026-11-29T11:00:00Z"), entry(id1, "answered", "ours", "2026-11-29T12:00:00Z")), nil},
		{"the same decision recorded twice", dec(), dec(e1), dec(entry(id1, "answered", "yes", "2026-11-29T10:05:00Z")), nil, dec(e1), nil},
		{"two decisions on one question", dec(), dec(e1), dec(entry(id1, "answered", "no", "2026-11-29T10:05:00Z")), nil,
			dec("\n## " + id1 + " answered\nquestion: Which one?\n<<<<<<< ours\nanswer: yes\nanswered_at: 2026-11-29T10:00:00Z\n=======\nanswer: no\nanswered_at: 2026-11-29T10:05:00Z\n>>>>>>> theirs\n"),
			[]string{`decisions.md: ` + id1 + ` decided differently on both sides (ours answered "yes", theirs answered "no")`}},
		{"preamble changed by theirs only", dec(e1), dec(e1, e2), "# Decisions\n\nA log of what was decided.\n" + e1, nil,
			"# Decisions\n\nA log of what was decided.\n" + e1 + e2, nil},
		{"CRLF", crlf(dec()), crlf(dec(e1)), dec(e2), nil, crlf(dec(e1, e2)), nil},
		{"headings in fenced code", dec(), dec(f1), dec(f2), nil, dec(f1, f2), nil},
		{"a value's lines are data", dec(), dec(v1, e3), dec(e2), nil, dec(v1, e2, e3), nil},
		{"two questions of one text under one id, raised at different times, are two decisions", dec(),
			dec(raisedEntry(id1, "Ship it?", "2026-11-29T09:00:00Z", "yes", "2026-11-29T10:00:00Z")),
			dec(raisedEntry(id1, "Ship it?", "2026-11-29T09:30:00Z", "no", "2026-11-29T10:05:00Z")), nil,
			dec(raisedEntry(id1, "Ship it?", "2026-11-29T09:00:00Z", "yes", "2026-11-29T10:00:00Z"),
				raisedEntry(id1, "Ship it?", "2026-11-29T09:30:00Z", "no", "2026-11-29T10:05:00Z")), nil},
		{"of two questions of one text, the entry of the one that has the id now stays; the other's follows its question", dec(),
			dec(raisedEntry(id1, "Ship it?", "2026-11-29T10:00:00Z", "yes", "2026-11-29T10:30:00Z"), raisedEntry(id1, "Ship it?", "2026-11-29T11:00:00Z", "no", "2026-11-29T11:30:00Z")),
			dec(e3), sameText,
			dec(raisedEntry(id2, "Ship it?", "2026-11-29T10:00:00Z", "yes", "2026-11-29T10:30:00Z"), raisedEntry(id1, "Ship it?", "2026-11-29T11:00:00Z", "no", "2026-11-29T11:30:00Z"), e3), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Decisions(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs)), c.r)
			checkResult(t, got, err, c.want, c.conflicts)
		})
	}
}

func TestMapIDs(t *testing.T) {
	m := map[string]string{id1: id2}
	for in, want := range map[string]string{
		id1:                               id2,
		"/rite-resolve " + id1 + ` "<a>"`: "/rite-resolve " + id2 + ` "<a>"`,
		id1 + "0":                         id1 + "0", // a longer id
		"xq-2026-11-29-001":               "xq-2026-11-29-001",
		id1 + ", " + id1:                  id2 + ", " + id2,
		"q-2026-11-29":                    "q-2026-11-29",
	} {
		if got := mapIDs(in, m); got != want {
			t.Errorf("mapIDs(%q) = %q, want %q", in, got, want)
		}
	}
}

// checkResult checks a merge's bytes and conflicts.
func checkResult(t *testing.T, got Result, err error, want string, conflicts []string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Data) != want {
		t.Errorf("got\n%s\nwant\n%s", got.Data, want)
	}
	if !slices.Equal(got.Conflicts, conflicts) {
		t.Errorf("conflicts %q, want %q", got.Conflicts, conflicts)
	}
}

func TestOneSpaced(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "Which retry policy?": "Which retry policy?", " a": "a", "a ": "a", "a  b": "a b",
		"a\tb": "a b", "a\nb": "a b", "é  x — y": "é x — y", "a\u00a0b": "a b",
	} {
		if got := oneSpaced(in); got != want || got != strings.Join(strings.Fields(in), " ") {
			t.Errorf("oneSpaced(%q) = %q, want %q", in, got, want)
		}
	}
}

// A version read again must be the one read first: a file that changes
// while it is merged is an error, not a merge of two different files.
func TestQuestionsSourceChanged(t *testing.T) {
	base := []byte(q(blk(id1, "status: open", "question: Which?", t10)))
	ours := []byte(q(blk(id1, "status: answered", "question: Which?", t10, "answer: a")))
	reads := 0
	theirs := func() ([]byte, error) {
		reads++
		if reads > 1 {
			return []byte(q(blk(id1, "status: dropped", "question: Which?", t10, "answer: b"))), nil
		}
		return []byte(q(blk(id1, "status: open", "question: Which?", t10), blk(id2, "status: open", "question: New?", t11))), nil
	}
	_, err := Questions(Of(base), Of(ours), Reader(theirs))
	if err == nil || !strings.Contains(err.Error(), "their questions.md changed while it was merged") {
		t.Fatalf("got %v, want the change of theirs named", err)
	}
	if reads != 2 {
		t.Errorf("theirs was read %d times, want 2 (once to plan, once for the block it adds)", reads)
	}
	// Theirs changed nothing: the result is ours whole, read again.
	reads = 0
	changing := func() ([]byte, error) {
		if reads++; reads > 1 {
			return []byte("garbage that was never planned\n"), nil
		}
		return ours, nil
	}
	_, err = Questions(Of(base), Reader(changing), Of(base))
	if err == nil || !strings.Contains(err.Error(), "our questions.md changed while it was merged") {
		t.Fatalf("ours whole: got %v, want the change of ours named", err)
	}
	// Ours' blocks the merge leaves as they are are copied from a stream
	// of ours, each checked against the digest it was planned with.
	ours = []byte(q(blk(id1, "status: open", "question: Which?", t10), blk(id2, "status: open", "question: New?", t11)))
	edited := bytes.Replace(ours, []byte("Which?"), []byte("Whose?"), 1)
	streamed := Source{read: Of(ours).read, open: Of(edited).open}
	theirs2 := Of([]byte(q(blk(id1, "status: open", "question: Which?", t10), blk(id3, "status: open", "question: Third?", "raised_at: 2026-11-29T12:00:00Z"))))
	if _, err := Questions(Of(base), Of(ours), theirs2); err != nil {
		t.Fatalf("unchanged ours: %v", err)
	}
	if _, err = Questions(Of(base), streamed, theirs2); err == nil || !strings.Contains(err.Error(), "our questions.md changed while it was merged") {
		t.Fatalf("ours streamed: got %v, want the change of ours named", err)
	}
}

// A version larger than the offsets of a block can hold is refused, named,
// with no result.
func TestQuestionsTooLarge(t *testing.T) {
	defer func(n int) { maxVersion = n }(maxVersion)
	maxVersion = 40
	small, large := []byte(q()), []byte(q(blk(id1, "status: open", "question: Which?", t10)))
	res, err := Questions(Of(small), Of(small), Of(large))
	if err == nil || !strings.Contains(err.Error(), "their questions.md: too large to merge (") || res.Data != nil {
		t.Fatalf("got %v and %d bytes, want theirs refused as too large and no result", err, len(res.Data))
	}
}

// TestStateDecisionsSourceChanged: a version of state.md or decisions.md
// that is not the same when read again (to merge, or as the result whole)
// is an error naming it, never a result.
func TestStateDecisionsSourceChanged(t *testing.T) {
	changing := func(first, later string) Source {
		reads := 0
		return Reader(func() ([]byte, error) {
			if reads++; reads > 1 {
				return []byte(later), nil
			}
			return []byte(first), nil
		})
	}
	base := state([][2]string{{"status", "running"}}, nil, "2026-11-29T10:00:00Z a")
	ours := state([][2]string{{"status", "running"}}, nil, "2026-11-29T10:00:00Z a", "2026-11-29T11:00:00Z b")
	theirs := state([][2]string{{"status", "running"}}, nil, "2026-11-29T10:00:00Z a", "2026-11-29T12:00:00Z c")
	decB, decO := dec(entry(id1, "answered", "yes", "2026-11-29T10:00:00Z")), dec(entry(id1, "answered", "yes", "2026-11-29T10:00:00Z"), entry(id2, "answered", "no", "2026-11-29T11:00:00Z"))
	decT := dec(entry(id1, "answered", "yes", "2026-11-29T10:00:00Z"), entry(id3, "dropped", "x", "2026-11-29T12:00:00Z"))
	for _, c := range []struct {
		name               string
		merge              func(b, o, t Source) (Result, error)
		base, ours, theirs string
	}{
		{"state.md", func(b, o, t Source) (Result, error) { return State(b, o, t, nil) }, base, ours, theirs},
		{"decisions.md", func(b, o, t Source) (Result, error) { return Decisions(b, o, t, nil) }, decB, decO, decT},
	} {
		if _, err := c.merge(Of([]byte(c.base)), Of([]byte(c.ours)), Of([]byte(c.theirs))); err != nil {
			t.Fatalf("%s: unchanged versions: %v", c.name, err)
		}
		_, err := c.merge(Of([]byte(c.base)), Of([]byte(c.ours)), changing(c.theirs, c.ours))
		if want := "their " + c.name + " changed while it was merged"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, theirs changed: got %v, want %q", c.name, err, want)
		}
		// Ours changed nothing: the result is theirs whole, read again.
		_, err = c.merge(Of([]byte(c.base)), Of([]byte(c.base)), changing(c.theirs, c.ours))
		if want := "their " + c.name + " changed while it was merged"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, theirs whole: got %v, want %q", c.name, err, want)
		}
		_, err = c.merge(changing(c.base, c.theirs), Of([]byte(c.ours)), Of([]byte(c.theirs)))
		if want := "base " + c.name + " changed while it was merged"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, base changed: got %v, want %q", c.name, err, want)
		}
	}
}
