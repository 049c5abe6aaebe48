package mcp

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/claims"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// The inputs and outputs of the tools. Their JSON names are the contract;
// a field without omitempty is required.

type RaiseInput struct {
	Slice          string   `json:"slice,omitempty" jsonschema:"the slice, e.g. \"3 — payments\", or its number as tasks.md has it (then gate, SLA and question may come from tasks.md)"`
	Gate           string   `json:"gate,omitempty" jsonschema:"advisory, validating, blocking or escalating (else the slice's, from tasks.md)"`
	Question       string   `json:"question,omitempty" jsonschema:"the question for the person (else the slice's checkpoint, from tasks.md)"`
	Options        []string `json:"options" jsonschema:"1 to 3 options, recommended first, each \"title — trade-offs\"; the engine marks the first (Recommended) and adds the escape hatch \"Something else — I'll describe it\""`
	Proposed       string   `json:"proposed,omitempty" jsonschema:"your best-guess answer (default: option 1's title)"`
	SLA            string   `json:"sla,omitempty" jsonschema:"how soon a person should answer: none, 15m, 4h, 24h … (default by gate)"`
	Tags           []string `json:"tags,omitempty" jsonschema:"tags the AFK policy reads, e.g. billing, scope, destructive-migration"`
	Breakpoint     string   `json:"breakpoint,omitempty" jsonschema:"a stable id of this checkpoint, e.g. pay.rounding (default: from slice and gate)"`
	Route          []string `json:"route,omitempty" jsonschema:"who answers: names, owner (whoever runs the project) or any; required for escalating"`
	Strategy       string   `json:"strategy,omitempty" jsonschema:"how routed responders decide: single, first-response-wins, collect-all or quorum:N"`
	BlockingSlices string   `json:"blocking_slices,omitempty" jsonschema:"the slices this question blocks, e.g. \"3, 4\""`
	Paths          []string `json:"paths,omitempty" jsonschema:"paths the question's work touches (as claim add takes them): nothing is raised while another session holds one live; needs session"`
	Session        string   `json:"session,omitempty" jsonschema:"your session's name, as your claims carry it, with paths: your own claims do not count"`
}

type RaiseOutput struct {
	QID string `json:"qid" jsonschema:"the question's id"`
	// Outcome is the engine's (paused, auto-picked, provisional), or how
	// the person's answer to the form resolved it (answered, rejected,
	// dropped).
	Outcome    string            `json:"outcome" jsonschema:"paused, auto-picked, provisional, answered, rejected or dropped"`
	Resume     string            `json:"resume,omitempty" jsonschema:"while the question is open: the command a person runs to answer it"`
	NextAction string            `json:"next_action,omitempty" jsonschema:"what the agent does next, as state.md now says (after a rejection: the re-scope command)"`
	Asked      string            `json:"asked,omitempty" jsonschema:"what became of the form shown to the person: accepted, declined, cancelled, empty, failed or refused, with why"`
	Question   question.Question `json:"question" jsonschema:"the question as questions.md now holds it"`
	Warnings   []string          `json:"warnings,omitempty"`
}

type StateOutput struct {
	Workspace string              `json:"workspace"`
	Slug      string              `json:"slug"`
	Schema    int                 `json:"schema"`
	Encoding  string              `json:"encoding" jsonschema:"table or bullets"`
	Cursor    map[string]string   `json:"cursor" jsonschema:"state.md's cursor, by canonical key: status, next_action, active_slice, …"`
	Awaiting  map[string]string   `json:"awaiting,omitempty" jsonschema:"the Awaiting human section, when state.md has one"`
	Open      []question.Question `json:"open" jsonschema:"the open questions"`
}

type ListInput struct {
	Status  string `json:"status,omitempty" jsonschema:"open (default), answered, dropped, rejected or all"`
	Gate    string `json:"gate,omitempty" jsonschema:"only questions of this gate"`
	Slice   string `json:"slice,omitempty" jsonschema:"only questions of this slice (\"3\", \"SLICE-003\" or as written)"`
	Overdue bool   `json:"overdue,omitempty" jsonschema:"only questions past their SLA"`
	Awaited bool   `json:"awaited,omitempty" jsonschema:"only the question state.md awaits"`
}

type ListOutput struct {
	Questions []question.Question `json:"questions"`
}

type QIDInput struct {
	QID string `json:"qid" jsonschema:"the question's id, e.g. q-2026-11-29-001"`
}

type QuestionOutput struct {
	Question question.Question `json:"question"`
	Text     string            `json:"text" jsonschema:"the question and its options as a person sees them (questions show)"`
}

type CheckInput struct {
	Seal bool `json:"seal,omitempty" jsonschema:"also stop while any question is open (before sealing a slice or feature)"`
}

