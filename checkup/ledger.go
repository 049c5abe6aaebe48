package checkup

import (
	"fmt"
	"slices"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// decisions.md is the ledger of record: a question that questions.md holds
// open, or has lost, while decisions.md records it final was reverted by
// something that is not the engine (a stale editor save, a bad merge), and
// the recorded resolution is restored. A question state.md awaits that
// questions.md has lost, and decisions.md does not record, is restored
// open from state.md's Awaiting section: nobody has answered it, and the
// agent must not proceed as if someone had.

// resolutionFields are the fields of a decision that restore a resolution.
var resolutionFields = []string{"answered_at", "answer", "choice", "answered_by", "answered_via", "auto", "strategy", "responses"}

// recordedDecisions returns, by qid, where in ledger (decisions.md's
// blocks, mdstore.DecisionBlocks) the last entry that records a final
// status is (RecordOf reads it): a place, not the record, as a workspace
// of 10,000 decisions would hold 10,000 records.
func recordedDecisions(ledger []*mdstore.Block) map[string]int {
	out := make(map[string]int, len(ledger))
	for i, e := range ledger {
		if r := engine.RecordOf(e); r.ID != "" {
			out[r.ID] = i
		}
	}
	return out
}

// reverted is a question whose block disagrees with its recorded decision:
// open (block set) or missing (block nil).
type reverted struct {
	engine.Record
	block *mdstore.Block
}

// revertedQuestions lists them in decisions.md's order (ledger is its
// blocks). A block whose question text differs from the entry's is another
// question under a renumbered id, and is left alone; so are duplicated
// qids.
func revertedQuestions(w *wsFiles, ledger []*mdstore.Block) []reverted {
	if !w.HasDec {
		return nil
	}
	rec := recordedDecisions(ledger)
	repeated := repeatedIDs(w.Questions)
	found := map[string]*mdstore.Block{} // the recorded ids' blocks that are open
	for _, b := range w.Questions.Blocks() {
		i, ok := rec[b.QID]
		if !ok {
			continue
		}
		if v, _ := b.Peek("status"); repeated[b.QID] || v[0] != question.StatusOpen || !engine.RecordOf(ledger[i]).SameQuestion(b) {
			delete(rec, b.QID) // a duplicated qid, a block that agrees, or another question
			continue
		}
		found[b.QID] = b
	}
	out := make([]reverted, 0, len(rec))
	for id, i := range rec {
		out = append(out, reverted{engine.RecordOf(ledger[i]), found[id]})
	}
	slices.SortFunc(out, func(a, b reverted) int { return a.Line - b.Line })
	return out
}

// vanishedAwaited is the qid state.md awaits when questions.md has lost it
// and decisions.md records no decision of it, else "".
func vanishedAwaited(w *wsFiles, ledger []*mdstore.Block) string {
	id := w.State.AwaitingQID()
	if id == "" || w.Questions.Find(id) != nil {
		return ""
	}
	if _, ok := engine.LastRecord(ledger, id); ok {
		return ""
	}
	return id
}

// checkLedger reports the questions reverted behind decisions.md's back.
func (d *checkup) checkLedger(w *wsFiles, ledger []*mdstore.Block) {
	if w.refused || !w.HasDec {
		return
	}
	for _, r := range revertedQuestions(w, ledger) {
		f := doctor.Finding{Severity: doctor.SevError, Kind: "ledger", File: mdstore.DecisionsFile, Line: r.Line,
			Problem: fmt.Sprintf("decisions.md records %s %s, but questions.md has lost it (a stale editor save or a bad merge?)", r.ID, r.Status),
			Mend:    "run: devrites-engine doctor --fix (restores the question with its recorded resolution)", Fixable: w.held == ""}
		if r.block != nil {
			f.File, f.Line = mdstore.QuestionsFile, r.block.Line()
			f.Problem = fmt.Sprintf("%s is open here, but decisions.md:%d records it %s (a stale editor save or a bad merge?)", r.ID, r.Line, r.Status)
			f.Mend = "run: devrites-engine doctor --fix (restores the recorded resolution)"
		}
		if w.held != "" {
			f.Mend = "mend the errors first: " + w.held + "; then run devrites-engine doctor --fix (restores the recorded resolution)"
		}
		d.Add(f)
	}
}

// restoreLedger is checkLedger's repair, and the restoring of a vanished
// awaited question; reconcile then settles state.md against the result.
func (d *checkup) restoreLedger(w *wsFiles, ledger []*mdstore.Block) error {
	if w.held != "" {
		return nil // questions.md is missing or has errors of its own
	}
	for _, r := range revertedQuestions(w, ledger) {
		kvs := []mdstore.KV{{Key: "status", Value: r.Status}}
		for _, k := range resolutionFields {
			if v, ok := r.Entry.Get(k); ok {
				kvs = append(kvs, mdstore.KV{Key: k, Value: v})
			}
		}
		did := fmt.Sprintf("%s %s again, as decisions.md:%d records", r.ID, r.Status, r.Line)
		if r.block == nil {
			var head []mdstore.KV
			for _, k := range []string{"slice", "gate", "question"} {
				if v, ok := r.Entry.Get(k); ok {
					head = append(head, mdstore.KV{Key: k, Value: v})
				}
			}
			kvs = append(append(kvs[:1:1], head...), kvs[1:]...)
			kvs = append(kvs, mdstore.KV{Key: "restored_from", Value: mdstore.DecisionsFile})
			w.Questions.Append(r.ID, kvs...)
			did = fmt.Sprintf("restored %s (%s) from decisions.md:%d", r.ID, r.Status, r.Line)
		} else if err := w.Questions.Set(r.ID, kvs...); err != nil {
			return err
		}
		w.dirtyQ = true
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "ledger", File: mdstore.QuestionsFile, Line: w.Questions.Find(r.ID).Line(), Did: did})
	}
	if _, blocked := engine.StopReason(w.State); blocked {
		return nil // a stop: doctor does not move it (see reconcile)
	}
	if id := vanishedAwaited(w, ledger); id != "" {
		kvs := []mdstore.KV{{Key: "status", Value: question.StatusOpen}}
		if v, ok := w.State.Get("active_slice"); ok {
			kvs = append(kvs, mdstore.KV{Key: "slice", Value: v})
		}
		for _, k := range []string{"gate", "question", "proposed", "raised_at", "blocking_slices"} {
			if v, ok := w.State.GetAwaiting(k); ok {
				kvs = append(kvs, mdstore.KV{Key: k, Value: v})
			}
		}
		kvs = append(kvs, mdstore.KV{Key: "restored_from", Value: mdstore.StateFile})
		w.Questions.Append(id, kvs...)
		w.dirtyQ = true
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "ledger", File: mdstore.QuestionsFile, Line: w.Questions.Find(id).Line(),
			Did: "restored " + id + " (open) from state.md's Awaiting section: nobody has answered it"})
	}
	return nil
}
