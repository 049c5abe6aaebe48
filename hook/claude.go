package hook

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// claude is Claude Code's contract (hooks reference; docs/harness.md names
// the version the fixtures follow):
//   - stdin: session_id, transcript_path, cwd, hook_event_name, and
//     tool_name/tool_input (PreToolUse), tool_response (PostToolUse),
//     prompt (UserPromptSubmit), source (SessionStart);
//   - a tool call is refused by exit 0 with hookSpecificOutput
//     permissionDecision "deny" and the reason shown to the model; a prompt
//     by decision "block" with the reason shown to the person;
//     additionalContext adds to the model's context; any other non-zero
//     exit but 2 lets the call go ahead;
//   - settings: .claude/settings.json (project) or ~/.claude/settings.json
//     (user), hooks under "hooks"; the command runs through a shell with
//     $CLAUDE_PROJECT_DIR set to the project.
type claude struct{}

func (claude) Name() string { return "claude-code" }

// claudeRead are the tools that only read files or search, and the to-do
// list, which is the session's own notes and touches nothing.
var claudeRead = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookRead": true,
	"WebSearch": true, "WebFetch": true, "BashOutput": true, "TodoRead": true, "TodoWrite": true}

func (claude) Call(ev *Event) Call {
	switch ev.ToolName {
	case "Bash":
		return Call{Kind: callShell, Command: inputString(ev.ToolInput, "command")}
	case "Write", "Edit", "MultiEdit":
		return Call{Kind: callEdit, Paths: []string{inputString(ev.ToolInput, "file_path")}}
	case "NotebookEdit":
		return Call{Kind: callEdit, Paths: []string{inputString(ev.ToolInput, "notebook_path")}}
	case "AskUserQuestion":
		return Call{Kind: callAsk}
	}
	if claudeRead[ev.ToolName] {
		return Call{Kind: callRead}
	}
	if s, t, ok := mcpName(ev.ToolName); ok {
		return Call{Kind: callMCP, Server: s, Tool: t}
	}
	return Call{Kind: callOther}
}

func (claude) Project(ev *Event, getenv func(string) string) string {
	if d := getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return d
	}
	return ev.Cwd
}

func (claude) Settings(scope, project, home string, _ func(string) string) string {
	if scope == "user" {
		return filepath.Join(home, ".claude", "settings.json")
	}
	return filepath.Join(project, ".claude", "settings.json")
}

func (claude) Entries() []Entry {
	return []Entry{
		{Event: PreToolUse, Timeout: 10},
		{Event: PostToolUse, Matcher: "AskUserQuestion", Timeout: 10},
		{Event: UserPromptSubmit, Timeout: 10},
		{Event: SessionStart, Timeout: 10},
	}
}

func (claude) Protected(dir, base string) bool {
	return filepath.Base(dir) == ".claude" && (base == "settings.json" || base == "settings.local.json")
}

// askAnswers reads AskUserQuestion's call: each question's text and the
// person's selection, from tool_response's answers (by question text), or
// from the input's answers when the response has none.
func askAnswers(input, response json.RawMessage) map[string]string {
	out := map[string]string{}
	for _, raw := range []json.RawMessage{response, input} {
		var v struct {
			Answers map[string]json.RawMessage `json:"answers"`
		}
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		for q, a := range v.Answers {
			var s string
			var list []string
			switch {
			case json.Unmarshal(a, &s) == nil:
			case json.Unmarshal(a, &list) == nil:
				s = strings.Join(list, ", ")
			default:
				continue
			}
			if _, seen := out[q]; !seen {
				out[q] = s
			}
		}
		if len(out) > 0 {
			break
		}
	}
	return out
}
