package question

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// What the responses to a routed question decide, by its strategy.

// Verdict is what the responses decide: nothing yet (Final false, Need
// says what is missing), or the question's final status with its answer,
// choice and who decided it.
type Verdict struct {
	Final  bool
	Status string
	Choice int
	Text   string
	By     []string
	Need   string
}

// group is the answers that agree: the same option, or the same text.
type group struct {
	choice int    // the option, or 0 for text
	text   string // the text, when choice is 0
	by     []string
	first  int // index of its first response
}

// optionOf is the option an answer states: the one it picked, or the one
// its text states (OptionStated).
func (rt Routing) optionOf(r Response) int {
	if r.Choice != 0 {
		return r.Choice
	}
	return OptionStated(r.Answer, rt.options)
}

// OptionStated is the option whose title or whole text (with or without
// its "(Recommended)" mark) the text is, in any case and without the
// blanks around it; 0 when it is none. The escape hatch is never stated
// by text: text describing it is its own.
func OptionStated(text string, options []string) int {
	t := strings.TrimSpace(text)
	for i, o := range options {
		if IsEscapeHatch(o) {
			continue
		}
		if strings.EqualFold(t, OptionTitle(o)) || strings.EqualFold(t, o) || strings.EqualFold(t, strings.Replace(o, Recommended, "", 1)) {
			return i + 1
		}
	}
	return 0
}

// groups gathers the answered responses that agree, the strongest first:
// more responses, then an option before text, then the lower option
// number, then the earlier response.
func (rt Routing) groups() []group {
	var gs []group
	for i, r := range rt.Responses {
		if r.Status != StatusAnswered {
			continue
		}
		c := rt.optionOf(r)
		k := slices.IndexFunc(gs, func(g group) bool { return g.choice == c && (c != 0 || g.text == r.Answer) })
		if k < 0 {
			gs = append(gs, group{choice: c, text: r.Answer, first: i})
			k = len(gs) - 1
		}
		gs[k].by = append(gs[k].by, r.By)
	}
	slices.SortStableFunc(gs, func(a, b group) int {
		switch {
		case len(a.by) != len(b.by):
			return len(b.by) - len(a.by)
		case (a.choice == 0) != (b.choice == 0):
			if a.choice == 0 {
				return 1
			}
			return -1
		case a.choice != b.choice:
			return a.choice - b.choice
		}
		return a.first - b.first
	})
	return gs
}

// answered is the Verdict of an agreeing group.
func (g group) answered() Verdict {
	v := Verdict{Final: true, Status: StatusAnswered, Choice: g.choice, By: g.by}
	if g.choice == 0 {
		v.Text = g.text
	}
	return v
}

// Outcome applies the strategy to the responses.
func (rt Routing) Outcome() Verdict {
	_, waiting := rt.slots()
	switch rt.strat.name {
	case StrategyCollectAll:
		if len(waiting) > 0 {
			return Verdict{}
		}
		var rejected []Response
		for _, r := range rt.Responses {
			if r.Status == StatusRejected {
				rejected = append(rejected, r)
			}
		}
		if len(rejected) > 0 {
			return Verdict{Final: true, Status: StatusRejected, Text: feedback(rejected, false), By: names(rejected)}
		}
		if gs := rt.groups(); len(gs) > 0 {
			return gs[0].answered()
		}
		return Verdict{Final: true, Status: StatusDropped, Text: feedback(rt.Responses, false), By: names(rt.Responses)}
	case StrategyQuorum:
		best := 0
		gs := rt.groups()
		if len(gs) > 0 {
			best = len(gs[0].by)
		}
		switch {
		case best >= rt.strat.n:
			return gs[0].answered()
		case best+len(waiting) >= rt.strat.n:
			more := rt.strat.n - best
			need := "one more agreeing answer"
			if more > 1 {
				need = strconv.Itoa(more) + " more agreeing answers"
			}
			return Verdict{Need: "quorum " + strconv.Itoa(rt.strat.n) + " needs " + need}
		}
		// No quorum can be reached any more.
		status := StatusDropped
		for _, r := range rt.Responses {
			if r.Status != StatusDropped {
				status = StatusRejected
			}
		}
		return Verdict{Final: true, Status: status, Text: feedback(rt.Responses, status == StatusRejected), By: names(rt.Responses)}
	}
	// single and first-response-wins: the first response decides.
	if len(rt.Responses) == 0 {
		return Verdict{Need: "the first response decides"}
	}
	r := rt.Responses[0]
	v := Verdict{Final: true, Status: r.Status, Choice: r.Choice, Text: r.Answer, By: []string{r.By}}
	if r.Choice != 0 {
		v.Text = "" // the option's title, as a resolution that picks it writes
	}
	return v
}

func names(rs []Response) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.By
	}
	return out
}

// feedback joins the texts of responses, each line naming its author
// ("alice: too risky"). With verdicts, each line also says what the
// response was ("bob (answered option 2): Round half up"), for a quorum
// that failed on answers that did not agree as much as on rejections.
func feedback(rs []Response, verdicts bool) string {
	var lines []string
	for _, r := range rs {
		who := r.By
		if verdicts && r.Status != StatusRejected {
			who += " (" + r.Status
			if r.Choice != 0 {
				who += " option " + strconv.Itoa(r.Choice)
			}
			who += ")"
		}
		for _, l := range strings.Split(strings.TrimRight(r.Answer, "\n"), "\n") {
			lines = append(lines, who+": "+l)
		}
	}
	return strings.Join(lines, "\n")
}

// progress says where the responses stand: "2 of 3 responded; waiting for
// carol; quorum 2 needs one more agreeing answer" while the question is
// open, "3 of 3 responded" once it is final; and, while it is open, the
// responders still awaited.
func (rt Routing) progress(open bool) (string, []string) {
	responded, waiting := rt.slots()
	s := fmt.Sprintf("%d of %d responded", responded, len(rt.Route))
	if !open {
		return s, nil
	}
	if len(waiting) > 0 {
		s += "; waiting for " + strings.Join(waiting, ", ")
	}
	if v := rt.Outcome(); v.Need != "" {
		s += "; " + v.Need
	}
	return s, waiting
}
