package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// RaiseRequest is a HITL checkpoint as an agent asks it. The JSON names are
// those of `question raise --input`.
type RaiseRequest struct {
	Slice    string   `json:"slice"`
	Gate     string   `json:"gate"`
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Proposed string   `json:"proposed"`
	SLA      string   `json:"sla"`
	// Route names whom to ask (JSON: a list, or one string of names
	// separated by commas). Without Strategy it is a page: anyone may
	// answer. A Strategy (single, first-response-wins, collect-all or
	// quorum:N) makes it a vote of the routed responders.
	Route          Names    `json:"route"`
	Strategy       string   `json:"strategy"`
	Tags           []string `json:"tags"`
	Breakpoint     string   `json:"breakpoint"`
	BlockingSlices string   `json:"blocking_slices"`
	// Answered and Choice record a question already answered interactively;
	// nil when not given (an empty answer given is refused, never ignored).
	Answered *string `json:"answered"`
	Choice   *int    `json:"choice"`
	// NoAlwaysApprove keeps the "always approve" offer off the question
	// (written always_approve: no).
	NoAlwaysApprove bool `json:"no_always_approve"`
	// Via is how an answer recorded with Answered or Choice came
	// (answered_via, person.go); the caller sets it, never its input.
	Via string `json:"-"`
}

// RaiseResult is the outcome of a raise.
type RaiseResult struct {
	QID      string            `json:"qid"`
	Outcome  string            `json:"outcome"`
	Question question.Question `json:"question"`
	Decision Decision          `json:"decision"`
	Warnings []string          `json:"warnings,omitempty"`
}

// prepare validates the request and fills what tasks.md and the defaults give.
func (r *RaiseRequest) prepare(tasks []mdstore.Slice) error {
	texts := []struct {
		name string
		v    *string
	}{{"--question", &r.Question}, {"--proposed", &r.Proposed}, {"--blocking-slices", &r.BlockingSlices}}
	if r.Answered != nil {
		texts = append(texts, struct {
			name string
			v    *string
		}{"--answered", r.Answered})
	}
	for _, t := range texts {
		v, err := config.CleanText(t.name, *t.v)
		if err != nil {
			return err
		}
		*t.v = v
	}
	if err := r.gatekeeping(tasks); err != nil {
		return err
	}
	if blank(r.Question) {
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "no question text"),
			"pass --question, or --slice naming a tasks.md slice with a Checkpoint")
	}
	if err := r.prepareRoute(); err != nil {
		return err
	}
	if r.Gate == "escalating" && len(r.Route) == 0 {
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "an escalating gate needs --route"), "name who it escalates to, e.g. --route security-oncall")
	}
	if r.SLA == "" {
		r.SLA = question.DefaultSLA[r.Gate]
	}
	if err := slaError(r.SLA); err != nil {
		return mdstore.WithHint(err, "use none or a number with s, m, h or d, at most 365d: 15m, 4h, 24h")
	}
	if err := r.prepareOptions(); err != nil {
		return err
	}
	if err := numberTitles(r.Options); err != nil {
		return err
	}
	if r.Proposed == "" {
		r.Proposed = question.OptionTitle(r.Options[0])
	}
	if r.Choice != nil && (*r.Choice < 1 || *r.Choice > len(r.Options)) {
		return mdstore.Errorf(ErrBadArgs, "--choice %d: the options are numbered from 1 to %d", *r.Choice, len(r.Options))
	}
	if r.Answered != nil && blank(*r.Answered) {
		return mdstore.Errorf(ErrBadArgs, "--answered is blank")
	}
	if r.Choice != nil && r.Answered != nil && !answersOption(*r.Answered, *r.Choice, r.Options[*r.Choice-1]) {
		n := *r.Choice
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "--choice %d is %q, but --answered says %q", n, question.Brief(question.OptionTitle(r.Options[n-1])), question.Brief(*r.Answered)),
			"give --choice alone, --answered alone, or an --answered that is option "+strconv.Itoa(n)+"'s text")
	}
	return nil
}

// answersOption reports whether text states option n (its number, title or
// whole text), or describes the escape hatch when option n is it.
func answersOption(text string, n int, option string) bool {
	text = strings.TrimSpace(text)
	if strings.EqualFold(option, question.EscapeHatch) {
		return true
	}
	return text == strconv.Itoa(n) || strings.EqualFold(text, question.OptionTitle(option)) || strings.EqualFold(text, option)
}

