// Package question is the question model of the DevRites HITL workflow: a
// question as callers and JSON see it (Question), read from its block in
// questions.md, and what its fields say. It reads and describes; the
// engine (package engine) decides, and writes every change in one
// transaction. question imports mdstore and config, never engine.
//
// A Question is one block of questions.md: a "## q-…" heading and its
// fields, or a row of DevRites' question register. Its status is one of
// StatusOpen, StatusAnswered, StatusDropped and StatusRejected
// (mdstore.Statuses). Options are "title — rationale"; the first may carry
// the Recommended mark, and the engine adds the escape hatch
// (EscapeHatch, "Something else — …") last, which an answer picks only in
// words. OptionTitle is what an answer that picks an option records.
//
// How a block becomes a Question (FromBlock): its fields are read in one
// pass, keys in any spelling (mdstore.NormKey), and the first field of a
// key wins. Options are read numbered ("1. …", "2) …") or as bullets; a
// line without a mark continues the option before it. An open question's
// empty answer is no answer; a block without a gate takes its heading's;
// a question without an SLA has its gate's (DefaultSLA). Overdue is
// decided by the clock given; a routed question's Progress and WaitingFor
// come from its responses (FillRouting).
//
// Invariants:
//   - A Question read from a file shares the file's memory; Detached
//     copies every text, for a question kept longer than the read.
//   - Fingerprint is the question's identity: the hash of what a person
//     was shown and when it was asked, in one canonical form
//     (docs/formats.md, "Question fingerprint"). A renumbering leaves it
//     unchanged; a token, link or signature binds it, never a qid.
//   - An option is never a number (NumberTitle), and a placeholder is
//     never an answer (IsPlaceholder): the engine refuses both.
//   - A question with a route and a strategy is routed: its responses
//     decide it as the strategy says (Routing, Verdict); a route without a
//     strategy is a page, and anyone may answer. The route words owner and
//     any stand for anyone.
//   - Nothing here writes a file or answers for a person.
//
// Where things are (one line per file; tests sit beside them):
//
//	question.go       Question, statuses, FromBlock, Detached, options and their titles, SLAs, Age, text helpers
//	option_number.go  an option's number or bullet; an option is never a number (NumberTitle)
//	placeholder.go    a placeholder is never an answer (IsPlaceholder)
//	fingerprint.go    Fingerprint: the question's canonical hash
//	route.go          a routed question: strategies, route words, responses, who may answer, progress
//	outcome.go        what the responses to a routed question decide (Verdict)
//	show.go           a question as a person reads it (Text, HowResolved, WaitingText)
package question
