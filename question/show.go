package question

import (
	"strconv"
	"strings"
	"time"
)

// Text is the question as a person needs it to decide: what questions show
// prints, the prompt of state resolve and answer at a terminal, and the
// question page of serve (the engine's ShowText adds the command that answers it):
//
//	Slice 3 — payments — HITL (blocking, SLA 15m). Which currency rounding rule?
//	▸ 1. Banker's rounding (Recommended) — logic: unbiased · business: matches ledger
//	  2. Round half up — simpler, biased upward on .5
//	  3. Something else — I'll describe it
//	attempt 2, superseding q-2026-11-29-001; its feedback: "partial refunds are separate"
//	provisional: the agent builds on option 1 until a person validates it
//	tags: billing · breakpoint: slice-3.blocking · route: alice, bob, carol (quorum:2)
//	responses: 1 of 3 responded; waiting for bob, carol; quorum 2 needs one more agreeing answer
//	  2026-11-29T14:05:00Z alice answered (option 1): Banker's rounding
//	raised 2026-11-29T14:02:11Z (age 1h) — overdue
//
// The first lines are those of the contract; each line after the options
// appears only when the question has what it shows. A question of several
// lines keeps them, indented under the first.
func (q Question) Text(now time.Time) string {
	var b strings.Builder
	head := "Slice " + q.Slice
	if q.Slice == "" {
		head = "Question " + q.QID
	}
	sla := q.SLA
	if sla == "" {
		sla = "none"
	}
	lines := strings.Split(strings.TrimRight(q.Question, "\n"), "\n")
	b.WriteString(head + " — HITL (" + q.Gate + ", SLA " + sla + "). " + lines[0] + "\n")
	for _, l := range lines[1:] {
		b.WriteString("  " + l + "\n")
	}
	for i, o := range q.Options {
		mark := "  "
		if i == 0 {
			mark = "▸ "
		}
		b.WriteString(mark + strconv.Itoa(i+1) + ". " + o + "\n")
	}
	if q.Supersedes != "" || q.Attempt != nil {
		line := "attempt "
		if q.Attempt != nil {
			line += strconv.Itoa(*q.Attempt)
		} else {
			line += "2"
		}
		if q.Supersedes != "" {
			line += ", superseding " + q.Supersedes
		}
		if q.PreviousFeedback != "" {
			line += "; its feedback: " + quoteLines(q.PreviousFeedback)
		}
		b.WriteString(line + "\n")
	}
	if q.Provisional && q.Status == StatusOpen {
		b.WriteString("provisional: the agent builds on option 1 until a person validates it\n")
	}
	var about []string
	if len(q.Tags) > 0 {
		about = append(about, "tags: "+strings.Join(q.Tags, ", "))
	}
	if q.Breakpoint != "" {
		about = append(about, "breakpoint: "+q.Breakpoint)
	}
	if len(q.Route) > 0 {
		about = append(about, "route: "+routeText(q))
	}
	if q.BlockingSlices != "" {
		about = append(about, "blocks slices: "+q.BlockingSlices)
	}
	if len(about) > 0 {
		b.WriteString(strings.Join(about, " · ") + "\n")
	}
	b.WriteString(q.responsesText())
	if q.RaisedAt != "" && q.Status == StatusOpen {
		line := "raised " + q.RaisedAt + " (age " + q.Age(now) + ")"
		if q.Overdue {
			line += " — overdue"
		}
		b.WriteString(line + "\n")
	}
	if q.Status == StatusOpen {
		return b.String()
	}
	line := "status: " + q.Status
	if q.Choice != nil {
		line += " (option " + strconv.Itoa(*q.Choice) + ")"
	}
	if q.Answer != nil {
		line += " — " + quoteLines(*q.Answer)
	}
	b.WriteString(line + "\n")
	if how := q.HowResolved(); how != "" {
		b.WriteString(how + "\n")
	}
	return b.String()
}

// HowResolved says who resolved q, how and when, as questions show and
// wait print it: "by alice via elicitation at 2026-11-29T14:05:00Z", or
// "by afk at … auto-picked (advisory allowed)"; "" while nothing says.
func (q Question) HowResolved() string {
	var by []string
	if q.AnsweredBy != "" {
		by = append(by, "by "+q.AnsweredBy)
	}
	// The engine's own picks say how in "auto-picked" (and expiry's in
	// its actor): "via" would repeat it.
	if q.AnsweredVia != "" && q.Auto == "" {
		by = append(by, "via "+q.AnsweredVia)
	}
	if q.AnsweredAt != "" {
		by = append(by, "at "+q.AnsweredAt)
	}
	if q.Auto != "" {
		by = append(by, "auto-picked ("+q.Auto+")")
	}
	return strings.Join(by, " ")
}

// quoteLines is text on one line when it has one, else its lines indented
// under the line that introduces them.
func quoteLines(s string) string {
	s = strings.TrimRight(s, "\n")
	if !strings.Contains(s, "\n") {
		return s
	}
	return "\n    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// WaitingText says whom a routed question waits for, as the output of a
// raise that paused on it says it:
//
//	security-lead (a page: anyone may answer; answered_by records who)
//	alice, bob (quorum:2: only they may answer, each with --by)
func (q Question) WaitingText() string {
	who := strings.Join(q.Awaits(), ", ")
	switch {
	case !q.Routed():
		return who + " (a page: anyone may answer; answered_by records who)"
	case q.checksResponders():
		return who + " (" + q.Strategy + ": only they may answer, each with --by)"
	}
	return who + " (" + q.Strategy + ": anyone may answer for " + RouteOwner + " or " + RouteAny + ")"
}

// ResponderPlaceholder is the --by of q's resolve command: "" when anyone
// may answer q (no strategy, or a route holding owner or any), else the
// name of the one responder it awaits, or "<one of: …>" naming them.
func (q Question) ResponderPlaceholder() string {
	if !q.checksResponders() {
		return ""
	}
	names := q.Awaits()
	if len(names) == 1 {
		return ShellWord(names[0])
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = ShellWord(n)
	}
	return "<one of: " + strings.Join(quoted, ", ") + ">"
}
