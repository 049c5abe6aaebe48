package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Event names, as both harnesses spell them in hook_event_name.
const (
	PreToolUse        = "PreToolUse"
	PostToolUse       = "PostToolUse"
	UserPromptSubmit  = "UserPromptSubmit"
	SessionStart      = "SessionStart"
	PermissionRequest = "PermissionRequest"
)

// Event is one hook event as read from stdin: the fields both harnesses
// send that the engine uses (docs/harness.md lists them). Other fields are
// ignored.
type Event struct {
	Cwd          string          `json:"cwd"`
	Name         string          `json:"hook_event_name"`
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	Prompt       string          `json:"prompt"`
}

// decodeEvent reads one event: a JSON object with a hook_event_name.
func decodeEvent(b []byte) (*Event, error) {
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("the event on stdin is not JSON: %v", err)
	}
	if ev.Name == "" {
		return nil, fmt.Errorf("the event on stdin has no hook_event_name")
	}
	return &ev, nil
}

// Kinds of tool call, as the guard sees them.
const (
	callOther = iota // anything else: not a read
	callRead         // reads files or searches
	callShell        // a shell command line (Command)
	callEdit         // the harness's edit tool (Paths)
	callAsk          // the harness's own ask-the-person tool
	callMCP          // an MCP tool (Server, Tool)
)

// Call is a tool call in the harness's terms, read for the guard.
type Call struct {
	Kind         int
	Command      string   // callShell
	Paths        []string // callEdit: the files written, as given
	Server, Tool string   // callMCP
}

// Reply is what the engine answers an event, before a harness words it.
type Reply struct {
	Deny    string // PreToolUse, PermissionRequest: refuse the call, for this reason
	Block   string // UserPromptSubmit: refuse the prompt, shown to the person
	Context string // text added to the model's context
}

// Output is what the hook process writes and exits with.
type Output struct {
	Stdout []byte
	Stderr string
	Exit   int
}

// Entry is one hook the engine installs: the event, its matcher ("" for
// none) and its timeout in seconds.
type Entry struct {
	Event   string
	Matcher string
	Timeout int
}

// Harness is one agent harness's hook contract: how its tool calls read,
// how it wants answers, and where its settings live.
type Harness interface {
	// Name is the harness as the command line names it: claude-code, codex.
	Name() string
	// Call reads an event's tool call.
	Call(ev *Event) Call
	// Project is the project directory of an event.
	Project(ev *Event, getenv func(string) string) string
	// Settings is the settings file holding the hooks, for scope ("project"
	// or "user"); home is the user's home directory.
	Settings(scope, project, home string, getenv func(string) string) string
	// Entries are the hooks install adds.
	Entries() []Entry
	// Protected reports whether a path (absolute, cleaned, lower case on
	// the last elements) is a settings file of this harness that holds hooks.
	Protected(dir, base string) bool
}

// Harnesses are the supported harnesses, by name.
var Harnesses = map[string]Harness{"claude-code": claude{}, "codex": codex{}}

// Names are the harness names in the order help shows them.
var Names = []string{"claude-code", "codex"}

// Command is the command line a harness runs for a hook: the engine on
// PATH. A harness that cannot find it fails open (docs/harness.md).
func Command(h Harness) string { return "devrites-engine hook --harness " + h.Name() }

// reply words the engine's reply to ev in the documented form both
// harnesses share.
func reply(ev *Event, r Reply) Output {
	switch {
	case r.Deny != "" && ev.Name == PermissionRequest:
		return jsonOut(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": PermissionRequest, "decision": map[string]any{"behavior": "deny", "message": r.Deny}}})
	case r.Deny != "":
		return denyJSON(ev.Name, r.Deny)
	case r.Block != "":
		return blockJSON(r.Block)
	case r.Context != "":
		return contextJSON(ev.Name, r.Context)
	}
	return Output{}
}

// denyJSON is the hookSpecificOutput both harnesses read on exit 0 to refuse
// a tool call: exactly the documented fields (Codex treats an unknown field
// as a failed hook, which lets the call run).
func denyJSON(event, reason string) Output {
	return jsonOut(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": reason}})
}

// contextJSON adds text to the model's context for event.
func contextJSON(event, text string) Output {
	return jsonOut(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": event, "additionalContext": text}})
}

// blockJSON refuses a prompt; the reason is shown to the person.
func blockJSON(reason string) Output {
	return jsonOut(map[string]any{"decision": "block", "reason": reason})
}

func jsonOut(v any) Output {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // maps of strings always encode
		return Output{Stderr: err.Error(), Exit: 2}
	}
	return Output{Stdout: b.Bytes()}
}

// mcpName splits mcp__server__tool.
func mcpName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok
}

// inputString is a string field of a tool's input, "" when absent.
func inputString(raw json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}
