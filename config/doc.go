// Package config loads and validates the workspace's configuration files:
// the AFK file and notify.yaml (the hook, on_overdue, channels), rules.yaml
// (approval rules: parse, scope, actions, and the locked edits that add
// and remove one), engine.yaml (next_action templates), and the trust
// checks every one of them passes before it takes effect on this machine
// (docs/trust.md, docs/afk-and-notify.md, docs/recovery-and-rules.md).
//
// Guarantees:
//   - Loading never fails a command: a file that does not parse is Broken
//     and fails closed (nothing is auto-picked, no hook runs), and every
//     problem is a warning naming the file and line.
//   - A file that runs a command or approves without a person takes effect
//     only while this machine's trust store holds the exact bytes it was
//     parsed from; a symbolic link is never read as configuration.
//   - engine.yaml's templates are accepted only in a command's shape, so a
//     cloned file cannot put an instruction into next_action.
//   - A rule edit takes the rules lock, reads the file again and replaces
//     it atomically, keeping a person's comments and order.
//
// Limits:
//   - config decides nothing: what a configuration means for a question
//     (the AFK policy, hard stops, expiry) is the engine's (engine/policy.go).
//     AddRule asks the caller which tags the policy always pauses.
//   - It does not watch files: a command loads them once, at its start.
package config
