package mcp_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/claims"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/internal/testhome"
	"github.com/devrites/devrites-engine/mcp"
	"github.com/devrites/devrites-engine/mdstore"
)

var clock = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

// TestMain keeps the tests off the person's trust store: HOME and
// XDG_CONFIG_HOME are a temporary directory.
func TestMain(m *testing.M) { os.Exit(testhome.Run(m.Run)) }

// project is a workspace served by one server, to which tests connect
// clients.
type project struct {
	t      *testing.T
	dir    string // the project directory
	ws     string // its feature directory
	server *sdk.Server
}

func newProject(t *testing.T) *project {
	return newProjectAt(t, func(dir string) mdstore.Locator { return mdstore.Locator{Root: dir} })
}

// newProjectAt is newProject with the workspace that locator finds in
// the project directory.
func newProjectAt(t *testing.T, locator func(dir string) mdstore.Locator) *project {
	t.Helper()
	dir := t.TempDir()
	ws, err := mdstore.Init(locator(dir), "pay", clock)
	if err != nil {
		t.Fatal(err)
	}
	p := &project{t: t, dir: dir, ws: ws.Dir}
	p.server = mcp.New(mcp.Options{
		Open: func() (*engine.Engine, error) {
			ws, err := mdstore.Find(locator(dir))
			if err != nil {
				return nil, err
			}
			return engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "")
		},
		Describe: func(cmd string, err error) mcp.Failure {
			return mcp.Failure{Line: "devrites-engine: " + cmd + ": " + err.Error(), Kind: engine.KindOf(err), Code: 99}
		},
		Version: "test",
	})
	return p
}

// trusted writes a file of .devrites and trusts it, as a person on this
// machine would: the hook it names runs, the gates it allows auto-pick.
func (p *project) trusted(rel, text string) {
	p.t.Helper()
	path := filepath.Join(p.dir, rel)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
	testhome.Trust(p.t, path)
}

// connect connects a client named name; handler, when not nil, answers
// its forms (the client declares elicitation).
func (p *project) connect(name string, handler func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error), progress chan<- string) *sdk.ClientSession {
	return p.connectAt("", name, handler, progress)
}

// connectAt is connect with the protocol version the client asks for
// ("": the latest).
func (p *project) connectAt(version, name string, handler func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error), progress chan<- string) *sdk.ClientSession {
	p.t.Helper()
	opts := &sdk.ClientOptions{ElicitationHandler: handler}
	if progress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			progress <- r.Params.Message
		}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, opts)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := p.server.Connect(context.Background(), st, nil)
	if err != nil {
		p.t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// files is every file of the project by path, to prove a call wrote nothing.
func (p *project) files() map[string]string {
	p.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		p.t.Fatal(err)
	}
	return out
}

func (p *project) read(name string) string {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.ws, name))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

// call calls a tool that must succeed and decodes its structured result.
func call[T any](t *testing.T, cs *sdk.ClientSession, tool string, args any) T {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", tool, text(res))
	}
	var out T
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, b)
	}
	return out
}

// callErr calls a tool that must fail with a tool error, and returns its text.
func callErr(t *testing.T, cs *sdk.ClientSession, tool string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: a protocol error, want a tool error: %v", tool, err)
	}
	if !res.IsError {
		t.Fatalf("%s: succeeded, want a tool error: %s", tool, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

var rounding = map[string]any{"gate": "blocking", "slice": "3 — payments", "question": "Which rounding?",
	"options": []string{"Banker's — unbiased", "Half up"}}

// form answers every form with res (or err), counting the forms.
func form(n *atomic.Int32, res *sdk.ElicitResult, err error) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		n.Add(1)
		return res, err
	}
}

