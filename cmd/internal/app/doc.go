// Package app is the devrites-engine command line: it turns flags into
// calls to package engine and prints the results; cmd/devrites-engine is
// built on it, `serve` and its web server included.
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
package app
