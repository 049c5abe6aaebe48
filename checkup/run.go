package checkup

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

// Run checks a workspace and, with fix, makes the repairs that cannot lose
// information, all in one transaction under the workspace lock:
//   - state.md is reconciled from questions.md (the source of truth): a pause
//     a crash lost is restored, a pause on a question that is no longer open
//     is lifted as the resolution would have lifted it;
//   - temporary files left by an interrupted atomic write are removed;
//   - the later of two blocks with the same qid is renumbered, the block
//     records renumbered_from, and state.md follows when it meant that block;
//   - a decision that a crash kept out of decisions.md is appended.
//
// Everything else is reported with how to mend it, never changed: doctor
// does not guess at text a person wrote. The checks run under the lock so
// that state.md and questions.md come from the same transaction. When the
// lock cannot be had within the timeout, that is itself a finding, the files
// are checked without it, nothing is repaired, and Run returns that report
// together with the lock's error (which wraps mdstore.ErrBusy).
func Run(ctx context.Context, ws *mdstore.Workspace, now func() time.Time, lockTimeout time.Duration, fix bool) (*doctor.Report, error) {
	e, err := engine.Open(ws, now, lockTimeout, "doctor")
	if err != nil {
		return nil, err
	}
	d := newCheckup(e)
	d.Templates(e.Templates, e.ConfigErr())
	global := d.Findings

	// Each run of the transaction checks (and repairs) with a doctor of its
	// own, so that a run repeated on newer files reports only what it saw.
	run, err := mdstore.Transact(ctx, ws, lockTimeout, func(tx *mdstore.Tx) (*checkup, error) {
		d := newCheckup(e)
		d.Findings = slices.Clone(global)
		w, err := d.load(tx.ReadOptional)
		if err != nil {
			return nil, err
		}
		d.checkAll(w, true)
		if !fix || !d.anyFixable() {
			return d, nil
		}
		if err := d.repair(w); err != nil {
			return nil, err
		}
		d.Findings = slices.Clone(global)
		d.checkAll(w, true)
		w.stage(tx)
		return d, nil
	})
	if err == nil {
		d = run
	}
	var busy error
	if errors.Is(err, mdstore.ErrBusy) {
		busy = err
		d.Findings, d.Repairs = append([]doctor.Finding(nil), global...), nil
		holder := "another process"
		if pid := mdstore.LockHolder(ws); pid > 0 {
			holder = "pid " + strconv.Itoa(pid)
		}
		mend := "if " + holder + " is not a devrites-engine command still at work, end it: the lock is released when its holder exits"
		if fix {
			mend += "; nothing was repaired"
		}
		d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "lock", File: mdstore.LockFile,
			Problem: "held by " + holder + " for longer than the lock timeout (" + lockTimeout.String() + ")", Mend: mend})
		w, lerr := d.load(d.e.ReadUnlocked)
		if lerr != nil {
			return nil, lerr
		}
		d.checkAll(w, false)
	} else if err != nil {
		return nil, err
	}
	d.Config(e.AFK, e.Hook, e.Untrusted())
	d.Rules(&e.Rules)
	d.Claims(ctx, fix && busy == nil, e.LockTimeout, e.Now)
	return d.report(), busy
}

// checkup is one run of doctor's checks on the engine's workspace: the
// checks of the files themselves (doctor.Checker, with the engine's
// routing check) and those that need the engine (drift, identity,
// ledgers, signatures), and --fix's repairs.
type checkup struct {
	*doctor.Checker
	e *engine.Engine
	// ledger is decisions.md's blocks, parsed from ledgerSrc (ledgerOf).
	ledger    []*mdstore.Block
	ledgerSrc []byte
	others    *[]otherQuestion // otherQuestions, once read
}

// newCheckup starts a run of the checks.
func newCheckup(e *engine.Engine) *checkup {
	return &checkup{Checker: e.Checker(), e: e}
}

// checkState checks state.md (doctor.Checker.State); a missing or refused
// one is not repaired.
func (d *checkup) checkState(w *wsFiles) {
	if !w.hasState || d.State(w.State, w.origState) {
		w.refused = true
	}
}

// checkQuestions checks questions.md (doctor.Checker.Questions).
func (d *checkup) checkQuestions(w *wsFiles) {
	if w.hasQ {
		d.Questions(w.Questions, w.origQ, w.refused)
	}
}

// ledgerOf is decisions.md's blocks for its bytes b, parsed once for each
// version of them: a check, its repairs and the check after them read the
// same bytes unless a repair replaced them (decisions.md's bytes are
// replaced or appended to, never changed in place).
func (d *checkup) ledgerOf(b []byte) []*mdstore.Block {
	if d.ledgerSrc == nil || len(b) != len(d.ledgerSrc) || len(b) > 0 && &b[0] != &d.ledgerSrc[0] {
		d.ledger, d.ledgerSrc = mdstore.DecisionBlocks(b), b
	}
	return d.ledger
}

