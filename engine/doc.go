// Package engine implements the DevRites HITL workflow on a workspace:
// raising questions (with the AFK auto-pick policy), resolving them (answer,
// option, drop, reject, batch), and moving the cursor in state.md.
//
// Guarantees:
//   - Every change happens in one mdstore transaction: questions.md first,
//     then state.md, then decisions.md.
//   - No approval is ever invented: an empty or blank answer is refused, an
//     option number must exist, the escape hatch needs words, and only the
//     policy in Decide (policy.go) may answer for a person.
//   - Nothing approves itself (docs/trust.md): every resolution records how
//     it came (answered_via); a question that needs a person (NeedsPerson,
//     person.go) is never resolved through an agent or a command line
//     without a terminal; auto_approve_after counts only this machine's
//     record of a person's picks (streak.go); doctor repairs a resolution
//     only from its own Log line or decision record (doctor_evidence.go).
//   - A rejection never abandons work: state.md's next_action becomes the
//     re-scope command carrying the qid and its feedback.
//   - Resolving is idempotent: the same resolution again succeeds and
//     completes the state.md and decisions.md writes a crash left undone.
//   - The notify hook fires after the lock is released and never changes
//     the outcome.
//   - A final question a require-signature rule selects holds the agent
//     (Check, Wait) until its decision carries a signature that counts
//     (signing.go, docs/signing.md); only a person's key makes one, and
//     AFK, rules and expiry never sign.
//
// Decisions where the specification is silent:
//   - An option is "title — rationale". Picking an option by number records
//     its title as the answer; proposed defaults to option 1's title.
//   - Text from callers has CRLF and lone CR turned into LF; NUL bytes and
//     invalid UTF-8 are refused. Everything else is stored byte for byte.
//   - state.md keeps one line per key, so text copied into it (the awaited
//     question) is folded onto one line, and "|" is escaped in tables. The
//     exact text lives in questions.md.
//   - questions.md and decisions.md are created when missing; state.md is
//     required.
package engine