func TestToolsListed(t *testing.T) {
	cs := newProject(t).connect("lister", nil, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"check", "get_question", "get_state", "list_questions", "raise_question", "relay_answer", "wait_for_answer"}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
		if a := tool.Annotations; tool.Name == "relay_answer" && (a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint) {
			t.Errorf("relay_answer: annotations %+v, want destructive so that clients ask the person first", a)
		}
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: description %q, input schema %v, output schema %v: want all three", tool.Name, tool.Description, tool.InputSchema, tool.OutputSchema)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tools %v, want %v", got, want)
	}
}

// TestRaiseWithoutElicitation: a client that declared no elicitation gets
// paused and the resume command; the pause is in state.md, and the notify
// hook fires.
func TestRaiseWithoutElicitation(t *testing.T) {
	p := newProject(t)
	p.trusted(".devrites/notify.yaml", "notify: echo \"$DEVRITES_EVENT $DEVRITES_QID\" >> events.log\n")
	cs := p.connect("plain", nil, nil)
	out := call[mcp.RaiseOutput](t, cs, "raise_question", rounding)
	if out.Outcome != "paused" || out.QID != "q-2026-11-29-001" || out.Resume != `devrites-engine state resolve q-2026-11-29-001 "<answer>"` || out.Asked != "" {
		t.Errorf("got %+v; want paused q-2026-11-29-001 with the resume command, nothing asked", out)
	}
	if !strings.Contains(p.read("state.md"), "| status | awaiting_human |") {
		t.Errorf("state.md does not await:\n%s", p.read("state.md"))
	}
	if b, _ := os.ReadFile(filepath.Join(p.dir, "events.log")); string(b) != "raised q-2026-11-29-001\n" {
		t.Errorf("notify: got %q, want one raised event", b)
	}
	st := call[mcp.CheckOutput](t, cs, "check", map[string]any{})
	if st.Verdict != "stop" || !strings.Contains(st.Reason, "awaiting a human on q-2026-11-29-001") {
		t.Errorf("check: %+v; want stop, awaiting", st)
	}
}

