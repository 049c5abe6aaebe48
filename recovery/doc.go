// Package recovery keeps the recovery ledger of a workspace: recovery.md,
// one row per failure fingerprint, counting an agent's attempts to correct
// a failure so that agent-owned recovery never loops for ever and never
// stops the whole run.
//
// Fingerprint. A failure is named by the first 12 hex digits (lower case) of
// the SHA-256 of
//
//	command NUL exit NUL stderr-line
//
// where command is the failing command line as given, exit its exit code in
// decimal without sign or leading zeros ("5"), stderr-line its decisive
// stderr line without the line ending, and NUL the byte 0x00 (which none of
// the three can contain). The same failure always gives the same
// fingerprint, and so does
//
//	printf '%s\0%s\0%s' "$command" "$exit" "$line" | sha256sum | cut -c1-12
//
// Correction ladder. An entry starts at level direct. Each correction that
// made no progress counts one attempt at the current level; the third spends
// the level and the entry escalates, attempts back at 0:
//
//	direct → shared-root-cause → diagnostic-amplification → boundary-redesign → parked
//
// Spending boundary-redesign (the third escalation's strategy) parks the
// entry. A correction that made progress sets the current level's attempts
// back to 0 and stays on the level. Every correction counts in total, which
// nothing resets. A parked entry stays parked, whatever is recorded, until
// Reopen: it goes back to direct with 0 attempts and keeps its total.
//
// Resolver failures. An entry of level resolver counts failures of the
// resolver command itself (devrites-engine state resolve): the first failure
// answers retry (one identical re-run), the second answers stopped and the
// entry is stopped; a failure while stopped answers stopped again. Reopen
// sets it back to open with 0 failures.
//
// File. recovery.md is a markdown table a person can read:
//
//	# Recovery
//
//	| fingerprint | level | attempts | total | state | updated_at | note |
//	| --- | --- | --- | --- | --- | --- | --- |
//	| 3f2a9c1b0d4e | shared-root-cause | 1 | 4 | open | 2026-11-29T14:02:11Z | cache key |
//
// Only the first table whose header is exactly these columns is the ledger;
// every other line is kept as it is, and an edit replaces or adds whole rows
// only, with the file's own line ending. A "|" in a note is written "\|" and
// a backslash before a pipe, another backslash or the end of the cell "\\",
// as in state.md. Parse reports every row it cannot read, by line; a ledger
// with problems must not be written.
//
// This package only reads and edits bytes; the caller holds the workspace
// lock and writes the file atomically.
package recovery
