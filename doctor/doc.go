// Package doctor holds the checks of a workspace's files themselves and
// what they report: state.md's text, schema, cursor keys and status;
// questions.md's text, headings, ids and each block's status, gate and
// SLA; a merge's conflict markers in any file; and the files around them:
// temporary files an interrupted write left, the recovery ledger, tasks.md,
// claims, the configuration as config loaded it, and what makes git merge
// the files line by line (git.go). They work on mdstore's
// parse of the files, so a command that has read and parsed them checks
// that one parse. The engine's write guard runs them (Checker.ErrorsOnly)
// before every write and refuses the write on an error; `devrites-engine
// doctor` runs them whole, with the checks that need the engine (drift,
// identity, decisions, the project's qids, signatures) and --fix's repairs
// (the checkup package).
// docs/doctor.md lists what is found and how it is mended.
//
// Guarantees:
//   - A check reads; it never changes a file or the parse it is given.
//     The one exception is Claims with fix, which ends a torn last line
//     of claims.jsonl under the claims lock and records the Repair.
//   - Each Finding names its file and, when known, its line, with a Mend a
//     person can follow; an error makes doctor exit 6, a warning does not.
//   - With ErrorsOnly, only errors are worded, and only for the blocks the
//     caller's scan found not reading (FieldsRead): checking a file of
//     thousands of questions costs little more than parsing it.
//
// Limits:
//   - The package does not import the engine: routing fields are checked
//     through Checker.Routing, which the engine supplies (Engine.Checker),
//     and whatever compares two files (drift, missing decisions) is the
//     checkup package's.
package doctor
