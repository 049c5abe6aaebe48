package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/notify"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// AFKStatus is the effective AFK configuration, as `afk status` reports it.
type AFKStatus struct {
	config.AFK
	NotifyTimeout string   `json:"notify_timeout"`
	AlwaysStop    []string `json:"always_stop"`
	// UntrustedFiles are the config files not trusted on this machine.
	UntrustedFiles []config.UntrustedFile `json:"untrusted_files"`
	// Hook is the notify hook in force and HookFrom the file it is read
	// from: notify.yaml when it is there, else the AFK file (one file
	// configures the hook; docs/afk-and-notify.md).
	Hook     HookStatus `json:"hook"`
	HookFrom string     `json:"hook_from,omitempty"`
}

// HookStatus is the notify hook in force, as afk status shows it.
type HookStatus struct {
	Notify        string   `json:"notify,omitempty"`
	NotifyTimeout string   `json:"notify_timeout"`
	NotifyOn      []string `json:"notify_on"`
	ServeURL      string   `json:"serve_url,omitempty"`
}

// Status returns the effective AFK configuration: the file's values over the
// defaults, or what a file that does not parse leaves in force.
func (e *Engine) Status() AFKStatus {
	a := e.AFK
	a.AllowGates, a.NotifyOn = nonNil(a.AllowGates), nonNil(a.NotifyOn)
	h := e.Hook
	return AFKStatus{AFK: a, NotifyTimeout: a.NotifyTimeout.String(), AlwaysStop: slices.Clone(alwaysStop),
		UntrustedFiles: nonNil(e.Untrusted()), HookFrom: h.Path,
		Hook: HookStatus{Notify: h.Notify, NotifyTimeout: h.NotifyTimeout.String(), NotifyOn: nonNil(h.NotifyOn), ServeURL: h.ServeURL}}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ExplainRequest is the question `afk explain` asks the policy about.
type ExplainRequest struct {
	Gate       string
	Tags       []string
	Slice      string
	Breakpoint string
}

// Explanation says which rule would decide a question raised now.
type Explanation struct {
	Decision
	Gate       string   `json:"gate"`
	Tags       []string `json:"tags"`
	Slice      string   `json:"slice"`
	Breakpoint string   `json:"breakpoint"`
	// HumanStreak is how many of the breakpoint's latest resolutions were
	// human picks of option 1 (rule 7), when auto_approve_after is set.
	HumanStreak      *int `json:"human_streak,omitempty"`
	AutoApproveAfter int  `json:"auto_approve_after,omitempty"`
	// WhenOverdue says what on_overdue does to the question once nobody
	// answers it: reminders, escalation, acceptance by expiry or why not.
	WhenOverdue string `json:"when_overdue"`
}

// Explain runs the policy on a question without raising it, against the
// questions.md history as it is now. Slice, gate and breakpoint are filled as
// `question raise` fills them.
func (e *Engine) Explain(r ExplainRequest) (*Explanation, error) {
	g := RaiseRequest{Slice: r.Slice, Gate: r.Gate, Tags: r.Tags, Breakpoint: r.Breakpoint}
	tasks, err := e.tasks()
	if err != nil {
		return nil, err
	}
	if err := g.gatekeeping(tasks); err != nil {
		return nil, err
	}
	slice, gate, bp := g.Slice, g.Gate, g.Breakpoint
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	history := e.ofBreakpoint(f.Questions, bp)
	x := &Explanation{Gate: gate, Tags: nonNil(r.Tags), Slice: slice, Breakpoint: bp,
		Decision: Decide(e.AFK, Gatekeeping{Gate: gate, Tags: r.Tags, Slice: slice, Breakpoint: bp, History: history, Rules: &e.Rules})}
	x.WhenOverdue = e.overdueText(Gatekeeping{Gate: gate, Tags: r.Tags, Slice: slice, Breakpoint: bp})
	if n := e.AFK.AutoApproveAfter; n > 0 {
		streak := HumanStreak(history, bp)
		x.HumanStreak, x.AutoApproveAfter = &streak, n
	}
	return x, nil
}

// NotifyTestResult is what `notify test` reports.
type NotifyTestResult struct {
	Event    string         `json:"event"`
	QID      string         `json:"qid"`
	Sample   bool           `json:"sample"` // no question was open: sample values were sent
	Command  string         `json:"command"`
	From     string         `json:"from"` // the file the command is read from
	OK       bool           `json:"ok"`
	Duration string         `json:"duration"`
	Error    string         `json:"error,omitempty"`
	Log      string         `json:"log"`
	LogError string         `json:"log_error,omitempty"` // the outcome was not logged, and why
	Outcome  notify.Outcome `json:"outcome"`

	// AnswerURL is the capability link the hook was given (serve_url);
	// sample values get none, as no question has them.
	AnswerURL string   `json:"answer_url,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// testEvents are the events `notify test` may send: "test" and those of
// notify_on.
var testEvents = append([]string{"test"}, config.Events...)

// TestEvents returns them, for the command line's help.
func TestEvents() []string { return slices.Clone(testEvents) }

// NotifyTest fires the hook once, whatever notify_on says, with the newest
// open question or, when none is open, with sample values. A hook that fails
// is reported in the result, not as an error.
func (e *Engine) NotifyTest(ctx context.Context, event string) (*NotifyTestResult, error) {
	if event == "" {
		event = "test"
	}
	if !slices.Contains(testEvents, event) {
		return nil, mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "unknown --event %q", event), "use one of "+strings.Join(testEvents, ", "))
	}
	h := e.Hook
	switch {
	case !h.On:
		return nil, mdstore.Errorf(mdstore.ErrMissing, "no notify hook: neither .devrites/notify.yaml nor .devrites/AFK is there").
			Hint("create .devrites/notify.yaml with a line such as: notify: sh ./examples/notify/ntfy.sh (AFK mode stays off)")
	case h.Broken:
		return nil, mdstore.Errorf(ErrMalformed, "%s does not parse, so its notify hook is not known", h.Path).
			Hint("fix the line the warning names").Fix(ShowAFK, "")
	case h.Notify == "" && h.Path != e.AFK.Path && e.AFK.Notify != "":
		return nil, mdstore.Errorf(mdstore.ErrMissing, "%s: no notify command, and it configures the hook: the notify command of %s is not run", h.Path, e.AFK.Path).
			Hint("move the notify line of " + e.AFK.Path + " into " + h.Path)
	case h.Notify == "":
		return nil, mdstore.Errorf(mdstore.ErrMissing, "%s: no notify command", h.Path).
			Hint("add a line such as: notify: sh ./examples/notify/ntfy.sh")
	case h.Untrusted != "":
		return nil, mdstore.Errorf(ErrUntrusted, "%s is %s on this machine, so its notify command does not run", h.Path, h.Untrusted).
			Hint(config.TrustHint)
	}
	f, err := e.read()
	if err != nil {
		return nil, err
	}
	var q *question.Question
	for x := range e.questions(f.Questions, question.StatusOpen) {
		if q == nil || x.RaisedAt >= q.RaisedAt {
			q = &x
		}
	}
	res := &NotifyTestResult{Event: event, Command: h.Notify, From: h.Path, Log: e.WS.Path(mdstore.NotifyLog)}
	if q == nil {
		q = e.sampleQuestion()
		res.Sample = true
	}
	res.QID = q.QID
	ev := e.event(event, *q)
	if !res.Sample {
		if w := e.withAnswerURL(&ev, *q); w != "" {
			res.Warnings = append(res.Warnings, w)
		}
		res.AnswerURL = ev.AnswerURL
	}
	o := notify.Fire(ctx, e.hook(), ev)
	res.Outcome, res.OK, res.Duration = o, o.OK(), o.Duration.Round(1e6).String()
	if o.Err != nil {
		res.Error = o.Err.Error()
	}
	if o.LogErr != nil {
		res.LogError = o.LogErr.Error()
	}
	return res, nil
}

// sampleQuestion stands in for a question when none is open. Its qid has the
// suffix 000, which allocation never gives, so it cannot be mistaken for one.
func (e *Engine) sampleQuestion() *question.Question {
	return &question.Question{QID: "q-" + qid.Date(e.Now()) + "-000", Status: question.StatusOpen, Slice: "0 — notify test", Gate: "advisory",
		Question: "Does the devrites-engine notify hook reach you? (a test; nothing to answer)",
		Options:  []string{"Yes, it works (Recommended)", question.EscapeHatch}, Proposed: "Yes, it works",
		SLA: "none", RaisedAt: e.timestamp()}
}

// Untrusted lists the workspace's config files not trusted here: the AFK
// file, notify.yaml, rules.yaml, allowed_signers.
func (e *Engine) Untrusted() []config.UntrustedFile {
	var out []config.UntrustedFile
	for _, a := range []config.AFK{e.AFK, e.Hook} {
		if a.Untrusted != "" && !slices.ContainsFunc(out, func(u config.UntrustedFile) bool { return u.Path == a.Path }) {
			out = append(out, a.UntrustedFile())
		}
	}
	if r := e.Rules; r.Untrusted != "" {
		out = append(out, r.UntrustedFile())
	}
	if _, _, u, _ := e.projectSigners(); u != nil {
		out = append(out, *u)
	}
	return out
}