// TestElicitation: each answer of the form, and what the question and the
// pause become, for a client of the latest protocol (the form comes back
// with the call again: multi round-trip requests) and one of 2025-11-25
// (the server asks during the call).
func TestElicitation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		res      *sdk.ElicitResult
		err      error
		outcome  string
		asked    string
		fields   map[string]string // of the question block afterwards
		awaiting bool              // state.md still awaits it
	}{
		{name: "accept option", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "2", "name": "alice"}},
			outcome: "answered", asked: "accepted",
			fields: map[string]string{"status": "answered", "choice": "2", "answer": "Half up", "answered_by": "alice", "answered_via": "elicitation"}},
		{name: "accept without a name", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "1"}},
			outcome: "answered", asked: "accepted",
			fields: map[string]string{"status": "answered", "choice": "1", "answered_by": "formclient", "answered_via": "elicitation"}},
		{name: "accept escape hatch", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "3", "text": "round to the cent, half even"}},
			outcome: "answered", asked: "accepted",
			fields: map[string]string{"status": "answered", "answer": "round to the cent, half even", "answered_via": "elicitation"}},
		{name: "accept reject", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "reject", "text": "split refunds out"}},
			outcome: "rejected", asked: "accepted",
			fields: map[string]string{"status": "rejected", "answer": "split refunds out", "answered_via": "elicitation"}},
		{name: "accept drop", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "drop", "text": "not needed"}},
			outcome: "dropped", asked: "accepted", fields: map[string]string{"status": "dropped", "answer": "not needed"}},
		{name: "a name of two lines", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "1", "name": "eve\nstatus: answered"}},
			outcome: "answered", asked: "accepted", fields: map[string]string{"status": "answered", "answered_by": "eve status: answered"}},
		{name: "decline", res: &sdk.ElicitResult{Action: "decline"}, outcome: "rejected", asked: "declined",
			fields: map[string]string{"status": "rejected", "answer": "declined in formclient: the person did not approve", "answered_by": "formclient"}},
		{name: "cancel", res: &sdk.ElicitResult{Action: "cancel"}, outcome: "paused", asked: "cancelled: ", awaiting: true,
			fields: map[string]string{"status": "open"}},
		{name: "empty form", res: &sdk.ElicitResult{Action: "accept"}, outcome: "paused", asked: "empty: no decision", awaiting: true,
			fields: map[string]string{"status": "open"}},
		{name: "reject without a reason", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "reject", "text": "  "}},
			outcome: "paused", asked: "empty: reject needs a reason", awaiting: true, fields: map[string]string{"status": "open"}},
		{name: "escape hatch without words", res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "3"}},
			outcome: "paused", asked: "empty: \"Something else", awaiting: true, fields: map[string]string{"status": "open"}},
		{name: "client error", err: errors.New("the form could not be shown"), outcome: "paused", asked: "failed: ", awaiting: true,
			fields: map[string]string{"status": "open"}},
	} {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(tc.name+"/"+cmp.Or(version, "latest"), func(t *testing.T) {
				p := newProject(t)
				var forms atomic.Int32
				cs := p.connectAt(version, "formclient", form(&forms, tc.res, tc.err), nil)
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "raise_question", Arguments: rounding})
				var out mcp.RaiseOutput
				switch {
				case err != nil && tc.err != nil && version == "":
					// The client's own form failed before it could call
					// again: the call fails, and the question stays open.
					out.QID = "q-2026-11-29-001"
				case err != nil || res.IsError:
					t.Fatalf("raise: %v %v", err, res)
				default:
					b, _ := json.Marshal(res.StructuredContent)
					json.Unmarshal(b, &out)
					if out.Outcome != tc.outcome || !strings.HasPrefix(out.Asked, tc.asked) {
						t.Errorf("outcome %q, asked %q; want %q, %q…", out.Outcome, out.Asked, tc.outcome, tc.asked)
					}
					if (out.Resume != "") != tc.awaiting {
						t.Errorf("resume %q, outcome %s", out.Resume, out.Outcome)
					}
				}
				if forms.Load() != 1 {
					t.Errorf("%d forms shown, want 1", forms.Load())
				}
				b := mdstore.ParseQuestions([]byte(p.read("questions.md"))).Find(out.QID)
				for k, want := range tc.fields {
					if got := b.Value(k); got != want {
						t.Errorf("%s: got %q, want %q", k, got, want)
					}
				}
				if awaiting := strings.Contains(p.read("state.md"), "| status | awaiting_human |"); awaiting != tc.awaiting {
					t.Errorf("state.md awaiting: %v, want %v", awaiting, tc.awaiting)
				}
				if via := b.Value("answered_via"); via != "" && !strings.Contains(p.read("decisions.md"), "answered_via: "+via) {
					t.Errorf("decisions.md lacks answered_via: %s:\n%s", via, p.read("decisions.md"))
				}
				if tc.outcome == "rejected" && !strings.Contains(out.NextAction, "reslice --feedback "+out.QID) {
					t.Errorf("next_action %q after a rejection, want the re-scope command", out.NextAction)
				}
			})
		}
	}
}

// TestElicitationStateForged: a call again whose request state this server
// did not make (another run's, or made up) is refused and resolves nothing.
func TestElicitationStateForged(t *testing.T) {
	p := newProject(t)
	cs := p.connect("plain", nil, nil)
	id := call[mcp.RaiseOutput](t, cs, "raise_question", rounding).QID
	before := p.files()
	params := &sdk.CallToolParams{Name: "raise_question", Arguments: rounding, RequestState: id + ".00",
		InputResponses: sdk.InputResponseMap{"decision": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "1"}}}}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || !res.IsError || !strings.Contains(text(res), "the form's request state is not one this server made") {
		t.Errorf("got %v, %v; want a tool error", err, res)
	}
	if after := p.files(); !maps.Equal(before, after) {
		t.Error("files changed")
	}
}

