// Package gitdriver is the git side of the workspace merge: it installs the
// "devrites" merge driver in a repository (Install), and is the driver git
// runs for questions.md, state.md and decisions.md (Run), on top of
// package merge.
//
// Install writes, beside .devrites, the .gitattributes lines that send the
// three files to the driver, and sets the driver in the repository's own
// config (merge.devrites.name, merge.devrites.driver). Config is not
// versioned: every clone installs once.
//
// Run merges the three versions git hands over (%O %A %B, for the path %P)
// and writes the result to %A: exit code 0 when merged, 1 on a real
// conflict, with conflict markers written. When it cannot do better (input
// that is not text, a version it cannot find, a merge that fails its own
// check, a panic), it writes what git's own line merge gives, conflict
// markers and all, and returns 1: a person looks, nothing is merged wrong
// in silence.
//
// The state.md and decisions.md drivers need the three versions of the
// questions.md beside them, to read ids the way the questions.md merge
// renumbers them (merge.Plan). Git has not written them anywhere yet when
// it runs a driver (the index still holds the commit merged into), so they
// are read from the commits, through one git cat-file --batch: ours is
// HEAD; theirs is the commit named by GITHEAD_<oid> (merge, pull), by the
// rebase's done list or original-commit (rebase), by REBASE_HEAD,
// CHERRY_PICK_HEAD, MERGE_HEAD or REVERT_HEAD, else the newest of the last
// 200 commits that changed the file whose version of it is the one git
// gave (a cherry-pick); the base is the one of theirs' parents or of the
// merge bases whose version of the file is git's %O (else the first merge
// base). Each is checked: the commit's version of the driver's own file
// must be the one git handed over, by SHA-256.
//
// Every driver also lists the workspaces of the project in HEAD, theirs
// and their first merge base (git ls-tree; the same three commits for
// every file of the merge) and reads their questions.md and decisions.md, so
// that a merge renumbers against the ids of the whole project
// (project.go); a driver that cannot find the commits merges questions.md
// against its own file alone, as before.
//
// Limits: git must be on PATH, and Run must be started by git in the
// repository (its working directory and environment name the commits).
package gitdriver