// gatekeeping fills and checks what the AFK policy looks at: the slice
// (and, from its tasks.md entry, gate, SLA and question when they are not
// given), the gate, the tags and the breakpoint. question raise and afk
// explain both use it.
func (r *RaiseRequest) gatekeeping(tasks []mdstore.Slice) error {
	for _, t := range []struct {
		name string
		v    *string
	}{{"--slice", &r.Slice}, {"--breakpoint", &r.Breakpoint}} {
		v, err := config.CleanText(t.name, *t.v)
		if err != nil {
			return err
		}
		*t.v = v
	}
	// Where the gate came from, for an error about it: tasks.md's slice,
	// or the caller.
	var fromTasks *mdstore.Slice
	noGate := mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "no gate"), "pass --gate advisory|validating|blocking|escalating")
	if r.Slice != "" {
		s, ok := findSlice(tasks, r.Slice)
		switch {
		case !ok && r.Gate == "" && isSliceRef(r.Slice):
			noGate = mdstore.Errorf(ErrBadArgs, "no gate: slice %q is not in tasks.md", r.Slice).
				Hint("pass --gate advisory|validating|blocking|escalating, or add the slice to tasks.md")
		case ok && r.Gate == "" && s.Gate == "":
			noGate = mdstore.Errorf(ErrBadArgs, "no gate: tasks.md:%d: slice %d has no Gate line", s.Line, s.Number).
				Hint("pass --gate advisory|validating|blocking|escalating, or add \"Gate: …\" to the slice")
		}
		if ok {
			if isSliceRef(r.Slice) {
				r.Slice = s.Label()
			}
			if r.Gate == "" {
				r.Gate, fromTasks = s.Gate, &s
			}
			if r.SLA == "" && s.SLA != "" {
				r.SLA = s.SLA
			}
			if r.Question == "" {
				r.Question = s.Checkpoint
			}
		}
	}
	r.Gate = strings.ToLower(strings.TrimSpace(r.Gate))
	if r.Gate == "" {
		return noGate
	}
	if !mdstore.ValidGate(r.Gate) && fromTasks != nil {
		return mdstore.Errorf(ErrMalformed, "tasks.md:%d: slice %d: unknown gate %q", fromTasks.Line, fromTasks.Number, r.Gate).
			Hint("write one of advisory, validating, blocking, escalating in its Gate line, or pass --gate")
	}
	if !mdstore.ValidGate(r.Gate) {
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "unknown gate %q", r.Gate), "use one of advisory, validating, blocking, escalating")
	}
	for _, t := range r.Tags {
		if blank(t) || strings.ContainsAny(t, ",\n") {
			return mdstore.Errorf(ErrBadArgs, "tag %q is blank or holds a comma or a line break", t)
		}
	}
	if r.Breakpoint == "" {
		r.Breakpoint = deriveBreakpoint(r.Slice, r.Gate)
	}
	return nil
}

func (r *RaiseRequest) prepareOptions() error {
	var given []string
	hatch := question.EscapeHatch
	for i, o := range r.Options {
		o, err := config.CleanText("--option", o)
		if err != nil {
			return err
		}
		o = strings.TrimSpace(o[max(question.OptionNumber(o), 0):])
		if o == "" {
			return mdstore.Errorf(ErrBadArgs, "option %d is empty", i+1)
		}
		if strings.Contains(o, "\n") {
			return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "option %d has a line break", i+1),
				"an option is one line: \"title — trade-offs\"")
		}
		if strings.EqualFold(o, question.EscapeHatch) {
			hatch = o
			continue
		}
		given = append(given, o)
	}
	if len(given) < 1 || len(given) > 3 {
		return mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "%d options given", len(given)),
			"give 1 to 3 --option, recommended first; the engine adds \""+question.EscapeHatch+"\"")
	}
	if !strings.Contains(given[0], "(Recommended)") {
		title, rest, found := strings.Cut(given[0], " — ")
		given[0] = strings.TrimSpace(title) + question.Recommended
		if found {
			given[0] += " — " + rest
		}
	}
	r.Options = append(given, hatch)
	return nil
}

func isSliceRef(s string) bool {
	m := sliceRef().FindStringSubmatch(strings.TrimSpace(s))
	return m != nil && len(strings.TrimSpace(sliceRef().ReplaceAllString(strings.TrimSpace(s), ""))) == 0
}

