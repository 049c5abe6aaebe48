package engine

import (
	"bytes"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// A resolution's evidence (docs/trust.md, "doctor never invents a
// decision"): what its own transaction wrote besides questions.md, its
// Log line in state.md and its entry in decisions.md, the ledger of
// record. A block that says final with neither behind it is never taken
// for a person's decision: a raise does not move the pause off it
// (person.go), and doctor --fix neither appends its decision nor moves
// state.md on from it (checkup/evidence.go).

// NoRecord is the problem of a final block without evidence, in every
// message that reports one: it says what a person does about it.
const NoRecord = "answered with no record: a person must confirm it with state resolve"

// ResolutionLogged reports whether state.md's Log holds the line the
// resolution of id, with status, wrote ("answered q-…", "recorded q-…",
// "auto-picked q-…", with what follows): evidence, besides questions.md,
// that the resolution was made. A line that names id only in passing
// does not count.
func ResolutionLogged(s *mdstore.State, id, status string) bool {
	head, end, ok := s.LogSpan()
	if !ok {
		return false
	}
	prefixes := []string{status + " " + id, status + " provisional " + id, "recorded " + id, "auto-picked " + id}
	for i := head + 1; i < end; i++ {
		l := s.Line(i)
		_, text, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		for _, p := range prefixes {
			if rest, ok := strings.CutPrefix(text, p); ok && (rest == "" || strings.ContainsRune(" ;(", rune(rest[0]))) {
				return true
			}
		}
	}
	return false
}

// Evidenced reports whether the final block b is backed by evidence: its
// resolution's Log line in s, or a last recorded decision (recorded, by
// id) of its status.
func Evidenced(s *mdstore.State, b *mdstore.Block, recorded func(id string) (Record, bool)) bool {
	st := b.Value("status")
	if ResolutionLogged(s, b.QID, st) {
		return true
	}
	rec, ok := recorded(b.QID)
	return ok && rec.Status == st
}

// Record is a final decision decisions.md records: the question's ID, its
// Status (never open), the Line of its entry and the Entry itself. The
// zero Record (ID "") records none.
type Record struct {
	ID, Status string
	Line       int
	Entry      *mdstore.Block
}

// RecordOf reads an entry of decisions.md as a final decision; its id is ""
// when the entry records none.
func RecordOf(e *mdstore.Block) Record {
	id := mdstore.DecisionID(e.QID)
	status := strings.TrimSpace(strings.TrimPrefix(e.QID, id))
	if id == "" || !slices.Contains(mdstore.Statuses, status) || status == question.StatusOpen {
		return Record{}
	}
	return Record{ID: id, Status: status, Line: e.Line(), Entry: e}
}

// LastRecord is the last final decision of id that ledger
// (decisions.md's blocks, mdstore.DecisionBlocks) records: a later entry
// of a question supersedes an earlier one.
func LastRecord(ledger []*mdstore.Block, id string) (Record, bool) {
	for i := len(ledger) - 1; i >= 0; i-- {
		if r := RecordOf(ledger[i]); r.ID == id {
			return r, true
		}
	}
	return Record{}, false
}

// SameQuestion reports whether the entry is about block b's question
// (mdstore.RecordsQuestion): an entry under an id that a renumbering gave
// to another question, or of another question asking the same text, is
// not.
func (r Record) SameQuestion(b *mdstore.Block) bool {
	return mdstore.RecordsQuestion(r.Entry.Value("question"), r.Entry.Value("raised_at"), b.Value("question"), b.Value("raised_at"))
}

// recordedDecision is the last final decision of id, if decisions.md has
// one. A file that holds no "## <id> " is not parsed: a resolve asks this
// of every question it resolves.
func recordedDecision(b []byte, id string) (Record, bool) {
	if !bytes.Contains(b, []byte("## "+id+" ")) {
		return Record{}, false
	}
	return LastRecord(mdstore.DecisionBlocks(b), id)
}