type CheckOutput struct {
	Verdict        string              `json:"verdict" jsonschema:"proceed or stop"`
	Reason         string              `json:"reason" jsonschema:"why, with the next action"`
	Status         string              `json:"status" jsonschema:"state.md's status"`
	Open           []question.Question `json:"open,omitempty" jsonschema:"with seal: the questions still open"`
	RescopePending []string            `json:"rescope_pending,omitempty" jsonschema:"questions a person overruled: re-scope them"`
}

type WaitInput struct {
	QID            string  `json:"qid,omitempty" jsonschema:"the question to wait for (default: the one state.md awaits)"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"how long to wait, in seconds (default 50, at most 86400); call again while it says still open"`
}

type WaitOutput struct {
	QID      string            `json:"qid"`
	Result   string            `json:"result" jsonschema:"final, or still open at the timeout, or (a signature is required) answered, not yet signed"`
	Status   string            `json:"status" jsonschema:"open, answered, dropped or rejected"`
	Resume   string            `json:"resume,omitempty" jsonschema:"while still open: the command a person runs to answer it"`
	Question question.Question `json:"question" jsonschema:"the question with its resolution (answer, choice, answered_by, answered_via)"`
}

type RelayInput struct {
	QID    string `json:"qid" jsonschema:"the question the person answered"`
	Action string `json:"action,omitempty" jsonschema:"answer (default), reject (send it back for re-scoping) or drop (not needed)"`
	Text   string `json:"text,omitempty" jsonschema:"the person's own words, exactly as they gave them: the answer, or the reason for reject/drop"`
	Choice int    `json:"choice,omitempty" jsonschema:"the option number the person picked (with action answer, instead of text)"`
	By     string `json:"by,omitempty" jsonschema:"the person's name (answered_by; default $DEVRITES_ACTOR, else human)"`
}

type RelayOutput struct {
	QID        string            `json:"qid"`
	Status     string            `json:"status" jsonschema:"answered, dropped or rejected; open while a routed question waits for more responses"`
	NextAction string            `json:"next_action,omitempty" jsonschema:"what the agent does next, as state.md now says"`
	Question   question.Question `json:"question"`
	Warnings   []string          `json:"warnings,omitempty"`
}

const (
	defaultWait = 50 * time.Second
	maxWait     = 24 * time.Hour
)

// schemaFor is T's inferred schema with the allowed values of some fields.
func schemaFor[T any](enums map[string][]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the types above are fixed
	}
	for name, values := range enums {
		s.Properties[name].Enum = values
	}
	return s
}

var (
	gates    = []any{"advisory", "validating", "blocking", "escalating"}
	statuses = []any{"open", "answered", "dropped", "rejected", "all"}
)

func (t *tools) add(s *sdk.Server) {
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true}
	yes, no := true, false
	personFirst := &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
	sdk.AddTool(s, &sdk.Tool{Name: "raise_question", Title: "Raise a HITL question",
		Description: "The HITL checkpoint: record a question for the person, with 1 to 3 options (recommended first). " +
			"The AFK policy may answer it (auto-picked) or let you proceed on option 1 (provisional). Otherwise, when the client " +
			"supports forms, the person is asked at once and the outcome is answered, rejected (re-scope with the feedback) or dropped; " +
			"if they cancel or no form can be shown, the outcome is paused: stop, and call wait_for_answer or relay the person's words " +
			"with relay_answer. Only one question can hold the pause.",
		InputSchema: schemaFor[RaiseInput](map[string][]any{"gate": gates})}, t.raise)
	sdk.AddTool(s, &sdk.Tool{Name: "get_state", Title: "Read state.md", Annotations: readOnly,
		Description: "The workspace's cursor (status, next_action, active slice), the awaited question and the open questions."}, t.state)
	sdk.AddTool(s, &sdk.Tool{Name: "list_questions", Title: "List questions", Annotations: readOnly,
		Description: "The questions of questions.md, open ones by default; filter by status, gate, slice, overdue or awaited.",
		InputSchema: schemaFor[ListInput](map[string][]any{"status": statuses, "gate": gates})}, t.list)
	sdk.AddTool(s, &sdk.Tool{Name: "get_question", Title: "Show a question", Annotations: readOnly,
		Description: "One question with its options as a person sees them, and its resolution once it has one."}, t.question)
	sdk.AddTool(s, &sdk.Tool{Name: "check", Title: "May the agent proceed?", Annotations: readOnly,
		Description: "proceed or stop, and why: stop while a person must answer or the workspace is stopped; " +
			"with seal, also while any question is open. Call it before you go past a checkpoint."}, t.check)
	sdk.AddTool(s, &sdk.Tool{Name: "wait_for_answer", Title: "Wait for the person's answer", Annotations: readOnly,
		Description: "Block until the question (default: the awaited one) is answered, dropped or rejected, and return its " +
			"resolution; at timeout_seconds return still open (call again). Sends progress notifications while it waits."}, t.wait)
	// relay_answer records a decision for the person: marked destructive
	// and closed-world, so that a client that honours the hints asks the
	// person before each call (docs/harness.md).
	sdk.AddTool(s, &sdk.Tool{Name: "relay_answer", Title: "Relay the person's answer from the chat", Annotations: personFirst,
		Description: "Record what the person said in the chat about a question: their answer (words, or the option number they " +
			"picked), or reject or drop with their reason. Pass their words exactly; never your own. Recorded with answered_via: agent. " +
			"A question that needs a person (escalating, always-stop or never-auto tags, person-only rules) is refused: the person answers it themselves.",
		InputSchema: schemaFor[RelayInput](map[string][]any{"action": {"answer", "reject", "drop"}})}, t.relay)
}

