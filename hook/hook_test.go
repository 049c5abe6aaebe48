package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

var clock = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

const questionText = "Which currency rounding rule?"

// project makes a project in state: none (no workspace), running, paused
// (a blocking question awaited), stopped (blocked), broken (state.md with
// conflict markers) or noactive (a paused workspace and no ACTIVE file).
func project(t *testing.T, state string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil { // the walk up stops here
		t.Fatal(err)
	}
	if state == "none" {
		return dir
	}
	ws, err := mdstore.Init(mdstore.Locator{Dir: dir}, "pay", clock)
	if err != nil {
		t.Fatal(err)
	}
	eng := open(t, ws)
	ctx := context.Background()
	switch state {
	case "paused", "broken", "noactive":
		_, err = eng.Raise(ctx, engine.RaiseRequest{Slice: "3 — payments", Gate: "blocking", Question: questionText,
			Options: []string{"Banker's rounding — unbiased", "Round half up — simpler"}}, "")
	case "stopped":
		_, err = eng.Stop(ctx, engine.StopRequest{Status: engine.CursorBlocked, Reason: "waiting for legal", Resume: "/rite-build"})
	}
	if err != nil {
		t.Fatal(err)
	}
	switch state {
	case "broken":
		p := filepath.Join(ws.Dir, "state.md")
		b, _ := os.ReadFile(p)
		err = os.WriteFile(p, append([]byte("<<<<<<< HEAD\n"), b...), 0o644)
	case "noactive":
		err = os.Remove(filepath.Join(dir, ".devrites", "ACTIVE"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func open(t *testing.T, ws *mdstore.Workspace) *engine.Engine {
	t.Helper()
	eng, err := engine.Open(ws, func() time.Time { return clock }, 2*time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func testEnv(dir string) Env {
	return Env{
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return dir
			}
			return ""
		},
		Locate: func(d string) mdstore.Locator { return mdstore.Locator{Dir: d} },
		Open: func(ws *mdstore.Workspace) (*engine.Engine, error) {
			return engine.Open(ws, func() time.Time { return clock }, 2*time.Second, "")
		},
		Answerer: func() (string, error) { return "alice", nil },
	}
}

// fixture reads an event of hook/testdata, with $PROJECT made dir.
func fixture(t testing.TB, harness, name, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", harness, name))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "$PROJECT", dir))
}

// verdict reads an output as the harness would: deny, block, context or
// allow (nothing printed, exit 0), with the text shown.
func verdict(t *testing.T, out Output) (string, string) {
	t.Helper()
	if out.Exit == 2 {
		return "deny", out.Stderr
	}
	if out.Exit != 0 {
		t.Fatalf("exit %d: a harness lets the call through", out.Exit)
	}
	if len(out.Stdout) == 0 {
		return "allow", ""
	}
	var v struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		Specific struct {
			Event    string `json:"hookEventName"`
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
			Context  string `json:"additionalContext"`
			Request  *struct {
				Behavior, Message string
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Stdout, &v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.Stdout)
	}
	switch {
	case v.Specific.Decision == "deny":
		return "deny", v.Specific.Reason
	case v.Specific.Request != nil && v.Specific.Request.Behavior == "deny":
		return "deny", v.Specific.Request.Message
	case v.Decision == "block":
		return "block", v.Reason
	case v.Specific.Context != "":
		return "context", v.Specific.Context
	}
	t.Fatalf("unknown output %s", out.Stdout)
	return "", ""
}

func TestEvents(t *testing.T) {
	for _, tc := range []struct {
		harness, fixture, state, want, words string
	}{
		// A paused workspace: reads and the engine's read/wait calls only.
		{"claude-code", "pre-write-src.json", "paused", "deny", "q-2026-11-29-001 awaits the person: \"" + questionText + "\""},
		{"claude-code", "pre-write-src.json", "paused", "deny", "devrites-engine wait"},
		{"claude-code", "pre-bash-test.json", "paused", "deny", "awaits the person"},
		{"claude-code", "pre-read.json", "paused", "allow", ""},
		{"claude-code", "pre-grep.json", "paused", "allow", ""},
		{"claude-code", "pre-bash-state-show.json", "paused", "allow", ""},
		{"claude-code", "pre-bash-wait.json", "paused", "allow", ""},
		{"claude-code", "pre-bash-questions-list.json", "paused", "allow", ""},
		{"claude-code", "pre-mcp-get-state.json", "paused", "allow", ""},
		{"claude-code", "pre-mcp-wait.json", "paused", "allow", ""},
		{"claude-code", "pre-mcp-other.json", "paused", "deny", "awaits the person"},
		{"claude-code", "pre-ask.json", "paused", "allow", ""},
		{"claude-code", "pre-ask.json", "broken", "allow", ""},
		// Stopped: the same, naming the stop.
		{"claude-code", "pre-write-src.json", "stopped", "deny", "blocked: waiting for legal"},
		{"claude-code", "pre-read.json", "stopped", "allow", ""},
		// Running: work goes on; the always-guard still holds.
		{"claude-code", "pre-write-src.json", "running", "allow", ""},
		{"claude-code", "pre-bash-test.json", "running", "allow", ""},
		{"claude-code", "pre-bash-resolve.json", "running", "deny", "refused `state resolve`"},
		{"claude-code", "pre-bash-c-resolve.json", "running", "deny", "refused `state resolve`"},
		{"claude-code", "pre-bash-env-answer.json", "running", "deny", "refused `answer`"},
		{"claude-code", "pre-bash-sh-trust.json", "running", "deny", "refused `trust`"},
		{"claude-code", "pre-bash-rules-add.json", "running", "deny", "refused `rules add`"},
		{"claude-code", "pre-bash-always.json", "running", "deny", "refused `--always`"},
		{"claude-code", "pre-bash-subst-sign.json", "running", "deny", "refused `sign`"},
		{"claude-code", "pre-bash-redirect-devrites.json", "running", "deny", "writes .devrites/work/pay/questions.md"},
		{"claude-code", "pre-edit-questions.json", "running", "deny", "refused an edit of"},
		{"claude-code", "pre-write-decisions-relative.json", "running", "deny", "refused an edit of .devrites/work/pay/decisions.md"},
		{"claude-code", "pre-edit-settings.json", "running", "deny", ".claude/settings.json"},
		{"claude-code", "pre-write-spec.json", "running", "allow", ""}, // DevRites' own files in the feature directory
		{"claude-code", "pre-write-spec.json", "paused", "deny", "awaits the person"},
		{"claude-code", "pre-mcp-relay.json", "running", "deny", "relay_answer"},
		{"claude-code", "pre-bash-resolve.json", "paused", "deny", "refused `state resolve`"},
		// Unreadable: closed; no workspace: open.
		{"claude-code", "pre-write-src.json", "broken", "deny", "cannot be read"},
		{"claude-code", "pre-read.json", "broken", "deny", "cannot be read"},
		{"claude-code", "pre-write-src.json", "none", "allow", ""},
		{"claude-code", "pre-bash-resolve.json", "none", "allow", ""},
		{"claude-code", "pre-edit-questions.json", "none", "allow", ""},
		{"claude-code", "pre-write-src.json", "noactive", "deny", "awaits the person"},
		// Prompts and sessions.
		{"claude-code", "prompt-other.json", "paused", "allow", ""},
		{"claude-code", "prompt-answer-2.json", "running", "allow", ""},
		{"claude-code", "prompt-answer-7.json", "paused", "block", "nothing was recorded"},
		{"claude-code", "prompt-answer-2.json", "broken", "block", "cannot be read"},
		{"claude-code", "session-start.json", "paused", "context", "answer 2 | answer: <words>"},
		{"claude-code", "session-start.json", "running", "allow", ""},
		{"claude-code", "session-start.json", "none", "allow", ""},
		// Codex.
		{"codex", "pre-bash-test.json", "paused", "deny", "awaits the person"},
		{"codex", "pre-bash-cat.json", "paused", "allow", ""},
		{"codex", "pre-bash-state-check.json", "paused", "allow", ""},
		{"codex", "pre-bash-test.json", "running", "allow", ""},
		{"codex", "pre-bash-c-resolve.json", "running", "deny", "refused `state resolve`"},
		{"codex", "pre-patch-src.json", "paused", "deny", "awaits the person"},
		{"codex", "pre-patch-src.json", "running", "allow", ""},
		{"codex", "pre-patch-questions.json", "running", "deny", "refused an edit of .devrites/work/pay/questions.md"},
		{"codex", "pre-patch-hooks.json", "running", "deny", "refused an edit of .codex/hooks.json"},
		{"codex", "pre-mcp-relay.json", "running", "deny", "relay_answer"},
		{"codex", "permission-request.json", "paused", "deny", "awaits the person"},
		{"codex", "permission-request.json", "running", "allow", ""},
		{"codex", "pre-bash-test.json", "broken", "deny", "cannot be read"},
		{"codex", "pre-bash-test.json", "none", "allow", ""},
		{"codex", "prompt-other.json", "paused", "allow", ""},
		{"codex", "session-start.json", "paused", "context", "q-2026-11-29-001 awaits the person"},
		{"codex", "session-start.json", "stopped", "context", "blocked: waiting for legal"},
	} {
		t.Run(tc.harness+"/"+tc.state+"/"+tc.fixture, func(t *testing.T) {
			dir := project(t, tc.state)
			before := snapshot(t, dir)
			out := Handle(context.Background(), Harnesses[tc.harness], fixture(t, tc.harness, tc.fixture, dir), testEnv(dir))
			got, words := verdict(t, out)
			if got != tc.want || !strings.Contains(words, tc.words) {
				t.Errorf("got %s %q, want %s with %q", got, words, tc.want, tc.words)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the workspace changed:\n%s", after)
			}
		})
	}
}

// snapshot is every workspace file's text.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(filepath.Join(dir, ".devrites"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".lock") {
			c, _ := os.ReadFile(p)
			b.WriteString(p + "\n" + string(c))
		}
		return nil
	})
	return b.String()
}