// deriveBreakpoint names the checkpoint when the agent does not: the slice's
// number or name and the gate, e.g. "slice-3.blocking". Without a slice
// there is nothing to tell one checkpoint from another, so there is no
// breakpoint: unrelated questions must never share a history that
// auto_approve_after or supersedes would read.
func deriveBreakpoint(slice, gate string) string {
	id := slice
	if m := sliceRef().FindStringSubmatch(strings.TrimSpace(slice)); m != nil {
		id = m[1]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return ""
	}
	return "slice-" + s + "." + gate
}

// Raise is the HITL checkpoint: in one locked transaction it allocates the
// qid, appends the question and rewrites state.md; then, with the lock
// released, it fires the notify hook when the outcome asks a person.
func (e *Engine) Raise(ctx context.Context, r RaiseRequest, by string) (*RaiseResult, error) {
	tasks, err := e.tasks()
	if err != nil {
		return nil, err
	}
	if err := r.prepare(tasks); err != nil {
		return nil, err
	}
	by, err = e.answerer(by)
	if err == nil {
		err = e.recordGuard(r) // person.go
	}
	if err != nil {
		return nil, err
	}
	unlock, err := e.lockProjectQIDs(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	res, err := transact(ctx, e, func(f *Files) (*RaiseResult, error) {
		history := e.ofBreakpoint(f.Questions, r.Breakpoint)
		d := Decision{Recorded, 0, "answered", "answered interactively (--answered/--choice)", ""}
		if r.Answered == nil && r.Choice == nil {
			d = Decide(e.AFK, Gatekeeping{Gate: r.Gate, Tags: r.Tags, Slice: r.Slice, Breakpoint: r.Breakpoint, History: history, Rules: &e.Rules})
		}
		if d.Outcome == Paused {
			if reason, stopped := StopReason(f.State); stopped {
				return nil, mdstore.Errorf(ErrStopped, "the workspace is blocked (%s): a question that pauses waits until a person lifts the stop", reason).
					Fix(LiftStop, "")
			}
			if err := e.unrecordedPause(f); err != nil { // person.go
				return nil, err
			}
			if b := awaitedOpen(f); b != nil {
				return nil, mdstore.Errorf(ErrPaused, "%s is still awaiting a human", b.QID).
					Hint("one question per pause: resolve it first, or re-slice").Fix(ResolveAwaited, e.resolveAwaited(f))
			}
		}
		id, err := e.nextQID(f)
		if err != nil {
			return nil, err
		}
		now := e.timestamp()
		kvs := []mdstore.KV{
			{Key: "status", Value: question.StatusOpen},
			{Key: "slice", Value: r.Slice},
			{Key: "gate", Value: r.Gate},
			{Key: "question", Value: r.Question},
			{Key: "options", Value: numbered(r.Options)},
			{Key: "proposed", Value: r.Proposed},
			{Key: "sla", Value: r.SLA},
			{Key: "raised_at", Value: now},
		}
		opt := func(k, v string) {
			if v != "" {
				kvs = append(kvs, mdstore.KV{Key: k, Value: v})
			}
		}
		opt("tags", strings.Join(r.Tags, ", "))
		opt("breakpoint", r.Breakpoint)
		if len(r.Route) > 0 {
			// Without a strategy the route is a page: anyone may answer.
			opt("route", strings.Join(r.Route, ", "))
			opt("strategy", r.Strategy)
		}
		opt("blocking_slices", r.BlockingSlices)
		if r.NoAlwaysApprove {
			opt("always_approve", "no")
		}
		if prev := lastOfBreakpoint(history, r.Breakpoint); r.Breakpoint != "" && prev != nil && prev.Status == question.StatusRejected {
			attempt := 2
			if prev.Attempt != nil {
				attempt = *prev.Attempt + 1
			}
			opt("supersedes", prev.QID)
			opt("attempt", strconv.Itoa(attempt))
			if prev.Answer != nil {
				opt("previous_feedback", *prev.Answer)
			}
		}
		if d.Outcome == Provisional {
			opt("provisional", "1")
		}
		f.Questions.Append(id, kvs...)
		q := question.FromBlock(f.Questions.Find(id), e.Now())
		if q.Supersedes != "" && e.actedOn(f.State, q.Supersedes) {
			// The agent re-scoped: this question is the new plan's.
			f.State.AppendLog(e.LogLine(f.State, "re-scoped "+q.Supersedes+" (superseded by "+id+")"))
		}
		switch d.Outcome {
		case Paused:
			e.Pause(f, q, "raised "+id+" ("+r.Gate+")")
		case Provisional:
			f.State.AppendLog(e.LogLine(f.State, "raised "+id+" ("+r.Gate+", provisional on option 1)"))
		case AutoPicked:
			q, err = e.answer(f, id, resolution{kind: question.StatusAnswered, choice: 1}, "afk", d.Name)
			f.State.AppendLog(e.LogLine(f.State, "auto-picked "+id+" option 1 ("+d.Name+")"))
		case Recorded:
			rec := resolution{kind: question.StatusAnswered, via: r.Via}
			if r.Answered != nil {
				rec.text = *r.Answered
			}
			if r.Choice != nil {
				rec.choice = *r.Choice
			}
			q, err = e.answer(f, id, rec, by, "")
			f.State.AppendLog(e.LogLine(f.State, "recorded "+id+" (answered interactively)"))
		}
		if err != nil {
			return nil, err
		}
		return &RaiseResult{QID: id, Outcome: d.Outcome, Decision: d, Question: e.described(q, false)}, nil
	})
	if err != nil {
		return nil, err
	}
	res.Warnings = append(e.ConfigWarnings(), e.Rules.Warnings()...)
	switch untrusted := res.Decision.Untrusted; {
	case untrusted == "":
	case untrusted == e.Rules.Path:
		res.Warnings = appendOnce(res.Warnings, e.Rules.TrustWarning())
	default:
		res.Warnings = appendOnce(res.Warnings, e.AFK.TrustWarning())
	}
	if res.Outcome == Paused || res.Outcome == Provisional {
		res.Warnings = appendOnce(res.Warnings, e.fire(ctx, "raised", res.Question)...)
	}
	return res, nil
}

func numbered(opts []string) string {
	var b strings.Builder
	for i, o := range opts {
		b.WriteString(strconv.Itoa(i+1) + ". " + o + "\n")
	}
	return b.String()
}

func lastOfBreakpoint(history []question.Question, bp string) *question.Question {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Breakpoint == bp {
			return &history[i]
		}
	}
	return nil
}

