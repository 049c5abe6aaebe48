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
//     only from its own Log line or decision record (evidence.go).
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
//
// Where things are (one line per file; tests sit beside them):
//
//	engine.go         Engine, Open, cursor statuses, the transaction (transact, within) and its file set (Files, wsFiles)
//	errors.go         sentinel errors, remedies and their stable kinds (KindOf)
//	scan.go           the transaction's one scan of the blocks' fields
//	guard.go          the write guard: doctor.Checker's errors refuse a write into a file that does not read
//	identity.go       follow: references follow a question renumbered by a merge; lost pauses restored
//	raise.go          Raise: a checkpoint becomes a question, paused or decided by the policy;
//	                  options that are numbers and SLAs that do not parse are refused
//	policy.go         Decide: the AFK policy, its hard stops, AddRule (rules edits ask it what always pauses)
//	person.go         questions that need a person, and the channels that may answer them
//	streak.go         this machine's record of a person's picks (auto_approve_after)
//	always.go         state resolve --always: an answer and an always-approve rule in one step
//	resolve.go        Resolve: answer, option, drop, reject, and what the cursor does next
//	resolve_check.go  a resolution's checks, all before anything is written (placeholders too)
//	batch.go          state resolve --batch: its lines parsed once
//	pick.go           a person's word bound to the question (fingerprints, ambiguous ids)
//	route.go          a raise's route and strategy checked; the hook's view of a routing
//	respond.go        one responder's answer to a routed question
//	route_doctor.go   Checker: doctor.Checker with the engine's check of routing fields (Routing)
//	pauses.go         the awaited question and those queued behind it
//	stop.go           state stop and state resume
//	rescope.go        re-scopes owed after a rejection, and state rescoped
//	read.go           Show, List, Get, Check: reads without a write
//	show.go           questions show: a question's Text, its resolve command and offer
//	wait.go           Wait: block until a question is final
//	remind.go         overdue questions and their reminders
//	overdue.go        on_overdue: what expiry and escalation do to a question
//	notify.go         firing the hook after a transaction
//	afk.go            afk status, afk explain, notify test, the untrusted files
//	nextqid.go        the id of the next question
//	project.go        the project's workspaces and its raise lock
//	interop.go        what DevRites workspaces write that the engine reads
//	evidence.go       a resolution's evidence: its Log line, its decision in decisions.md
//	recovery.go       the recovery ledger: failures, resolver resume
//	signing.go        signed decisions: what holds the agent, what counts
//	signing_cmd.go    sign <qid>: the statement and the signature
//	tasks.go          tasks.md beside the workspace
//
// Packages beside it: question (the question model: Question, its
// statuses, a block read as a Question, options, SLAs, the fingerprint, a
// routed question's responses and what they decide, the text a person
// reads; the engine decides and writes, question only reads), config
// (loading and trust checks of the AFK file, notify.yaml, rules.yaml and
// engine.yaml), doctor (the checks of the files themselves, which the
// guard and doctor's run use), checkup (doctor's run: doctor's checks and
// those that need the engine, and --fix's repairs; it imports engine,
// never the reverse), mdstore (the files, the lock, the transaction), qid,
// notify, recovery, claims, trust, caplink.
package engine
