package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/internal/testhome"
)

// mcpSession starts `devrites-engine mcp` in project dir as its own process
// and connects a client to it over stdio.
func mcpSession(t testing.TB, dir string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	cmd := engineCmd(dir, "mcp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v: %s", err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("the server wrote to stderr: %s", stderr.String())
		}
	})
	return cs
}

func callTool(t testing.TB, cs *sdk.ClientSession, name string, args any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		return nil, text
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	return out, ""
}

// TestMCPStdio: devrites-engine mcp over stdio, as a harness starts it in
// the project: a raise pauses; a refused raise is a tool error whose first
// line is the command line's decisive line, with its kind and exit code;
// the agent relays the person's answer, and a wait sees it.
func TestMCPStdio(t *testing.T) {
	dir, ws := newProject(t)
	cs := mcpSession(t, dir, nil)
	out, errText := callTool(t, cs, "raise_question", map[string]any{"gate": "blocking", "question": "Which rounding?", "options": []string{"Banker's", "Half up"}})
	if errText != "" || out["outcome"] != "paused" || out["resume"] != `devrites-engine state resolve q-2026-11-29-001 "<answer>"` {
		t.Fatalf("raise: %v %s", out, errText)
	}
	before, _ := os.ReadFile(filepath.Join(ws, "questions.md"))
	_, errText = callTool(t, cs, "raise_question", map[string]any{"gate": "advisory", "question": "Q?", "options": []string{"A", "B", "C", "D"}})
	want := "devrites-engine: question raise: 4 options given\nkind: bad-arguments (exit 7)\nhint: give 1 to 3 --option"
	if !strings.HasPrefix(errText, want) {
		t.Errorf("tool error:\n%s\nwant it to start\n%s", errText, want)
	}
	_, errText = callTool(t, cs, "get_question", map[string]any{"qid": "q-2026-11-29-042"})
	if want := "devrites-engine: questions show: q-2026-11-29-042: unknown qid\nkind: unknown-qid (exit 4)\nhint: list the questions: devrites-engine questions list --status all"; errText != want {
		t.Errorf("tool error:\n%s\nwant\n%s", errText, want)
	}
	if after, _ := os.ReadFile(filepath.Join(ws, "questions.md")); string(after) != string(before) {
		t.Error("a refused raise changed questions.md")
	}
	if out, _ := callTool(t, cs, "relay_answer", map[string]any{"qid": "q-2026-11-29-001", "text": "Half up", "by": "alice"}); out["status"] != "answered" {
		t.Errorf("relay: %v", out)
	}
	out, _ = callTool(t, cs, "wait_for_answer", map[string]any{"qid": "q-2026-11-29-001"})
	q, _ := out["question"].(map[string]any)
	if out["result"] != "final" || q["answered_via"] != "agent" || q["answered_by"] != "alice" || q["answer"] != "Half up" {
		t.Errorf("wait: %v", out)
	}
	if r := runEngine(dir, "questions", "show", "q-2026-11-29-001"); !strings.Contains(r.stdout, "by alice via agent at "+testNow) {
		t.Errorf("questions show:\n%s", r.stdout)
	}
}

// BenchmarkRaiseMCP is one raise_question round trip over stdio to a
// running devrites-engine mcp (an advisory question that AFK auto-picks,
// so that each raise writes and none pauses); BenchmarkRaiseCLI is the
// same raise as one `question raise` process.
func BenchmarkRaiseMCP(b *testing.B) {
	dir := afkProject(b)
	cs := mcpSession(b, dir, nil)
	args := map[string]any{"gate": "advisory", "question": "Log format?", "options": []string{"JSON", "text"}}
	for b.Loop() {
		if out, errText := callTool(b, cs, "raise_question", args); out["outcome"] != "auto-picked" {
			b.Fatalf("%v %s", out, errText)
		}
	}
}

func BenchmarkRaiseCLI(b *testing.B) {
	dir := afkProject(b)
	for b.Loop() {
		if r := runEngine(dir, "question", "raise", "--gate", "advisory", "--question", "Log format?", "--option", "JSON", "--option", "text"); r.code != 0 {
			b.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
}

func afkProject(b *testing.B) string {
	dir := b.TempDir()
	if r := runEngine(dir, "init", "pay"); r.code != 0 {
		b.Fatal(r.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, ".devrites", "AFK"), []byte("allow_gates: [advisory]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	// Written into the store as a setup script does: trust needs a terminal.
	testhome.Trust(b, filepath.Join(dir, ".devrites", "AFK"))
	return dir
}

// TestMCPListen: mcp --listen prints its address and a token made for the
// run (another at each start); a request without it is 401; SIGINT stops
// the server, exit 0.
func TestMCPListen(t *testing.T) {
	dir, _ := newProject(t)
	var tokens []string
	for range 2 {
		cmd := engineCmd(dir, "mcp", "--listen", "127.0.0.1:0")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		var url, token string
		for lines.Scan() && token == "" {
			if u, ok := strings.CutPrefix(lines.Text(), "serving MCP on "); ok {
				url = u
			}
			if tk, ok := strings.CutPrefix(lines.Text(), "token: "); ok {
				token = tk
			}
		}
		if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") || len(token) != 64 {
			cmd.Process.Kill()
			t.Fatalf("printed url %q, token %q", url, token)
		}
		tokens = append(tokens, token)
		res, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		if err != nil || res.StatusCode != http.StatusUnauthorized {
			t.Errorf("a request without the token: %v %v, want 401", err, res)
		}
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("after SIGINT: %v, want exit 0", err)
		}
	}
	if tokens[0] == tokens[1] {
		t.Error("two runs printed the same token")
	}
}

// TestMCPSetupLines: the setup lines of docs/mcp.md for Claude Code,
// Codex and Cursor start a server that serves the tools, run as written
// (the Codex lines with the project's path put in).
func TestMCPSetupLines(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := newProject(t)
	var setups [][]string
	claude := regexp.MustCompile("(?m)^claude mcp add devrites -- (.+)$").FindSubmatch(doc)
	if claude == nil {
		t.Fatal("docs/mcp.md: no claude mcp add line")
	}
	setups = append(setups, strings.Fields(string(claude[1])))
	codex := regexp.MustCompile(`(?m)^command = "(.+)"\nargs = (\[.+\])`).FindSubmatch(doc)
	cursor := regexp.MustCompile(`(?s)"mcpServers": (\{.*?\}\s*\})`).FindSubmatch(doc)
	if codex == nil || cursor == nil {
		t.Fatal("docs/mcp.md: no Codex or Cursor setup")
	}
	var codexArgs []string
	if err := json.Unmarshal(bytes.ReplaceAll(codex[2], []byte("/path/to/project"), []byte(dir)), &codexArgs); err != nil {
		t.Fatal(err)
	}
	setups = append(setups, append([]string{string(codex[1])}, codexArgs...))
	var servers map[string]struct {
		Command string
		Args    []string
	}
	if err := json.Unmarshal(cursor[1], &servers); err != nil {
		t.Fatalf("the Cursor setup is not JSON: %v", err)
	}
	setups = append(setups, append([]string{servers["devrites"].Command}, servers["devrites"].Args...))
	for _, argv := range setups {
		if argv[0] != engineName {
			t.Errorf("%v does not start %s", argv, engineName)
			continue
		}
		cmd := engineCmd(dir, argv[1:]...)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "setup", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Errorf("%v: %v", argv, err)
			continue
		}
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) != 7 {
			t.Errorf("%v: %v, %v", argv, err, res)
		}
		cs.Close()
	}
}
