package hook

import (
	"path/filepath"
	"strings"
)

// codex is Codex's contract (its hooks page and the command hook schemas of
// codex-rs/hooks; docs/harness.md names the version the fixtures follow):
//   - stdin: session_id, transcript_path, cwd, hook_event_name, model,
//     turn_id, and tool_name/tool_input (PreToolUse, PermissionRequest:
//     Bash with tool_input.command, apply_patch with the patch in
//     tool_input.command, MCP tools as mcp__server__tool), prompt
//     (UserPromptSubmit), source (SessionStart);
//   - PreToolUse refuses with hookSpecificOutput permissionDecision "deny"
//     on exit 0 (or exit 2 with the reason on stderr); PermissionRequest
//     with hookSpecificOutput decision behavior "deny"; UserPromptSubmit
//     with decision "block"; additionalContext adds to the context of
//     UserPromptSubmit and SessionStart only. Output with a field Codex does
//     not know fails the hook, and a failed hook lets the call run: the
//     engine writes exactly the documented fields;
//   - hooks run with the session's directory as their working directory;
//   - settings: <project>/.codex/hooks.json or ~/.codex/hooks.json
//     ($CODEX_HOME when set), the same "hooks" shape as Claude Code's. A
//     person reviews and trusts each new or changed hook in Codex (/hooks)
//     before it runs, and project hooks load only in a trusted project.
type codex struct{}

func (codex) Name() string { return "codex" }

func (codex) Call(ev *Event) Call {
	switch ev.ToolName {
	case "Bash", "shell", "exec_command", "local_shell":
		return Call{Kind: callShell, Command: inputString(ev.ToolInput, "command")}
	case "apply_patch":
		patch := inputString(ev.ToolInput, "command")
		if patch == "" {
			patch = inputString(ev.ToolInput, "input")
		}
		return Call{Kind: callEdit, Paths: patchPaths(patch)}
	}
	if s, t, ok := mcpName(ev.ToolName); ok {
		return Call{Kind: callMCP, Server: s, Tool: t}
	}
	return Call{Kind: callOther}
}

// patchPaths are the files an apply_patch envelope adds, updates, deletes
// or moves to. A patch naming none is read as writing an unknown file.
func patchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(line, p); ok {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func (codex) Project(ev *Event, _ func(string) string) string { return ev.Cwd }

func (codex) Settings(scope, project, home string, getenv func(string) string) string {
	if scope == "user" {
		if d := getenv("CODEX_HOME"); filepath.IsAbs(d) {
			return filepath.Join(d, "hooks.json")
		}
		return filepath.Join(home, ".codex", "hooks.json")
	}
	return filepath.Join(project, ".codex", "hooks.json")
}

func (codex) Entries() []Entry {
	return []Entry{
		{Event: PreToolUse, Timeout: 10},
		{Event: PermissionRequest, Timeout: 10},
		{Event: UserPromptSubmit, Timeout: 10},
		{Event: SessionStart, Timeout: 10},
	}
}

func (codex) Protected(dir, base string) bool {
	return filepath.Base(dir) == ".codex" && (base == "hooks.json" || base == "config.toml")
}
