// Package hook answers the hook events of agent harnesses — Claude Code and
// Codex run a program before every tool call and prompt — so that a pause
// holds even when the agent forgets it, and the person's chat answer reaches
// the record without the model retyping it (docs/harness.md).
//
// Each harness is a Harness (one file each: claude.go, codex.go): how its
// events read, how it wants to be answered, and where its settings file
// is. Handle (run.go) decides; guard.go and shell.go are the tool-call
// guard; chat.go and record.go the person's answers; settings.go and
// jsonspan.go install and uninstall.
//
// Guarantees:
//   - Tool calls (PreToolUse; Codex's PermissionRequest too): while the
//     project's workspace awaits a person — the verdict of engine.Check, the
//     function `state check` uses — only reads, the engine's read and wait
//     commands and MCP tools, and the harness's own question tool go
//     ahead. Always, whether or not a question awaits: the agent's engine
//     calls that answer, sign, trust or approve (state resolve, answer,
//     sign, trust, rules add, --always, question raise --answered, hook
//     but hook status, MCP relay_answer), and its edits of the engine's
//     files in .devrites/ (engineOwned), of this machine's settings
//     directory (machine.Dir: name, keys, trust store) and of the
//     settings files holding hooks, are refused. Every denial says why
//     and what to do.
//   - Fails closed where it guards: a workspace that exists but cannot be
//     read (conflict markers, a broken file, a bad ACTIVE) refuses every
//     tool call with the reason; an event that is not JSON is refused with
//     exit 2. A project without a workspace passes everything.
//   - The harness's question tool (AskUserQuestion) is always allowed and
//     the hook prints nothing for it.
//   - The person's words are recorded verbatim through engine.Resolve, the
//     transaction of `state resolve`, with answered_via chat and answered_by
//     this machine's configured name; an answer the engine refuses records
//     nothing and is shown to the person. A prompt in no answer form passes
//     untouched.
//   - Install and uninstall splice bytes: every byte of the settings file
//     that is not the engine's entry stays as it was, uninstall after
//     install gives back the file, and a file that does not parse is
//     refused unchanged. Writes are atomic (renameio).
//
// Limits:
//   - The OS user is the boundary. A shell can write files in ways no
//     parser sees (a script file, a variable naming the program, an
//     interpreter's own file calls); the guard reads command lines with a
//     shell parser and refuses what it recognises, nothing more.
//   - A harness that cannot run the hook (not on PATH, a timeout, a crash)
//     lets the call go ahead: both harnesses fail open on such errors.
//   - An event list left empty by uninstall is removed, also one that was
//     empty before install.
//   - Codex runs a new or changed hook only after a person trusts it in
//     Codex (/hooks); until then nothing is guarded there.
package hook
