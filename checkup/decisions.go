package checkup

import (
	"fmt"
	"slices"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// checkDecisions reports final questions the engine resolved whose decision
// a crash kept out of decisions.md.
func (d *checkup) checkDecisions(w *wsFiles) {
	if w.HasDec {
		// Zeros where an append was going when the power went, say.
		d.Text(mdstore.DecisionsFile, w.Decisions)
	}
	ledger := d.ledgerOf(w.Decisions) // read once for both checks, and for --fix's repairs
	d.checkLedger(w, ledger)
	for _, b := range missingDecisions(w, ledger) {
		if !engine.ResolutionLogged(w.State, b.QID, b.Value("status")) { // evidence.go
			d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "no-record", File: mdstore.QuestionsFile, Line: b.Line(),
				Problem: b.QID + " is " + b.Value("status") + " in questions.md, but " + engine.NoRecord,
				Mend:    "doctor does not repair it: nothing but questions.md says a person decided it"})
			continue
		}
		d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "decision-missing", File: mdstore.DecisionsFile,
			Problem: fmt.Sprintf("the decision of %s (%s, questions.md:%d) is not logged (a resolution interrupted before decisions.md was written?)", b.QID, b.Value("status"), b.Line()),
			Mend:    "run: devrites-engine doctor --fix (appends it), or re-run the same state resolve", Fixable: !w.refused})
	}
}

// missingDecisions returns the final blocks, resolved by the engine (they
// carry answered_by), whose "## <qid> <status>" entry decisions.md lacks.
// Duplicated and renumbered qids are left out: which entry is theirs cannot
// be told. ledger is decisions.md's blocks (mdstore.DecisionBlocks).
func missingDecisions(w *wsFiles, ledger []*mdstore.Block) []*mdstore.Block {
	logged := make(map[string]bool, len(ledger)) // the titles share w.decisions' bytes
	for _, e := range ledger {
		logged[e.QID] = true
	}
	repeated := repeatedIDs(w.Questions)
	var out []*mdstore.Block
	var key []byte
	for _, b := range w.Questions.Blocks() {
		v, found := b.Peek("status", "answeredby", "renumberedfrom") // every block: not kept
		st := v[0]
		if st == question.StatusOpen || !slices.Contains(mdstore.Statuses, st) || repeated[b.QID] {
			continue
		}
		if !found[1] {
			continue // resolved by hand, or before the engine kept a log
		}
		if found[2] {
			continue
		}
		// DecisionHeading(b.QID, st), built in a buffer that is reused: a
		// lookup of string(key) does not copy it.
		key = append(append(append(key[:0], b.QID...), ' '), st...)
		if !logged[string(key)] {
			out = append(out, b)
		}
	}
	return out
}
