package checkup

import (
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// A qid names one question in the whole project (docs/git.md, "Several
// features"). Git runs the merge driver only on a file both sides changed:
// when two clones each raised in a different feature, a pull can leave two
// features holding one id, and every command naming it without --slug is
// refused as ambiguous. doctor reports it in the workspace whose question
// is to move — the one raised later (raised_at; on a tie, or without raise
// times, the later slug) — and --fix renumbers that one there, as it
// renumbers a duplicate inside one file: the next free id of the project,
// renumbered_from, the pause, the Log and the decision entry following
// it. The rule is the same on every clone, so clones that each fix it
// agree.

// sharedQID is an id this workspace's questions.md and another workspace's
// hold.
type sharedQID struct {
	block *mdstore.Block
	other string // the other workspace's slug
	moves bool   // this workspace's question is the one to renumber
}

// otherQuestion is a question of another workspace of the project.
type otherQuestion struct {
	id, raisedAt, slug string
}

// otherQuestions are the questions of the project's other workspaces, in
// workspace and file order, read once per run: a renumbering here changes
// none of them.
func (d *checkup) otherQuestions() []otherQuestion {
	if d.others != nil {
		return *d.others
	}
	var out []otherQuestion
	for _, ws := range mdstore.Workspaces(d.e.WS.Devrites) {
		if ws.Dir == d.e.WS.Dir {
			continue
		}
		data, err := ws.ReadFile(mdstore.QuestionsFile)
		if err != nil {
			continue
		}
		for _, ob := range mdstore.ParseQuestions(data).Blocks() {
			out = append(out, otherQuestion{strings.Clone(ob.QID), strings.TrimSpace(strings.Clone(ob.Value("raised_at"))), ws.Slug})
		}
	}
	d.others = &out
	return out
}

// sharedQIDs are this workspace's question ids another workspace of the
// project holds too, in file order.
func (d *checkup) sharedQIDs(w *wsFiles) []sharedQID {
	if !d.e.SeveralWorkspaces() {
		return nil
	}
	mine := map[string]*mdstore.Block{}
	for _, b := range w.Questions.Blocks() {
		if _, err := qid.Parse(b.QID); err == nil && mine[b.QID] == nil {
			mine[b.QID] = b
		}
	}
	if len(mine) == 0 {
		return nil
	}
	var out []sharedQID
	for _, o := range d.otherQuestions() {
		b := mine[o.id]
		if b == nil {
			continue
		}
		mineAt := strings.TrimSpace(b.Value("raised_at"))
		moves := mineAt > o.raisedAt || mineAt == o.raisedAt && d.e.WS.Slug > o.slug
		out = append(out, sharedQID{block: b, other: o.slug, moves: moves})
		delete(mine, o.id) // each id is reported once
	}
	return out
}

// checkSharedQIDs reports the ids another workspace holds too.
func (d *checkup) checkSharedQIDs(w *wsFiles) {
	for _, s := range d.sharedQIDs(w) {
		if !s.moves {
			d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "duplicate-qid", File: mdstore.QuestionsFile, Line: s.block.Line(),
				Problem: "qid " + s.block.QID + " is also a question of " + s.other + ", raised later there (two features raised it on two clones?)",
				Mend:    "run: devrites-engine doctor --slug " + s.other + " --fix (renumbers the later one)"})
			continue
		}
		mend := "run: devrites-engine doctor --slug " + d.e.WS.Slug + " --fix (renumbers this later one and records renumbered_from)"
		if !doctor.Renumberable(s.block) {
			mend = "give one of them another id by hand: doctor renumbers only the engine's q-YYYY-MM-DD-NNN headings"
		}
		d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "duplicate-qid", File: mdstore.QuestionsFile, Line: s.block.Line(),
			Problem: "qid " + s.block.QID + " is also a question of " + s.other + " (two features raised it on two clones?)",
			Mend:    mend, Fixable: !w.refused && doctor.Renumberable(s.block)})
	}
}

// renumberShared gives each question of this workspace whose id an
// earlier-raised question of another workspace holds the next free id of
// the project, with renumbered_from; the pause and the decision entry
// follow it.
func (d *checkup) renumberShared(w *wsFiles) error {
	others := d.e.OtherQIDs()
	for {
		// Found again after each renumbering: renumbered_from adds a line,
		// and the blocks below it move.
		shared := d.sharedQIDs(w)
		i := slices.IndexFunc(shared, func(s sharedQID) bool { return s.moves && doctor.Renumberable(s.block) })
		if i < 0 {
			return nil
		}
		s := shared[i]
		old, line := s.block.QID, s.block.Line()
		next, err := engine.RenumberedID(&w.Files, old, others) // sharedQIDs keeps valid ids only
		if err != nil {
			return err
		}
		if err := w.renumber(s.block, line, old, next); err != nil {
			return err
		}
		others = append(others, next)
		did := "renumbered " + old + " to " + next + " (renumbered_from: " + old + "; " + s.other + " has " + old + ")"
		if w.State != nil && w.State.AwaitingQID() == old {
			did += "; state.md now awaits " + next
		}
		state, decisions := engine.FollowRenumbered(&w.Files, old, next)
		w.dirtyS = w.dirtyS || state
		if decisions {
			w.dirtyDec = true
			did += "; decisions.md follows"
		}
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "duplicate-qid", File: mdstore.QuestionsFile, Line: line, Did: did})
	}
}