// Pause writes a pause on q into f's state.md, as a raise that pauses
// does: status awaiting_human, q's slice, next_action the command that
// answers q (a re-scope owed waits in rescope_pending), the Awaiting human
// section of q and the Log line logText. Only state.md changes.
func (e *Engine) Pause(f *Files, q question.Question, logText string) {
	f.State.Set("status", "awaiting_human")
	if q.Slice != "" {
		f.State.Set("active_slice", q.Slice)
	}
	if _, ok := f.State.Get("slice_mode"); ok {
		f.State.Set("slice_mode", "HITL")
	}
	e.holdRescope(f.State)
	f.State.Set("next_action", e.resumeAction(f.State, q.QID, q.Slice))
	f.State.SetAwaiting(awaitingSection(q)...)
	f.State.AppendLog(e.LogLine(f.State, logText))
}

// awaitingSection is the Awaiting human section of a pause on q.
func awaitingSection(q question.Question) []mdstore.KV {
	aw := []mdstore.KV{{Key: "question_id", Value: q.QID}, {Key: "gate", Value: q.Gate},
		{Key: "question", Value: q.Question}, {Key: "proposed", Value: q.Proposed}, {Key: "raised_at", Value: q.RaisedAt}}
	if q.BlockingSlices != "" {
		aw = append(aw, mdstore.KV{Key: "blocking_slices", Value: q.BlockingSlices})
	}
	return aw
}

// slaError says what is wrong with an SLA that is neither "none" nor valid,
// or returns nil.
func slaError(s string) error {
	if mdstore.ValidSLA(s) {
		return nil
	}
	if _, _, shaped := mdstore.SplitSLA(s); shaped && strings.Trim(s, "0smhd") != "" {
		return mdstore.Errorf(ErrBadArgs, "SLA %q is longer than 365d", s)
	}
	return mdstore.Errorf(ErrBadArgs, "SLA %q is not none or a duration", s)
}

// numberTitles refuses options whose title (the text before " — ",
// without the recommended mark) reads as an option number
// (question.NumberTitle; docs/formats.md, "Options").
func numberTitles(opts []string) error {
	for i, o := range opts {
		t := strings.TrimSpace(question.OptionTitle(o))
		if n, ok := question.NumberTitle(t); ok {
			return mdstore.Errorf(ErrBadArgs, "option %d is titled %q, a number: an answer %s picks option %s by its number, never an option by its title", i+1, t, n, n).
				Hint("nothing was written; title the option in words and keep the number after \" — \", e.g. --option \"Three retries — 3\"")
		}
	}
	return nil
}
