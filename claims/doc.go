// Package claims keeps the claims of a project: which session (an agent at
// work) holds which paths of the tree, so that several agents working in
// one tree never edit the same files at once. The file is
// .devrites/claims.jsonl, in the format DevRites itself reads and writes,
// so both tools share one file.
//
// Format. One JSON object a line, appended, never rewritten:
//
//	{"id":"cl-1795960931000000000-3f2a9c1b","session":"agent-a","paths":["pkg/pay"],"reason":"rounding","claimed_at":"2026-11-29T14:02:11Z","expires_at":"2026-11-29T14:32:11Z"}
//
// id is "cl-" and the claim time in Unix nanoseconds, "-", and eight random
// hex digits; session is 1 to 128 ASCII letters, digits and "-_.:/"; paths
// are normalised, de-duplicated and sorted; reason is optional; both times
// are RFC 3339 UTC in whole seconds. A release or a renewal appends a copy
// of the claim (with "released": true, or a later expires_at): the last
// record of an id wins. A line that is not such an object, or lacks its id
// or session, is skipped and counted (Set.Problems names its line), never
// fatal.
//
// State is computed when the file is read: released when the last record
// says so; else expired when expires_at is not after now (or does not
// parse); else live. The time to live is the only liveness: there is no
// host, pid or heartbeat but renewal.
//
// Guarantees:
//   - The check and the append happen under one exclusive flock on
//     .devrites/.claims.lock (mdstore.Lock, as every lock of the engine): two
//     sessions never both win a path, however many processes claim at once.
//   - An append is one write(2) with O_APPEND, then fsync (and fsync of
//     the directory when it created the file). A writer killed in the
//     middle leaves at most a torn last line, which every read skips; the
//     next append starts on a line of its own.
//   - A claim on a directory holds every path below it, and a claim on a
//     path is held by a claim of any directory above it. This is stricter
//     than DevRites, which matches exact strings: nothing DevRites would
//     refuse is allowed here.
//   - The append that creates the file also lists it and the lock file in
//     .devrites/.gitignore (mdstore.Ignore): claims belong to one tree,
//     not to its clones.
//   - Only the owner releases or renews a claim; nothing here releases one
//     by itself, and the file is never rewritten.
//
// Limits: DevRites appends without the lock, so a claim it writes can
// still race one of ours; our own writers never race each other. Reads
// (list, check) take no lock: they may see a line that is being appended
// as torn. Claims are advisory: they stop only the agents that check them.
// Paths are compared as written, relative to the project directory; they
// are not resolved on disk (symbolic links, case-insensitive file systems).
package claims
