// Command devrites-engine owns the mutable state of a DevRites markdown
// workspace: it raises and resolves HITL questions, keeps state.md in step,
// and pings a person through the notify hook.
//
// Output rules, for people and for agents:
//   - stdout carries results only: plain lines by default, exactly one JSON
//     object with --json. No colour when NO_COLOR is set or stdout is not a
//     terminal.
//   - stderr carries warnings ("devrites-engine: warning: …") and errors.
//     An error is one decisive line, "devrites-engine: <command>: <why>",
//     the same for the same failure, then optional "hint: …" lines; with
//     --json it is one JSON object {error, code, kind, message, hints}.
//   - The exit code says what happened (see exitCode); only main exits.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}
