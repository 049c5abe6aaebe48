package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// harnessDriver runs the hooks of an installed settings file as the
// harness does (docs/harness.md): each command whose matcher matches,
// through sh -c, with the event JSON on stdin, the harness's environment,
// its working directory and the entry's timeout; and reads the answer as
// the harness would.
type harnessDriver struct {
	t        *testing.T
	settings string   // the installed settings file
	dir      string   // the working directory of the session
	env      []string // the environment the harness gives its hooks
}

// verdict is how the harness reads what the hooks answered.
type verdict struct {
	kind string // deny, block, context, allow
	text string
}

func (d harnessDriver) run(event map[string]any) verdict {
	d.t.Helper()
	b, err := os.ReadFile(d.settings)
	if err != nil {
		d.t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		d.t.Fatal(err)
	}
	in, _ := json.Marshal(event)
	name, _ := event["hook_event_name"].(string)
	tool, _ := event["tool_name"].(string)
	v := verdict{kind: "allow"}
	ran := 0
	for _, g := range s.Hooks[name] {
		if g.Matcher != "" && g.Matcher != "*" && !regexp.MustCompile("^(?:"+g.Matcher+")$").MatchString(tool) {
			continue
		}
		for _, h := range g.Hooks {
			ran++
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(h.Timeout)*time.Second)
			cmd := exec.CommandContext(ctx, "sh", "-c", h.Command)
			cmd.Dir, cmd.Env, cmd.Stdin = d.dir, d.env, bytes.NewReader(in)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			cancel()
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.ExitCode() == 2:
				return verdict{"deny", errb.String()}
			case err != nil:
				d.t.Fatalf("%s: %v (%s): the harness would let the call through", h.Command, err, errb.String())
			case out.Len() == 0:
				continue
			}
			var o struct {
				Decision, Reason string
				Specific         struct {
					PermissionDecision, PermissionDecisionReason, AdditionalContext string
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(out.Bytes(), &o); err != nil {
				d.t.Fatalf("%s: stdout is not JSON: %s", h.Command, out.Bytes())
			}
			switch {
			case o.Specific.PermissionDecision == "deny":
				return verdict{"deny", o.Specific.PermissionDecisionReason}
			case o.Decision == "block":
				return verdict{"block", o.Reason}
			case o.Specific.AdditionalContext != "":
				v = verdict{"context", o.Specific.AdditionalContext}
			}
		}
	}
	if ran == 0 {
		d.t.Fatalf("no hook of %s runs for %s %s", d.settings, name, tool)
	}
	return v
}

// TestHarnessDriver installs the hooks with the real binary and runs them
// as each harness does: a paused workspace refuses an edit and allows a
// read, the agent's state resolve is refused, and "answer 2" typed by the
// person lands verbatim.
func TestHarnessDriver(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, engineName)); err != nil {
		t.Fatal(err)
	}
	for _, harness := range []string{"claude-code", "codex"} {
		t.Run(harness, func(t *testing.T) {
			dir, ws := newProject(t)
			if r := runEngine(dir, "question", "raise", "--gate", "blocking", "--question", "Which rounding?",
				"--option", "Banker's rounding", "--option", "Round half up"); r.code != exitPaused {
				t.Fatalf("raise: exit %d: %s", r.code, r.stderr)
			}
			if r := runEngine(dir, "hook", "install", harness); r.code != 0 {
				t.Fatalf("install: exit %d: %s", r.code, r.stderr)
			}
			env := append(childEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			settings := filepath.Join(dir, ".codex", "hooks.json")
			sub := t.TempDir() // Codex runs hooks in the session's directory; Claude Code names the project
			if harness == "claude-code" {
				settings = filepath.Join(dir, ".claude", "settings.json")
				env = append(env, "CLAUDE_PROJECT_DIR="+dir)
			} else {
				sub = dir
			}
			d := harnessDriver{t: t, settings: settings, dir: sub, env: env}
			base := map[string]any{"session_id": "s1", "transcript_path": nil, "cwd": dir}
			event := func(kv ...any) map[string]any {
				m := map[string]any{}
				for k, v := range base {
					m[k] = v
				}
				for i := 0; i < len(kv); i += 2 {
					m[kv[i].(string)] = kv[i+1]
				}
				return m
			}
			pre := func(tool string, input map[string]any) map[string]any {
				return event("hook_event_name", "PreToolUse", "tool_name", tool, "tool_input", input)
			}
			edit, read := pre("Write", map[string]any{"file_path": filepath.Join(dir, "src", "a.go"), "content": "x"}), pre("Read", map[string]any{"file_path": filepath.Join(dir, "src", "a.go")})
			if harness == "codex" {
				edit = pre("apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: src/a.go\n+x\n*** End Patch\n"})
				read = pre("Bash", map[string]any{"command": "cat src/a.go"})
			}
			if v := d.run(edit); v.kind != "deny" || !strings.Contains(v.text, "awaits the person") {
				t.Errorf("edit while paused: got %v, want deny", v)
			}
			if v := d.run(read); v.kind != "allow" {
				t.Errorf("read while paused: got %v, want allow", v)
			}
			resolve := pre("Bash", map[string]any{"command": "bash -c 'devrites-engine state resolve q-2026-11-29-001 1'"})
			if v := d.run(resolve); v.kind != "deny" || !strings.Contains(v.text, "state resolve") {
				t.Errorf("the agent's state resolve: got %v, want deny", v)
			}
			trust := pre("Bash", map[string]any{"command": "devrites-engine trust"})
			if v := d.run(trust); v.kind != "deny" {
				t.Errorf("the agent's trust: got %v, want deny", v)
			}
			if v := d.run(event("hook_event_name", "SessionStart", "source", "startup")); v.kind != "context" {
				t.Errorf("session start: got %v, want context", v)
			}
			v := d.run(event("hook_event_name", "UserPromptSubmit", "prompt", "answer 2"))
			if v.kind != "context" || !strings.Contains(v.text, "Round half up") {
				t.Errorf("answer 2: got %v, want context naming the answer", v)
			}
			b, err := os.ReadFile(filepath.Join(ws, "questions.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range []string{"status: answered", "answer: Round half up", "choice: 2", "answered_via: chat"} {
				if !strings.Contains(string(b), "\n"+line+"\n") {
					t.Errorf("questions.md lacks %q:\n%s", line, b)
				}
			}
			if v := d.run(edit); v.kind != "allow" {
				t.Errorf("edit once answered: got %v, want allow", v)
			}
		})
	}
}