func TestChatAnswerRecorded(t *testing.T) {
	for _, tc := range []struct {
		harness, fixture string
		want             []string // lines of the question's block after the answer
	}{
		{"claude-code", "prompt-answer-2.json", []string{"status: answered", "answer: Round half up", "choice: 2", "answered_by: alice", "answered_via: chat"}},
		{"codex", "prompt-answer-2.json", []string{"status: answered", "choice: 2", "answered_via: chat"}},
		{"claude-code", "prompt-answer-words.json", []string{"answer: |-", `    use the ledger's rule, "not" the bank's`, "    and round per line", "answered_via: chat"}},
		{"claude-code", "prompt-reject.json", []string{"status: rejected", "answer: split it into two questions", "answered_via: chat"}},
		{"codex", "prompt-reject.json", []string{"status: rejected", "answer: split it"}},
		{"claude-code", "prompt-drop.json", []string{"status: dropped", "answer: not needed any more"}},
		{"claude-code", "prompt-answer-qid.json", []string{"status: answered", "answer: Banker's rounding", "choice: 1"}},
		{"claude-code", "post-ask.json", []string{"status: answered", "answer: Round half up", "answered_via: chat", "answered_by: alice"}},
	} {
		t.Run(tc.harness+"/"+tc.fixture, func(t *testing.T) {
			dir := project(t, "paused")
			out := Handle(context.Background(), Harnesses[tc.harness], fixture(t, tc.harness, tc.fixture, dir), testEnv(dir))
			got, words := verdict(t, out)
			if got != "context" || !strings.Contains(words, "q-2026-11-29-001") || !strings.Contains(words, "Do not record it again") {
				t.Errorf("got %s %q, want the model told what was recorded", got, words)
			}
			for _, file := range []string{"questions.md", "decisions.md"} {
				b, err := os.ReadFile(filepath.Join(dir, ".devrites", "work", "pay", file))
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range tc.want {
					if strings.HasPrefix(line, "status:") && file == "decisions.md" {
						continue
					}
					if !strings.Contains(string(b), "\n"+line+"\n") {
						t.Errorf("%s lacks %q:\n%s", file, line, b)
					}
				}
			}
		})
	}
}

// The person's pick in the question tool is the record: an agent's later
// differing answer is a conflict, the same one again changes nothing.
func TestAskedThenAgentDiffers(t *testing.T) {
	dir := project(t, "paused")
	Handle(context.Background(), claude{}, fixture(t, "claude-code", "post-ask.json", dir), testEnv(dir))
	ws, err := mdstore.Find(mdstore.Locator{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	eng := open(t, ws)
	_, err = eng.Resolve(context.Background(), []engine.Resolution{{QID: "q-2026-11-29-001", Kind: question.StatusAnswered, Text: "Banker's rounding"}}, "agent")
	if engine.KindOf(err) != "conflict" && engine.KindOf(err) != "not-open" {
		t.Errorf("got %v (%s), want a refusal", err, engine.KindOf(err))
	}
}

func TestUnreadableEvent(t *testing.T) {
	dir := project(t, "running")
	for _, in := range []string{"", "{", `{"tool_name":"Write"}`} {
		out := Handle(context.Background(), claude{}, []byte(in), testEnv(dir))
		if out.Exit != 2 || !strings.Contains(out.Stderr, "refused") {
			t.Errorf("%q: got exit %d %q, want exit 2 with a reason", in, out.Exit, out.Stderr)
		}
	}
}