func (t *tools) raise(ctx context.Context, req *sdk.CallToolRequest, in RaiseInput) (*sdk.CallToolResult, RaiseOutput, error) {
	eng, err := t.opts.Open()
	if err != nil {
		return nil, RaiseOutput{}, t.fail("question raise", err)
	}
	var out RaiseOutput
	if req.Params.RequestState != "" || req.Params.InputResponses != nil {
		if out, err = t.answered(ctx, req, eng); err != nil {
			return nil, RaiseOutput{}, err
		}
	} else {
		warnings, err := claimCheck(eng, in.Session, in.Paths)
		if err != nil {
			return nil, RaiseOutput{}, t.fail("question raise", err)
		}
		r := engine.RaiseRequest{Slice: in.Slice, Gate: in.Gate, Question: in.Question, Options: in.Options, Proposed: in.Proposed,
			SLA: in.SLA, Tags: in.Tags, Breakpoint: in.Breakpoint, Route: in.Route, Strategy: in.Strategy, BlockingSlices: in.BlockingSlices}
		res, err := eng.Raise(ctx, r, "")
		if err != nil {
			return nil, RaiseOutput{}, t.fail("question raise", err)
		}
		out = RaiseOutput{QID: res.QID, Outcome: res.Outcome, Question: res.Question, Warnings: append(warnings, res.Warnings...)}
		if res.Outcome == engine.Paused && formsOf(req.Session) { // what AFK decided is never asked
			if input := t.ask(ctx, req.Session, eng, &out); input != nil {
				return input, RaiseOutput{}, nil
			}
		}
	}
	if out.Question.Status == question.StatusOpen {
		out.Resume = eng.ResolveCommand(out.Question)
	}
	return nil, out, nil
}

// claimCheck refuses a raise for work on paths that another session holds
// live (docs/claims.md), as question raise --claim-check does: the person's answer
// would not let the agent work on them, so it does other work and checks
// again. Without paths every raise goes through; with them, a session is
// needed (its own claims do not count). It returns the warnings of the
// read: the lines of the claims file it skipped.
func claimCheck(eng *engine.Engine, session string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if err := claims.CheckSession(session); err != nil {
		return nil, err
	}
	s := claims.Store{Dir: eng.WS.Devrites, LockTimeout: eng.LockTimeout, Now: eng.Now}
	chk, err := s.Check(session, paths)
	if err != nil {
		return nil, err
	}
	if len(chk.Holds) > 0 {
		return nil, &claims.HeldError{Holds: chk.Holds}
	}
	return s.Warnings(chk.Problems), nil
}

func (t *tools) state(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, StateOutput, error) {
	eng, err := t.opts.Open()
	if err != nil {
		return nil, StateOutput{}, t.fail("state show", err)
	}
	v, err := eng.Show()
	if err != nil {
		return nil, StateOutput{}, t.fail("state show", err)
	}
	return nil, StateOutput{Workspace: v.Workspace, Slug: v.Slug, Schema: v.Schema, Encoding: v.Encoding,
		Cursor: v.Cursor, Awaiting: v.Awaiting, Open: v.Open}, nil
}

func (t *tools) list(ctx context.Context, req *sdk.CallToolRequest, in ListInput) (*sdk.CallToolResult, ListOutput, error) {
	if in.Status == "" {
		in.Status = question.StatusOpen
	}
	eng, err := t.opts.Open()
	if err != nil {
		return nil, ListOutput{}, t.fail("questions list", err)
	}
	out := ListOutput{Questions: []question.Question{}}
	err = eng.List(engine.ListFilter{Status: in.Status, Gate: in.Gate, Slice: in.Slice, Overdue: in.Overdue, Awaited: in.Awaited},
		func(q question.Question) error {
			out.Questions = append(out.Questions, q)
			return nil
		})
	if err != nil {
		return nil, ListOutput{}, t.fail("questions list", err)
	}
	return nil, out, nil
}

