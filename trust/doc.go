// Package trust is this machine's record of which workspace files a person
// has trusted: a file that makes the engine run a command, send data out or
// approve without a person (.devrites/AFK, .devrites/notify.yaml,
// .devrites/rules.yaml) takes effect only while its current content is the
// content a person trusted here. A clone, a branch or a pull request brings
// such files; like git, which never runs the hooks it cloned, the engine
// never acts on them because they arrived.
//
// The store is one text file outside every repository,
// $XDG_CONFIG_HOME/devrites-engine/trust ($HOME/.config when
// XDG_CONFIG_HOME is unset or not absolute), mode 0600, in the form of
// sha256sum(1): one line per file, the SHA-256 of the trusted content in
// hex, two spaces, the file's absolute path. A path is made absolute and its
// symbolic links resolved, so a file trusted by any of its names is the same
// entry. A path with a newline is refused.
//
// Guarantees:
//   - Trust is of content: any change to a file, one byte or all, makes it
//     Changed until it is trusted again. Callers verify the bytes they
//     read and then act on (Store.Verify), so no change between a check and
//     a read goes unseen.
//   - Every change of the store (Add, Trust, Revoke) takes an flock on
//     the store's .lock file beside it, reads the store again, and replaces
//     it atomically (renameio): two commands trusting at once keep both
//     entries, and a crash leaves the old store or the new one.
//   - Fail closed: a store that cannot be read, or a line of it that does
//     not parse, grants nothing.
//
// Limits: atomic on local file systems (rename is not atomic on NFS with
// several clients); a person who can write the store can trust anything,
// as a person who can write .git/hooks can run anything.
package trust
