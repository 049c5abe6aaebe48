package checkup

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// Repairs of doctor --fix that change questions.md and decisions.md.

// repair makes the safe repairs on w; repair order matters: ids first, so
// that state.md is reconciled against the renumbered questions.
func (d *checkup) repair(w *wsFiles) error {
	if err := d.removeTemps(); err != nil {
		return err
	}
	if w.refused || d.conflicted() {
		return nil
	}
	if err := d.renumber(w); err != nil {
		return err
	}
	if err := d.renumberShared(w); err != nil {
		return err
	}
	d.followIdentity(w)
	// decisions.md as follow left it: the two repairs that read it do not
	// change it before they have read it.
	ledger := d.ledgerOf(w.Decisions)
	if err := d.restoreLedger(w, ledger); err != nil {
		return err
	}
	d.completeDecisions(w, ledger)
	d.reconcile(w)
	return nil
}

// conflicted reports whether a file holds a merge's conflict markers: then
// nothing is repaired, as nothing is written, until a person settles it.
func (d *checkup) conflicted() bool {
	for _, f := range d.Findings {
		if f.Kind == "conflict" {
			return true
		}
	}
	return false
}

func (d *checkup) removeTemps() error {
	names, err := doctor.TempFiles(d.e.WS.Dir)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := os.Remove(d.e.WS.Path(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "temp-file", File: n, Did: "removed"})
	}
	dirs, err := mdstore.InitTemps(d.e.WS)
	if err != nil {
		return nil
	}
	for _, dir := range dirs {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "init-temp", File: d.beside(dir), Did: "removed"})
	}
	return nil
}

// renumber gives every block whose qid an earlier block already uses the
// next free id of its date, and records the old id in renumbered_from. When
// state.md awaits the qid, the block it means is the one whose question and
// raised_at it copied, else the open one, else the first.
func (d *checkup) renumber(w *wsFiles) error {
	awaited := w.State.AwaitingQID()
	meant := d.meantBlock(w)
	others := d.e.OtherQIDs() // the other workspaces' ids: a renumbering here changes none
	for {
		b := firstDuplicate(w.Questions)
		if b == nil {
			return nil
		}
		old, line := b.QID, b.Line()
		next, err := engine.RenumberedID(&w.Files, old, others) // firstDuplicate returns valid ids only
		if err != nil {
			return err
		}
		isMeant := meant == line
		if err := w.renumber(b, line, old, next); err != nil {
			return err
		}
		did := "renumbered " + old + " to " + next + " (renumbered_from: " + old + ")"
		if isMeant && awaited == old {
			engine.Retarget(w.State, old, next)
			w.dirtyS = true
			did += "; state.md now awaits " + next
		}
		if meant > line {
			meant++ // renumbered_from added a line above it
		}
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "duplicate-qid", File: mdstore.QuestionsFile, Line: line, Did: did})
	}
}

// meantBlock is the heading line of the block state.md's awaited qid means.
func (d *checkup) meantBlock(w *wsFiles) int {
	awaited := w.State.AwaitingQID()
	var same []*mdstore.Block
	for _, b := range w.Questions.Blocks() {
		if b.QID == awaited {
			same = append(same, b)
		}
	}
	if len(same) < 2 {
		return 0
	}
	get := func(k string) string { v, _ := w.State.GetAwaiting(k); return mdstore.OneLine(v) }
	for _, b := range same {
		if mdstore.OneLine(b.Value("question")) == get("question") && b.Value("raised_at") == get("raised_at") {
			return b.Line()
		}
	}
	for _, b := range same {
		if b.Value("status") == question.StatusOpen {
			return b.Line()
		}
	}
	return same[0].Line()
}

// firstDuplicate is the first block whose qid an earlier block has, among
// blocks that can be renumbered (a valid qid in a heading).
func firstDuplicate(qs *mdstore.Questions) *mdstore.Block {
	for _, b := range qs.Blocks() {
		if _, err := qid.Parse(b.QID); err == nil && b.Nth() > 0 && doctor.Renumberable(b) {
			return b
		}
	}
	return nil
}

// repeatedIDs is the set of qids that more than one block has: none, in a
// file the engine alone wrote.
func repeatedIDs(qs *mdstore.Questions) map[string]bool {
	var out map[string]bool
	for _, b := range qs.Blocks() {
		if b.Nth() > 0 {
			if out == nil {
				out = map[string]bool{}
			}
			out[b.QID] = true
		}
	}
	return out
}

func (d *checkup) completeDecisions(w *wsFiles, ledger []*mdstore.Block) {
	missing := slices.DeleteFunc(missingDecisions(w, ledger), func(b *mdstore.Block) bool {
		return !engine.ResolutionLogged(w.State, b.QID, b.Value("status")) // evidence.go: never invented
	})
	if len(missing) == 0 {
		return
	}
	if !w.HasDec {
		w.Decisions = []byte("# Decisions\n")
	}
	for _, b := range missing {
		d.e.AppendDecision(&w.Files, b)
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "decision-missing", File: mdstore.DecisionsFile,
			Did: "appended the decision of " + b.QID + " (" + b.Value("status") + ")"})
	}
	w.dirtyDec = true
}

// renumber gives block b, at line, the id next in place of old, and adds
// old to its renumbered_from chain, which keeps every id the question has
// had (docs/git.md).
func (w *wsFiles) renumber(b *mdstore.Block, line int, old, next string) error {
	chain := old
	if prev := strings.TrimSpace(b.Value("renumbered_from")); prev != "" {
		chain = prev + ", " + old
	}
	if err := w.Questions.Rename(line, next); err != nil {
		return err
	}
	if err := w.Questions.Set(next, mdstore.KV{Key: "renumbered_from", Value: chain}); err != nil {
		return err
	}
	w.dirtyQ = true
	return nil
}
