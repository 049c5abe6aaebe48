package engine

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/doctor"
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

// recorded is the last final decision decisions.md records for a qid.
type recorded struct {
	id, status string
	line       int
	entry      *mdstore.Block
}

// resolutionFields are the fields of a decision that restore a resolution.
var resolutionFields = []string{"answered_at", "answer", "choice", "answered_by", "answered_via", "auto", "strategy", "responses"}

// recordedDecisions returns, by qid, where in ledger (decisions.md's
// blocks, mdstore.DecisionBlocks) the last entry that records a final
// status is (recordOf reads it): a place, not the record, as a workspace
// of 10,000 decisions would hold 10,000 records.
func recordedDecisions(ledger []*mdstore.Block) map[string]int {
	out := make(map[string]int, len(ledger))
	for i, e := range ledger {
		if r := recordOf(e); r.id != "" {
			out[r.id] = i
		}
	}
	return out
}

// lastRecord is the last final decision of id that ledger records.
func lastRecord(ledger []*mdstore.Block, id string) (recorded, bool) {
	for i := len(ledger) - 1; i >= 0; i-- {
		if r := recordOf(ledger[i]); r.id == id {
			return r, true
		}
	}
	return recorded{}, false
}

// recordOf reads an entry of decisions.md as a final decision; its id is ""
// when the entry records none.
func recordOf(e *mdstore.Block) recorded {
	id := mdstore.DecisionID(e.QID)
	status := strings.TrimSpace(strings.TrimPrefix(e.QID, id))
	if id == "" || !slices.Contains(mdstore.Statuses, status) || status == question.StatusOpen {
		return recorded{}
	}
	return recorded{id: id, status: status, line: e.Line(), entry: e}
}

// sameQuestion reports whether the entry is about block b's question
// (mdstore.RecordsQuestion): an entry under an id that a renumbering gave
// to another question, or of another question asking the same text, is
// not.
func (r recorded) sameQuestion(b *mdstore.Block) bool {
	return mdstore.RecordsQuestion(r.entry.Value("question"), r.entry.Value("raised_at"), b.Value("question"), b.Value("raised_at"))
}

// recordedDecision is the last final decision of id, if decisions.md has
// one. A file that holds no "## <id> " is not parsed: a resolve asks this
// of every question it resolves.
func recordedDecision(b []byte, id string) (recorded, bool) {
	if !bytes.Contains(b, []byte("## "+id+" ")) {
		return recorded{}, false
	}
	return lastRecord(mdstore.DecisionBlocks(b), id)
}

// reverted is a question whose block disagrees with its recorded decision:
// open (block set) or missing (block nil).
type reverted struct {
	recorded
	block *mdstore.Block
}

// revertedQuestions lists them in decisions.md's order (ledger is its
// blocks). A block whose question text differs from the entry's is another
// question under a renumbered id, and is left alone; so are duplicated
// qids.
func revertedQuestions(w *wsFiles, ledger []*mdstore.Block) []reverted {
	if !w.hasDec {
		return nil
	}
	rec := recordedDecisions(ledger)
	repeated := repeatedIDs(w.questions)
	found := map[string]*mdstore.Block{} // the recorded ids' blocks that are open
	for _, b := range w.questions.Blocks() {
		i, ok := rec[b.QID]
		if !ok {
			continue
		}
		if v, _ := b.Peek("status"); repeated[b.QID] || v[0] != question.StatusOpen || !recordOf(ledger[i]).sameQuestion(b) {
			delete(rec, b.QID) // a duplicated qid, a block that agrees, or another question
			continue
		}
		found[b.QID] = b
	}
	out := make([]reverted, 0, len(rec))
	for id, i := range rec {
		out = append(out, reverted{recordOf(ledger[i]), found[id]})
	}
	slices.SortFunc(out, func(a, b reverted) int { return a.line - b.line })
	return out
}

// vanishedAwaited is the qid state.md awaits when questions.md has lost it
// and decisions.md records no decision of it, else "".
func vanishedAwaited(w *wsFiles, ledger []*mdstore.Block) string {
	id := w.state.AwaitingQID()
	if id == "" || w.questions.Find(id) != nil {
		return ""
	}
	if _, ok := lastRecord(ledger, id); ok {
		return ""
	}
	return id
}

// checkLedger reports the questions reverted behind decisions.md's back.
func (d *checkup) checkLedger(w *wsFiles, ledger []*mdstore.Block) {
	if w.refused || !w.hasDec {
		return
	}
	for _, r := range revertedQuestions(w, ledger) {
		f := doctor.Finding{Severity: doctor.SevError, Kind: "ledger", File: mdstore.DecisionsFile, Line: r.line,
			Problem: fmt.Sprintf("decisions.md records %s %s, but questions.md has lost it (a stale editor save or a bad merge?)", r.id, r.status),
			Mend:    "run: devrites-engine doctor --fix (restores the question with its recorded resolution)", Fixable: w.held == ""}
		if r.block != nil {
			f.File, f.Line = mdstore.QuestionsFile, r.block.Line()
			f.Problem = fmt.Sprintf("%s is open here, but decisions.md:%d records it %s (a stale editor save or a bad merge?)", r.id, r.line, r.status)
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
		kvs := []mdstore.KV{{Key: "status", Value: r.status}}
		for _, k := range resolutionFields {
			if v, ok := r.entry.Get(k); ok {
				kvs = append(kvs, mdstore.KV{Key: k, Value: v})
			}
		}
		did := fmt.Sprintf("%s %s again, as decisions.md:%d records", r.id, r.status, r.line)
		if r.block == nil {
			var head []mdstore.KV
			for _, k := range []string{"slice", "gate", "question"} {
				if v, ok := r.entry.Get(k); ok {
					head = append(head, mdstore.KV{Key: k, Value: v})
				}
			}
			kvs = append(append(kvs[:1:1], head...), kvs[1:]...)
			kvs = append(kvs, mdstore.KV{Key: "restored_from", Value: mdstore.DecisionsFile})
			w.questions.Append(r.id, kvs...)
			did = fmt.Sprintf("restored %s (%s) from decisions.md:%d", r.id, r.status, r.line)
		} else if err := w.questions.Set(r.id, kvs...); err != nil {
			return err
		}
		w.dirtyQ = true
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "ledger", File: mdstore.QuestionsFile, Line: w.questions.Find(r.id).Line(), Did: did})
	}
	if _, blocked := stopReason(w.state); blocked {
		return nil // a stop: doctor does not move it (see reconcile)
	}
	if id := vanishedAwaited(w, ledger); id != "" {
		kvs := []mdstore.KV{{Key: "status", Value: question.StatusOpen}}
		if v, ok := w.state.Get("active_slice"); ok {
			kvs = append(kvs, mdstore.KV{Key: "slice", Value: v})
		}
		for _, k := range []string{"gate", "question", "proposed", "raised_at", "blocking_slices"} {
			if v, ok := w.state.GetAwaiting(k); ok {
				kvs = append(kvs, mdstore.KV{Key: k, Value: v})
			}
		}
		kvs = append(kvs, mdstore.KV{Key: "restored_from", Value: mdstore.StateFile})
		w.questions.Append(id, kvs...)
		w.dirtyQ = true
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "ledger", File: mdstore.QuestionsFile, Line: w.questions.Find(id).Line(),
			Did: "restored " + id + " (open) from state.md's Awaiting section: nobody has answered it"})
	}
	return nil
}
