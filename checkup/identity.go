package checkup

import (
	"bytes"
	"slices"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
)

// Doctor's side of follow (engine.Follow). Doctor reads the workspace as
// every command does, through follow: a reference a renumbering moved is
// read as the question it means (the next write corrects it, and so does
// --fix), and is not a finding; a pause that no pause holds is an error,
// which --fix restores.

// checkIdentity reports the pauses follow would restore, and returns the
// files as follow leaves them (w itself when it changes nothing), which
// the later checks read.
func (d *checkup) checkIdentity(w *wsFiles) *wsFiles {
	if w.refused || w.State == nil || w.Questions == nil || firstDuplicate(w.Questions) != nil {
		return w // which block an id means is settled by renumbering first
	}
	c := *w
	c.State = mdstore.ParseState(w.stateBytes())
	// follow replaces decisions.md's bytes rather than change them; with no
	// room after them, nothing appended can land in w's either.
	c.Decisions = slices.Clip(w.Decisions)
	fixed := d.e.Follow(&c.Files)
	if len(fixed) == 0 {
		return w
	}
	for _, x := range fixed {
		if !x.Lost {
			continue
		}
		d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "identity", File: x.File, Line: x.Line, Problem: x.Problem,
			Mend: "run: devrites-engine doctor --fix (" + x.Did + ")", Fixable: true})
	}
	return &c
}

// followIdentity is --fix's: the corrections follow makes, written.
func (d *checkup) followIdentity(w *wsFiles) {
	if w.refused || firstDuplicate(w.Questions) != nil {
		return
	}
	before := w.Decisions // follow replaces decisions.md's bytes, never changes them
	for _, x := range d.e.Follow(&w.Files) {
		w.dirtyS = w.dirtyS || x.File == mdstore.StateFile
		d.Repairs = append(d.Repairs, doctor.Repair{Kind: "identity", File: x.File, Line: x.Line, Did: x.Did})
	}
	w.dirtyDec = w.dirtyDec || !bytes.Equal(w.Decisions, before)
}