// TestElicitationForm: the form shows the options, the recommended first
// and marked, the escape hatch, reject and drop, and asks for words and a
// name; its message is the question without the command line's resolve line.
func TestElicitationForm(t *testing.T) {
	p := newProject(t)
	var seen *sdk.ElicitParams
	cs := p.connect("formclient", func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		seen = r.Params
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}, nil)
	call[mcp.RaiseOutput](t, cs, "raise_question", rounding)
	if seen == nil {
		t.Fatal("no form")
	}
	if !strings.HasPrefix(seen.Message, "Slice 3 — payments — HITL (blocking, SLA 15m). Which rounding?\n▸ 1. Banker's (Recommended) — unbiased\n") ||
		strings.Contains(seen.Message, "resolve:") {
		t.Errorf("message %q", seen.Message)
	}
	b, _ := json.Marshal(seen.RequestedSchema)
	var schema struct {
		Properties map[string]struct {
			OneOf []struct{ Const, Title string }
		}
		Required []string
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range schema.Properties["decision"].OneOf {
		titles = append(titles, c.Const+"="+c.Title)
	}
	want := "1=1. Banker's (Recommended) — unbiased|2=2. Half up|3=3. Something else — I'll describe it|" +
		"reject=Reject: send it back to be re-scoped (say why below)|drop=Drop: not needed (say why below)"
	if strings.Join(titles, "|") != want {
		t.Errorf("choices:\n%s\nwant\n%s", strings.Join(titles, "|"), want)
	}
	if _, ok := schema.Properties["text"]; !ok || strings.Join(schema.Required, ",") != "decision" {
		t.Errorf("schema %s: want a text field and decision required", b)
	}
}

// TestAFKFirst: what the AFK policy decides is never asked: an allowed
// advisory gate is auto-picked, an allowed validating one is provisional;
// a gate it does not allow is asked.
func TestAFKFirst(t *testing.T) {
	p := newProject(t)
	p.trusted(".devrites/AFK", "allow_gates: [advisory, validating]\n")
	var forms atomic.Int32
	cs := p.connect("formclient", form(&forms, &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "2"}}, nil), nil)
	for gate, want := range map[string]string{"advisory": "auto-picked", "validating": "provisional"} {
		out := call[mcp.RaiseOutput](t, cs, "raise_question", map[string]any{"gate": gate, "question": "Log format?", "options": []string{"JSON", "text"}})
		if out.Outcome != want {
			t.Errorf("%s: outcome %s, want %s", gate, out.Outcome, want)
		}
	}
	if n := forms.Load(); n != 0 {
		t.Errorf("%d forms shown for questions AFK decided, want 0", n)
	}
	out := call[mcp.RaiseOutput](t, cs, "raise_question", rounding)
	if out.Outcome != "answered" || forms.Load() != 1 {
		t.Errorf("blocking under AFK: outcome %s after %d forms; want answered after 1", out.Outcome, forms.Load())
	}
}

