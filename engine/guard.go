package engine

import (
	"fmt"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
)

// readable refuses a write into state.md or questions.md while either holds
// an error that doctor reports inside the file itself (invalid UTF-8, binary
// content, a merge's conflict markers (in decisions.md too), a block without status, an unknown status or gate, an SLA or qid
// out of bounds, a question heading swallowed by an open fence): the engine
// writes only into files it reads cleanly. Drift between the two files is
// left out, since resolving and raising are how drift ends, and so are
// duplicate qids, which are refused only where a command addresses them.
// The blocks' fields are read from sc, the transaction's one scan of them
// (scan.go): only a block it found wrong is read again, for the words.
func (e *Engine) readable(w *wsFiles, sc *scan) error {
	if err := e.readableState(w); err != nil {
		return err
	}
	return e.readableQuestions(w, sc)
}

// readableState is readable's check of state.md, which comes first, and
// of decisions.md's text (conflict markers a merge left: a write through
// them would settle the merge by accident).
func (e *Engine) readableState(w *wsFiles) error {
	c := e.Checker()
	c.ErrorsOnly = true
	if w.hasState {
		c.State(w.State, w.origState)
	}
	if w.HasDec {
		c.Markers(mdstore.DecisionsFile, w.Decisions)
	}
	return e.refusal(c)
}

// readableQuestions is readable's check of questions.md, of the blocks sc
// found not reading (Checker.Unclean), and of routing fields
// (routingErrors). state.md reads: readableState refused the write if not.
func (e *Engine) readableQuestions(w *wsFiles, sc *scan) error {
	c := e.Checker()
	c.ErrorsOnly, c.Unclean = true, sc.unclean
	if w.hasQ {
		c.Questions(w.Questions, w.origQ, false)
	}
	routingErrors(c, w, sc)
	return e.refusal(c)
}

// refusal is the error of the first error c found, if any.
func (e *Engine) refusal(c *doctor.Checker) error {
	for _, f := range c.Findings {
		if f.Severity != doctor.SevError {
			continue
		}
		where := e.WS.Path(f.File)
		if f.Line > 0 {
			where += fmt.Sprintf(":%d", f.Line)
		}
		return mdstore.Errorf(ErrMalformed, "%s: %s", where, f.Problem).Hint("nothing was written; "+f.Mend).Fix(mdstore.RunDoctor, "")
	}
	return nil
}
