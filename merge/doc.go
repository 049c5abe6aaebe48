// Package merge merges three versions (base, ours, theirs) of a workspace's
// questions.md, state.md and decisions.md, for git's merge driver: clones of
// one workspace raise and answer questions independently, and git brings
// them together.
//
// questions.md merges by question block. A question is known by its
// identity, not its current id: its raised_at, question text and slice,
// and every id it has had (renumbered_from holds the chain of earlier ids,
// oldest first). A block both sides have (the same id or a shared one in
// the chains, the same question) merges field by field against the base:
// the fields of a resolution (status, answered_at, answer, choice,
// answered_by, auto) go together, a final status beats open, and two
// different final statuses or answers are a real conflict; responses are a
// union by responder; reminded_at keeps the later time; renumbered_from
// joins the chains; any other field changed differently on both sides is
// a conflict; a field theirs removed is kept. When ours' id is in theirs'
// chain, the block takes theirs' id (unless ours uses it), so that ids
// only move on along a chain. Blocks new on either side are all kept: ours
// in place, theirs after them in their file order. A block of theirs whose
// id ours uses for another question (two clones that each raised q-…-001)
// keeps its content under the next free id of its date and adds the old
// id to renumbered_from; its supersedes follows. Text outside the blocks
// is ours unless only theirs changed it.
//
// state.md merges field by field against the base, in ours' form (table or
// bullets) and line endings. What holds the agent is three things, each
// merged on its own against the base (compose): the stops (status blocked
// and stop_reason, each known by the times stopped_at holds, else by its
// reason) merge as a set, one either side lifted going and one either side
// made staying, two different reasons made on both sides being a
// conflict; the pauses (the awaited question, then
// awaiting_next) are every question either side paused on that the merged
// questions.md keeps open, less those a side released, the earliest
// raised held and the others queued in awaiting_next; re-scopes owed
// (rescope_pending, and a re-scope next_action the merged one is not) are
// kept in rescope_pending. Status and next_action follow from them;
// next_action, active_slice and slice_mode changed on both sides while
// running take the side whose latest Log line is later. Other keys: the
// side that changed one wins; when both did, schema keeps the higher,
// timestamps the later, anything else conflicts. The Log section is a
// union: theirs' new lines go in time order among ours', each once.
//
// decisions.md is the union of the entries of both sides, each once, in
// time order (answered_at); two different decisions on one question are a
// conflict.
//
// # Renumbering across files
//
// Git gives a merge driver one file's three versions, and runs the drivers
// of a directory's files in an order of its own (merge-ort goes through the
// paths in reverse order, so state.md comes before questions.md; the older
// merge-recursive goes forward). A renumbering decided while merging
// questions.md must still reach the ids state.md and decisions.md name.
// So the renumbering is not a decision handed from one driver to the next:
// Plan computes it as a pure function of the three versions of
// questions.md, and each driver computes it again. The questions.md driver
// has those versions from git; the state.md and decisions.md drivers read
// the ones of the questions.md beside them from the commits being merged
// (package gitdriver finds them and checks them against the versions of its
// own file that git gave it). The Renumbering maps every id of each version
// to its id in the merged questions.md, and State and Decisions read every
// id through it: theirs' awaited question, next_action, rescope_pending and
// Log lines, decisions' headings. No file is written beside the merge and
// nothing is left to do after it.
//
// # Several workspaces
//
// A qid names one question in the whole project, not only in its
// workspace. QuestionsIn and PlanIn take what the merge knows of the
// project's other workspaces (Project, which package gitdriver reads from
// the commits): a block of theirs under an id another workspace holds is
// renumbered as if ours held it, a block new on ours' side under an id
// that a workspace of theirs holds (whose file git takes from theirs as
// it is) moves on to the next free id, and no new id is one of them. Both
// moves are in the Renumbering, so state.md and decisions.md follow.
//
// # Memory
//
// Questions and Plan read each version of questions.md through a Source,
// one at a time: a version is parsed and summed up (each block's id, what
// the question is, digests of its bytes and its answer; the text outside
// the blocks), and dropped. A version is read again only for what the
// merge writes: ours whole, and of theirs and the base the blocks that are
// added or changed. A block is taken as unchanged when its digest (SHA-256)
// is the other version's. Holding the three versions split into lines and
// fields took 229 MB at 10,000 questions (5 MB a version).
//
// State reads the versions of state.md one at a time, ours last. Of the
// base and theirs it keeps what it compares: the cursor, the Awaiting
// human section, the time of the latest Log entry, which of the ids
// next_action names the Log says were rejected or overruled, and of the
// Log entries the base's digests and the texts of theirs' that the base
// lacks. Ours it keeps whole, parsed: it is what is written. The result
// is built once, from ours' parse, and a second time only when the two
// sides' views of a conflict differ. At 10,000 questions (1.4 MB a
// version) the merge of state.md alone peaks at 22 MB of resident memory,
// the driver with its planning of questions.md at 25 MB; holding the
// three versions parsed and their results twice took 37 to 39 MB.
//
// Decisions reads the versions of decisions.md one at a time too, ours
// last: of the base it keeps the digests of its entries and of its text
// before them, of theirs the entries the base lacks, and ours whole, each
// entry one string of the file. Ours' unchanged entries go into the
// result as runs of its text.
//
// At 10,000 questions the driver peaks at about 37 MB of resident memory
// on each file (scripts/bench.sh -rss; about 13 MB of it is the program
// itself), most of it while it plans. It leaves the heap to the runtime's
// collector: a collection once each version was summed up kept it near
// 30 MB, which the driver, run by git once per file, does not need.
//
// # Guarantees
//
//   - No block of ours or theirs is lost, none is doubled, and every answer
//     either side recorded is in the result (or, in a conflict, between its
//     markers). Each result is parsed again and checked for this before it
//     is returned; a result that fails the check is an error, never data.
//   - A real conflict is returned with conflict markers around the lines the
//     two sides disagree on, and a line saying what conflicts; everything
//     else is merged.
//   - Merging never panics on any input; input that is not UTF-8 text is an
//     error that wraps mdstore.ErrMalformed.
//   - A side with nothing new gives the other side's bytes unchanged.
//
// # Limits
//
//   - Git resolves a file that changed on one side only by taking that side,
//     without running the driver: state.md or decisions.md may then name a
//     question by an id the merged questions.md gives another. The engine
//     reads them by identity and corrects them on its next write (package
//     engine, follow).
//   - A question whose text was edited is matched by id (or chain) and
//     raised_at only.
//   - When the base of a merge is a virtual one (criss-cross history), the
//     drivers of state.md and decisions.md read the first merge base's
//     questions.md in its place.
//   - A stop without stopped_at is known by its reason: lifted on one side,
//     and lifted and made again with the same reason on the other, it is
//     lifted.
//   - Free text is not renamed: a question's or an answer's words that name
//     an id keep it.
package merge