// TestBadArgumentsWriteNothing: arguments the schema or the engine refuses
// are tool errors with the command line's decisive line and kind, and no
// file changes; the server goes on serving.
func TestBadArgumentsWriteNothing(t *testing.T) {
	p := newProject(t)
	var forms atomic.Int32
	cs := p.connect("formclient", form(&forms, &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "1"}}, nil), nil)
	id := call[mcp.RaiseOutput](t, p.connect("plain", nil, nil), "raise_question", rounding).QID
	before := p.files()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"raise_question", map[string]any{"gate": "sometimes", "question": "Q?", "options": []string{"A"}}, `validating "arguments"`},
		{"raise_question", map[string]any{"gate": "advisory", "question": "Q?", "options": []string{"A", "B", "C", "D"}},
			"devrites-engine: question raise: 4 options given\nkind: bad-arguments"},
		{"raise_question", map[string]any{"gate": "blocking", "question": "Another?", "options": []string{"A"}},
			"devrites-engine: question raise: " + id + " is still awaiting a human\nkind: paused"},
		{"raise_question", map[string]any{"gate": "advisory", "question": "   ", "options": []string{"A"}}, "no question text"},
		{"relay_answer", map[string]any{"qid": id, "text": " \t"}, "devrites-engine: state resolve: " + id + ": empty answer\nkind: bad-arguments"},
		{"relay_answer", map[string]any{"qid": id, "choice": 7}, "option 7 does not exist"},
		{"relay_answer", map[string]any{"qid": id, "choice": 1, "text": "yes"}, "both choice 1 and text"},
		{"relay_answer", map[string]any{"qid": id, "action": "reject", "choice": 1}, "only an answer picks an option"},
		{"relay_answer", map[string]any{"qid": id, "action": "maybe", "text": "x"}, `validating "arguments"`},
		{"relay_answer", map[string]any{"qid": "q-2026-11-29-042", "text": "yes"}, "q-2026-11-29-042: unknown qid\nkind: unknown-qid"},
		{"get_question", map[string]any{"qid": "42"}, "devrites-engine: questions show: \"42\" is not a question id"},
		{"list_questions", map[string]any{"status": "closed"}, `validating "arguments"`},
		{"wait_for_answer", map[string]any{"qid": id, "timeout_seconds": -1}, "timeout_seconds -1 is not between"},
		{"raise_question", map[string]any{"gate": "advisory", "question": "Q?", "options": []string{"A"}, "paths": []string{"src"}},
			`devrites-engine: question raise: session "" is not 1 to 128 letters`},
		{"raise_question", map[string]any{"gate": "advisory", "question": "Q?", "options": []string{"A"}, "paths": []string{"../x"}, "session": "me"},
			"devrites-engine: question raise: "},
	} {
		if got := callErr(t, cs, tc.tool, tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: got %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	if forms.Load() != 0 {
		t.Errorf("%d forms shown for refused raises", forms.Load())
	}
	after := p.files()
	for path, b := range before {
		if after[path] != b {
			t.Errorf("%s changed:\n%s", path, after[path])
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d files before, %d after", len(before), len(after))
	}
	if got := call[mcp.CheckOutput](t, cs, "check", nil); got.Verdict != "stop" {
		t.Errorf("check after the errors: %+v", got)
	}
}

// TestRaiseClaimCheck: a raise for work on paths another session holds live
// is refused, naming the owner, and writes nothing; the session's own
// claims, and paths nobody holds, let it through.
func TestRaiseClaimCheck(t *testing.T) {
	p := newProject(t)
	devrites := filepath.Join(p.dir, ".devrites")
	store := claims.Store{Dir: devrites, LockTimeout: time.Second, Now: func() time.Time { return clock }}
	if _, err := store.Add(context.Background(), claims.AddRequest{Session: "other", Paths: []string{"pay"}, Reason: "rounding work", TTL: 60}); err != nil {
		t.Fatal(err)
	}
	cs := p.connect("plain", nil, nil)
	before := p.files()
	advisory := func(paths ...string) map[string]any {
		return map[string]any{"gate": "advisory", "question": "CSV?", "options": []string{"CSV"}, "session": "me", "paths": paths}
	}
	got := callErr(t, cs, "raise_question", advisory("pay/round.go"))
	if want := `devrites-engine: question raise: pay/round.go is held by session "other" until`; !strings.Contains(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	after := p.files()
	for path, b := range before {
		if after[path] != b {
			t.Errorf("%s changed by a refused raise:\n%s", path, after[path])
		}
	}
	mine := advisory("pay/round.go", "docs")
	mine["session"] = "other"
	if out := call[mcp.RaiseOutput](t, cs, "raise_question", mine); out.QID == "" || out.Outcome != "paused" {
		t.Errorf("a raise on the session's own claim and a path nobody holds: %+v, want it paused", out)
	}
}

// TestRaiseClaimCheckOutsideDevrites: a workspace outside any .devrites
// directory has no claims file, so a raise with paths is refused, clearly;
// no claims.jsonl of the server's working directory is read or written.
func TestRaiseClaimCheckOutsideDevrites(t *testing.T) {
	p := newProjectAt(t, func(dir string) mdstore.Locator { return mdstore.Locator{Workspace: filepath.Join(dir, "pay")} })
	cwd := t.TempDir()
	t.Chdir(cwd)
	cs := p.connect("plain", nil, nil)
	before := p.files()
	got := callErr(t, cs, "raise_question", map[string]any{"gate": "advisory", "question": "CSV?", "options": []string{"CSV"},
		"session": "me", "paths": []string{"pay"}})
	if want := "devrites-engine: question raise: no .devrites directory to read claims.jsonl from: a feature directory outside .devrites has no claims\nkind: no-workspace"; !strings.Contains(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := os.Lstat(filepath.Join(cwd, claims.File)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s in the working directory: %v", claims.File, err)
	}
	if after := p.files(); !maps.Equal(before, after) {
		t.Error("files changed by a refused raise")
	}
}

// TestRaiseClaimCheckProblems: lines of the claims file that do not read
// are skipped, and the raise's warnings say so, as the command line's do.
func TestRaiseClaimCheckProblems(t *testing.T) {
	p := newProject(t)
	if err := os.WriteFile(filepath.Join(p.dir, ".devrites", claims.File), []byte("not json\n{\"id\":\"cl-1\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := call[mcp.RaiseOutput](t, p.connect("plain", nil, nil), "raise_question", map[string]any{"gate": "advisory",
		"question": "CSV?", "options": []string{"CSV"}, "session": "me", "paths": []string{"pay"}})
	want := ".devrites/claims.jsonl: 2 unreadable lines skipped (first at line 1: not a JSON object); see: devrites-engine doctor"
	if out.Outcome != "paused" || !slices.Contains(out.Warnings, want) {
		t.Errorf("got %+v, want paused with the warning %q", out, want)
	}
}

// TestRelayAnswer: the person's words relayed by the agent are recorded
// with answered_via agent, and shown so by get_question.
func TestRelayAnswer(t *testing.T) {
	p := newProject(t)
	cs := p.connect("plain", nil, nil)
	id := call[mcp.RaiseOutput](t, cs, "raise_question", rounding).QID
	out := call[mcp.RelayOutput](t, cs, "relay_answer", map[string]any{"qid": id, "choice": 2, "by": "bob"})
	if out.Status != "answered" || out.Question.AnsweredVia != "agent" || out.Question.AnsweredBy != "bob" || *out.Question.Choice != 2 {
		t.Errorf("got %+v; want answered option 2 by bob via agent", out)
	}
	if !strings.HasPrefix(out.NextAction, "/rite-") || strings.Contains(out.NextAction, "reslice") {
		t.Errorf("next_action %q, want the continue command", out.NextAction)
	}
	q := call[mcp.QuestionOutput](t, cs, "get_question", map[string]any{"qid": id})
	if !strings.Contains(q.Text, "by bob via agent at 2026-11-29T14:02:11Z") {
		t.Errorf("get_question text:\n%s", q.Text)
	}
	if !strings.Contains(p.read("decisions.md"), "answered_via: agent") {
		t.Errorf("decisions.md:\n%s", p.read("decisions.md"))
	}
	id2 := call[mcp.RaiseOutput](t, cs, "raise_question", map[string]any{"gate": "blocking", "question": "Scope?", "options": []string{"All"}}).QID
	rej := call[mcp.RelayOutput](t, cs, "relay_answer", map[string]any{"qid": id2, "action": "reject", "text": "too broad, split it"})
	if rej.Status != "rejected" || !strings.Contains(rej.NextAction, "reslice --feedback "+id2) {
		t.Errorf("reject: %+v", rej)
	}
	if got := call[mcp.CheckOutput](t, cs, "check", map[string]any{"seal": true}); got.Verdict != "proceed" {
		t.Errorf("check --seal after every question was resolved: %+v", got)
	}
}

// TestReadTools: get_state, list_questions, get_question and check read
// what the files hold.
func TestReadTools(t *testing.T) {
	p := newProject(t)
	p.trusted(".devrites/AFK", "allow_gates: [validating]\n")
	cs := p.connect("plain", nil, nil)
	prov := call[mcp.RaiseOutput](t, cs, "raise_question", map[string]any{"gate": "validating", "question": "Weekly?", "options": []string{"Weekly", "Monthly"}})
	st := call[mcp.StateOutput](t, cs, "get_state", nil)
	if st.Slug != "pay" || st.Cursor["status"] != "running" || st.Awaiting != nil || len(st.Open) != 1 {
		t.Errorf("get_state: %+v", st)
	}
	if c := call[mcp.CheckOutput](t, cs, "check", nil); c.Verdict != "proceed" {
		t.Errorf("check: %+v", c)
	}
	if c := call[mcp.CheckOutput](t, cs, "check", map[string]any{"seal": true}); c.Verdict != "stop" || len(c.Open) != 1 {
		t.Errorf("check seal with a provisional question open: %+v", c)
	}
	paused := call[mcp.RaiseOutput](t, cs, "raise_question", rounding)
	st = call[mcp.StateOutput](t, cs, "get_state", nil)
	if st.Awaiting["question_id"] != paused.QID {
		t.Errorf("get_state awaiting %v, want %s", st.Awaiting, paused.QID)
	}
	l := call[mcp.ListOutput](t, cs, "list_questions", map[string]any{"awaited": true})
	if len(l.Questions) != 1 || l.Questions[0].QID != paused.QID {
		t.Errorf("list awaited: %+v", l)
	}
	if l := call[mcp.ListOutput](t, cs, "list_questions", map[string]any{"gate": "validating"}); len(l.Questions) != 1 || l.Questions[0].QID != prov.QID {
		t.Errorf("list validating: %+v", l)
	}
	if l := call[mcp.ListOutput](t, cs, "list_questions", map[string]any{"status": "answered"}); len(l.Questions) != 0 {
		t.Errorf("list answered: %+v", l)
	}
}

// TestWaitForAnswer: a wait ends with the answer another client relays,
// reports each response to a routed question as progress, says still open
// at its timeout, and ends when the call is cancelled, the server serving
// on.
func TestWaitForAnswer(t *testing.T) {
	p := newProject(t)
	progress := make(chan string, 16)
	agent := p.connect("agent", nil, progress)
	person := p.connect("person", nil, nil)
	id := call[mcp.RaiseOutput](t, agent, "raise_question", map[string]any{"gate": "blocking", "question": "Ship it?",
		"options": []string{"Yes", "No"}, "route": []string{"alice", "bob"}, "strategy": "collect-all"}).QID

	still := call[mcp.WaitOutput](t, agent, "wait_for_answer", map[string]any{"timeout_seconds": 0.2})
	if still.Result != "still open" || still.QID != id || still.Resume == "" {
		t.Errorf("at the timeout: %+v", still)
	}

	done := make(chan mcp.WaitOutput, 1)
	go func() {
		params := &sdk.CallToolParams{Name: "wait_for_answer", Arguments: map[string]any{"qid": id, "timeout_seconds": 30}}
		params.SetProgressToken("w1")
		res, err := agent.CallTool(context.Background(), params)
		var out mcp.WaitOutput
		if err == nil && !res.IsError {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
		}
		done <- out
	}()
	time.Sleep(100 * time.Millisecond) // the wait is watching
	call[mcp.RelayOutput](t, person, "relay_answer", map[string]any{"qid": id, "choice": 1, "by": "alice"})
	select {
	case msg := <-progress:
		if !strings.Contains(msg, id+" still open: 1 of 2 responded; waiting for bob") {
			t.Errorf("progress %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification after a response")
	}
	call[mcp.RelayOutput](t, person, "relay_answer", map[string]any{"qid": id, "choice": 1, "by": "bob"})
	select {
	case out := <-done:
		if out.Result != "final" || out.Status != "answered" || out.Question.AnsweredVia != "agent" {
			t.Errorf("final: %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end with the answer")
	}

	id2 := call[mcp.RaiseOutput](t, agent, "raise_question", map[string]any{"gate": "blocking", "question": "Again?", "options": []string{"Yes"}}).QID
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := agent.CallTool(ctx, &sdk.CallToolParams{Name: "wait_for_answer", Arguments: map[string]any{"qid": id2, "timeout_seconds": 60}}); err == nil {
		t.Error("a cancelled wait returned no error")
	}
	if got := call[mcp.QuestionOutput](t, agent, "get_question", map[string]any{"qid": id2}); got.Question.Status != "open" {
		t.Errorf("after a cancelled wait: %+v", got.Question)
	}
}

// TestTwoClients: two clients on one workspace at once: both raise, one
// holds the pause and the other is refused with the awaited qid; a form on
// one client resolves the pause the other waits on.
func TestTwoClients(t *testing.T) {
	p := newProject(t)
	var forms atomic.Int32
	release := make(chan struct{})
	asker := p.connect("asker", func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		forms.Add(1)
		<-release
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "2", "name": "carol"}}, nil
	}, nil)
	other := p.connect("other", nil, nil)
	raised := make(chan mcp.RaiseOutput, 1)
	go func() {
		res, err := asker.CallTool(context.Background(), &sdk.CallToolParams{Name: "raise_question", Arguments: rounding})
		var out mcp.RaiseOutput
		if err == nil {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
		}
		raised <- out
	}()
	for forms.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if got := callErr(t, other, "raise_question", map[string]any{"gate": "blocking", "question": "Mine?", "options": []string{"A"}}); !strings.Contains(got, "q-2026-11-29-001 is still awaiting a human") {
		t.Errorf("second pause: %q", got)
	}
	waited := make(chan mcp.WaitOutput, 1)
	go func() {
		res, err := other.CallTool(context.Background(), &sdk.CallToolParams{Name: "wait_for_answer", Arguments: map[string]any{"timeout_seconds": 30}})
		var out mcp.WaitOutput
		if err == nil {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
		}
		waited <- out
	}()
	time.Sleep(100 * time.Millisecond)
	close(release)
	if out := <-raised; out.Outcome != "answered" {
		t.Errorf("raise: %+v", out)
	}
	select {
	case out := <-waited:
		if out.Result != "final" || out.Question.AnsweredBy != "carol" || out.Question.AnsweredVia != "elicitation" {
			t.Errorf("the other client's wait: %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other client's wait did not end")
	}
}

// TestElicitationTimeout: a form left open past its time is not approval:
// the question stays open, the pause holds, outcome paused.
func TestElicitationTimeout(t *testing.T) {
	defer mcp.SetAskTimeout(200 * time.Millisecond)()
	p := newProject(t)
	cs := p.connectAt("2025-11-25", "slowclient", func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		<-ctx.Done() // the person never answers
		return nil, ctx.Err()
	}, nil)
	out := call[mcp.RaiseOutput](t, cs, "raise_question", rounding)
	if out.Outcome != "paused" || !strings.HasPrefix(out.Asked, "failed: ") || out.Question.Status != "open" || out.Resume == "" {
		t.Errorf("got %+v; want paused, the form failed, the question open with its resume command", out)
	}
	if !strings.Contains(p.read("state.md"), "| status | awaiting_human |") {
		t.Error("the pause did not hold")
	}
}
