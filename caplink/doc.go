// Package caplink makes and checks the capability links of
// `devrites-engine serve`: /q/<slug>/<qid>?t=<token>, where the token is
// HMAC-SHA256, under a per-project secret, of the project directory, the
// slug and the qid. A link lets whoever holds it answer that one question
// and nothing else; the server stops honouring it once the question is
// final.
//
// Guarantees:
//   - The secret is 32 bytes from crypto/rand, kept hex-encoded in
//     .devrites/serve.key. It is created on first use with mode 0600, by
//     writing a temporary file and linking it into place, so two processes
//     creating it at once agree on one key and none ever reads a partial
//     one. A key file that is readable by group or others, not a regular
//     file, or shorter than 32 bytes is refused, never repaired or
//     replaced.
//   - Creating the key also lists it in .devrites/.gitignore (appended
//     when the file is there and does not list it yet): the secret stays on
//     the machine that made it.
//   - Tokens of different purposes (an answer link, the inbox, a form's
//     CSRF token) are MACs over a purpose word and their parts joined by
//     NUL bytes, so a token of one purpose is never valid for another, and
//     parts cannot be shifted from one field to the next.
//   - Checking compares in constant time.
//
// Limits: the token carries no expiry of its own; the server ends a link by
// looking at the question's status. Deleting or replacing serve.key revokes
// every link of the project at once. The project directory is part of the
// MAC (symbolic links resolved), so moving the project invalidates its
// outstanding links.
package caplink