func (t *tools) question(ctx context.Context, req *sdk.CallToolRequest, in QIDInput) (*sdk.CallToolResult, QuestionOutput, error) {
	eng, err := t.opts.Open()
	if err != nil {
		return nil, QuestionOutput{}, t.fail("questions show", err)
	}
	q, err := eng.Get(in.QID)
	if err != nil {
		return nil, QuestionOutput{}, t.fail("questions show", err)
	}
	return nil, QuestionOutput{Question: q, Text: eng.ShowText(q)}, nil
}

func (t *tools) check(ctx context.Context, req *sdk.CallToolRequest, in CheckInput) (*sdk.CallToolResult, CheckOutput, error) {
	eng, err := t.opts.Open()
	if err != nil {
		return nil, CheckOutput{}, t.fail("state check", err)
	}
	r, err := eng.Check(in.Seal)
	if err != nil {
		return nil, CheckOutput{}, t.fail("state check", err)
	}
	out := CheckOutput{Verdict: "proceed", Reason: r.Reason, Status: r.Status, Open: r.Open, RescopePending: r.RescopePending}
	if !r.Proceed {
		out.Verdict = "stop"
	}
	return nil, out, nil
}

func (t *tools) wait(ctx context.Context, req *sdk.CallToolRequest, in WaitInput) (*sdk.CallToolResult, WaitOutput, error) {
	timeout := defaultWait
	if in.TimeoutSeconds != 0 {
		timeout = time.Duration(in.TimeoutSeconds * float64(time.Second))
	}
	if timeout <= 0 || timeout > maxWait {
		return nil, WaitOutput{}, t.fail("wait", mdstore.Errorf(engine.ErrBadArgs, "timeout_seconds %v is not between 0 and %d", in.TimeoutSeconds, int(maxWait.Seconds())))
	}
	eng, err := t.opts.Open()
	if err != nil {
		return nil, WaitOutput{}, t.fail("wait", err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	token, step := req.Params.GetProgressToken(), 0
	progress := func(q question.Question) {
		if token == nil {
			return
		}
		step++
		msg := q.QID + " still open"
		if q.Progress != "" {
			msg += ": " + q.Progress
		}
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(step), Message: msg})
	}
	q, err := eng.Wait(waitCtx, in.QID, progress)
	switch {
	case err == nil:
		return nil, WaitOutput{QID: q.QID, Result: "final", Status: q.Status, Question: q}, nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && q.QID != "" && q.Unsigned != "":
		return nil, WaitOutput{QID: q.QID, Result: engine.UnsignedText(q), Status: q.Status, Resume: "devrites-engine sign " + q.QID, Question: q}, nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && q.QID != "":
		return nil, WaitOutput{QID: q.QID, Result: "still open", Status: q.Status, Resume: eng.ResolveCommand(q), Question: q}, nil
	}
	return nil, WaitOutput{}, t.fail("wait", err)
}

func (t *tools) relay(ctx context.Context, req *sdk.CallToolRequest, in RelayInput) (*sdk.CallToolResult, RelayOutput, error) {
	kind, text := question.StatusAnswered, in.Text
	switch in.Action {
	case "", "answer":
	case "reject":
		kind = question.StatusRejected
	case "drop":
		kind = question.StatusDropped
	}
	switch {
	case in.Choice != 0 && kind != question.StatusAnswered:
		return nil, RelayOutput{}, t.fail("state resolve", mdstore.Errorf(engine.ErrBadArgs, "choice %d with action %s: only an answer picks an option", in.Choice, in.Action).Hint("give the reason as text"))
	case in.Choice != 0 && in.Text != "":
		return nil, RelayOutput{}, t.fail("state resolve", mdstore.Errorf(engine.ErrBadArgs, "both choice %d and text: give one", in.Choice).Hint("the option number the person picked, or their words"))
	case in.Choice != 0:
		text = strconv.Itoa(in.Choice)
	}
	eng, err := t.opts.Open()
	if err != nil {
		return nil, RelayOutput{}, t.fail("state resolve", err)
	}
	res, err := eng.Resolve(ctx, []engine.Resolution{{QID: in.QID, Kind: kind, Text: text, Via: ViaAgent}}, in.By)
	if err != nil {
		return nil, RelayOutput{}, t.fail("state resolve", err)
	}
	r := res.Resolved[0]
	q, err := eng.Get(r.QID)
	if err != nil {
		return nil, RelayOutput{}, t.fail("state resolve", err)
	}
	return nil, RelayOutput{QID: r.QID, Status: r.Status, NextAction: r.NextAction, Question: q, Warnings: res.Warnings}, nil
}

// How a resolution came, as answered_via records it.
const (
	ViaAgent       = "agent"
	ViaElicitation = "elicitation"
)
