// Package checkup is one run of `devrites-engine doctor` on a workspace
// (Run): the checks of the files themselves (the doctor package's
// Checker, with the engine's routing check, engine.Engine.Checker), the
// checks that need the engine's model of the workflow (drift between
// state.md and questions.md, identity after a merge, missing and reverted
// decisions, qids another workspace of the project holds, the leftovers of
// a killed init, signatures), and, with fix, the repairs that cannot lose
// information. docs/doctor.md lists what is found and how it is mended.
//
// Guarantees:
//   - The checks of state.md, questions.md and decisions.md and their
//     repairs run in one transaction under the workspace lock, so that the
//     three come from the same one; a run repeated on newer files
//     (mdstore.Transact) reports only what it saw.
//   - questions.md is the source of truth: state.md is reconciled from it.
//     A pause a crash lost is restored as the raise would have written it;
//     a pause on a question that is no longer open is lifted as the
//     resolution would have lifted it.
//   - --fix removes temporary files an interrupted atomic write left and
//     directories a killed init left, renumbers the later of two blocks
//     with one qid (the block records renumbered_from, and state.md and
//     decisions.md follow when they meant it), writes the corrections
//     engine.Follow makes, restores the resolution decisions.md records of
//     a question questions.md reverted or lost, appends a decision a crash
//     kept out of decisions.md, and ends a torn last line of claims.jsonl.
//     Ids come first, so that state.md is reconciled against the
//     renumbered questions.
//   - No decision is invented (docs/trust.md): a decision is appended, or
//     state.md moved on, only from the resolution's own Log line or
//     decision record.
//   - Everything else is reported with how to mend it, never changed:
//     doctor does not guess at text a person wrote. state.md, questions.md
//     and decisions.md are not repaired while a file holds a merge's
//     conflict markers or state.md's schema is refused, and a signature is
//     never added or removed.
//   - When the lock cannot be had within the timeout, that is itself a
//     finding: the files are checked without it, nothing is repaired, and
//     Run returns that report together with the lock's error (which wraps
//     mdstore.ErrBusy).
//
// Limits:
//   - The package imports engine and never the reverse: the write guard
//     runs doctor.Checker itself, and the engine's steps a repair takes
//     (pausing, resolving the cursor, following a renumbering, appending a
//     decision) are the engine's exported ones, so a repair leaves the
//     files as the interrupted command would have.
//
// Where things are (one line per file; tests sit beside them):
//
//	run.go         Run, the checkup type, loading the files, the order of the checks
//	fix.go         --fix's repairs of questions.md and decisions.md: renumbering, missing decisions
//	drift.go       drift: state.md's pause against questions.md, and reconcile
//	identity.go    doctor's side of engine.Follow: lost pauses, moved references
//	ledger.go      decisions.md as the ledger of record: reverted questions restored
//	decisions.go   decisions a crash kept out of decisions.md
//	evidence.go    a resolution's evidence: never a decision from questions.md alone
//	project.go     qids another workspace of the project holds, and their renumbering
//	sign.go        signed decisions: signatures that do not verify or are missing
//	init_temps.go  directories a killed init left
package checkup