func (d *checkup) anyFixable() bool {
	return (&doctor.Report{Findings: d.Findings}).Fixable()
}

func (d *checkup) report() *doctor.Report {
	return doctor.NewReport(d.e.WS.Dir, d.Findings, d.Repairs)
}

// load reads the files through read (the transaction's, or plain reads when
// the lock is busy) and reports the ones that are missing or not regular.
func (d *checkup) load(read func(string) ([]byte, bool, error)) (*wsFiles, error) {
	w := &wsFiles{}
	usable := func(name string, missing doctor.Finding) ([]byte, bool, error) {
		fi, err := os.Lstat(d.e.WS.Path(name))
		if errors.Is(err, fs.ErrNotExist) {
			missing.Kind, missing.File = "missing-file", name
			d.Add(missing)
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if !fi.Mode().IsRegular() {
			d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "not-regular", File: name,
				Problem: "not a regular file (" + mdstore.FileType(fi.Mode()) + "); the engine refuses to read or replace it",
				Mend:    "replace it with a plain file holding the content, e.g. cp --remove-destination \"$(readlink -f " + name + ")\" " + name})
			return nil, false, nil
		}
		return read(name)
	}
	var err error
	w.origState, w.hasState, err = usable(mdstore.StateFile, doctor.Finding{Severity: doctor.SevError,
		Problem: "missing: the cursor of the workspace is gone",
		Mend:    "restore it from version control (git checkout -- state.md); without a copy, move the feature directory aside and run devrites-engine init <slug> again"})
	if err != nil {
		return nil, err
	}
	if w.hasState {
		w.State = mdstore.ParseState(w.origState)
	}
	w.origQ, w.hasQ, err = usable(mdstore.QuestionsFile, doctor.Finding{Severity: doctor.SevWarning,
		Problem: "missing: no question has been raised here",
		Mend:    "nothing to do if that is so (the first raise creates it); else restore it from version control"})
	if err != nil {
		return nil, err
	}
	w.Questions = mdstore.ParseQuestions(w.origQ)
	w.Decisions, w.HasDec, err = usable(mdstore.DecisionsFile, doctor.Finding{Severity: doctor.SevWarning,
		Problem: "missing: no decision has been recorded here",
		Mend:    "nothing to do if that is so (the first resolution creates it); else restore it from version control"})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// wsFiles is the workspace as doctor reads and repairs it.
type wsFiles struct {
	engine.Files
	hasState, hasQ   bool
	origQ, origState []byte
	refused          bool // schema too new or unreadable: nothing is repaired
	// held says why the cursor must not be reconciled from questions.md
	// (it is missing, or one of the two files has errors of its own);
	// "" when it may be.
	held           string
	dirtyQ, dirtyS bool
	dirtyDec       bool
}

// stateBytes is state.md as it stands: the bytes read, not a copy, unless
// a repair has changed it.
func (w *wsFiles) stateBytes() []byte {
	if w.State.Equal(w.origState) {
		return w.origState
	}
	return w.State.Bytes()
}

// holdCursor says why drift must not be repaired: a cursor is reconciled
// only from a questions.md that is there and reads cleanly, next to a
// state.md that does; otherwise a broken status line could lift a pause
// nobody answered.
func (d *checkup) holdCursor(w *wsFiles) string {
	if !w.hasQ {
		return "questions.md is missing or not a regular file"
	}
	for _, f := range d.Findings {
		if f.Severity == doctor.SevError && (f.File == mdstore.QuestionsFile || f.File == mdstore.StateFile) && f.Kind != "duplicate-qid" && f.Kind != "ledger" {
			return f.File + " has errors of its own (above)"
		}
	}
	return ""
}

// stage hands the repaired files to the transaction, as lines written out
// at commit (not a copy of each file).
func (w *wsFiles) stage(tx *mdstore.Tx) {
	if w.dirtyQ {
		tx.WriteContent(mdstore.QuestionsFile, w.Questions)
	}
	if w.dirtyS {
		tx.WriteContent(mdstore.StateFile, w.State)
	}
	if w.dirtyDec {
		tx.Write(mdstore.DecisionsFile, w.Decisions)
	}
}

func (d *checkup) checkAll(w *wsFiles, locked bool) {
	d.checkState(w)
	d.checkQuestions(w)
	d.checkSharedQIDs(w)
	w.held = d.holdCursor(w)
	followed := d.checkIdentity(w)
	d.checkDrift(followed)
	d.checkDecisions(followed)
	d.checkSignatures(w)
	d.Temps(locked)
	d.checkInitTemps(locked)
	d.Recovery()
	d.Tasks()
}
