// Package qid formats, parses and allocates question ids of the form
// q-YYYY-MM-DD-NNN, and reads the clock that dates them.
//
// It also recognises the other ids DevRites workspaces use, so that they
// can be read and resolved: numbered ids (Q-012, q-3) and the names of
// named question blocks (seal-important-accept). Check accepts the three
// forms. Those ids are never allocated and never counted by Next.
//
// Allocation is a pure function of the ids already present: one above the
// highest suffix of the day (or 001), advanced until unused. Gaps are never
// filled, so an id once dropped or renumbered is not reused for another
// question. Suffixes grow past 999 to four digits and more, up to MaxN: a
// larger suffix is not a question id, and a day whose ids reach MaxN has no
// next id (ErrExhausted), so no number ever overflows. The caller
// provides mutual exclusion (the workspace lock) and the re-read just before
// the append (mdstore.Transact).
//
// Limits: ids are unique within one questions.md; two clones that raise
// independently allocate the same next id, which a merge makes a duplicate
// (doctor --fix renumbers the later block).
package qid
