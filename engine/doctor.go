package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// Doctor checks a workspace and, with fix, makes the repairs that cannot lose
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
// are checked without it, nothing is repaired, and Doctor returns that report
// together with the lock's error (which wraps mdstore.ErrBusy).
func Doctor(ctx context.Context, ws *mdstore.Workspace, now func() time.Time, lockTimeout time.Duration, fix bool) (*DoctorReport, error) {
	e, err := Open(ws, now, lockTimeout, "doctor")
	if err != nil {
		return nil, err
	}
	d := &doctor{e: e}
	if err := e.ConfigErr(); err != nil {
		problem := strings.TrimPrefix(err.Error(), filepath.Join(ws.Devrites, "engine.yaml")+": ")
		d.add(Finding{Severity: SevError, Kind: "config", File: d.devritesName("engine.yaml"), Problem: problem,
			Mend: "fix the YAML, or delete the file to use the default next_action texts"})
	}
	for _, w := range e.Templates.Invalid {
		d.add(Finding{Severity: SevError, Kind: "config", File: d.devritesName("engine.yaml"), Problem: strings.TrimPrefix(w, filepath.Join(ws.Devrites, "engine.yaml")+": "),
			Mend: "write a /rite-… or devrites-engine command with the placeholders {qid}, {phase}, {slice} and \"<answer>\", or delete the key"})
	}
	for _, w := range e.Templates.Warnings {
		line, text := splitWarning(w, filepath.Join(ws.Devrites, "engine.yaml"))
		d.add(Finding{Severity: SevWarning, Kind: "config", File: d.devritesName("engine.yaml"), Line: line, Problem: text,
			Mend: "delete the key, or correct its name"})
	}
	global := d.findings

	// Each run of the transaction checks (and repairs) with a doctor of its
	// own, so that a run repeated on newer files reports only what it saw.
	run, err := mdstore.Transact(ctx, ws, lockTimeout, func(tx *mdstore.Tx) (*doctor, error) {
		d := &doctor{e: e, findings: slices.Clone(global)}
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
		d.findings = slices.Clone(global)
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
		d.findings, d.repairs = append([]Finding(nil), global...), nil
		holder := "another process"
		if pid := mdstore.LockHolder(ws); pid > 0 {
			holder = "pid " + strconv.Itoa(pid)
		}
		mend := "if " + holder + " is not a devrites-engine command still at work, end it: the lock is released when its holder exits"
		if fix {
			mend += "; nothing was repaired"
		}
		d.add(Finding{Severity: SevError, Kind: "lock", File: mdstore.LockFile,
			Problem: "held by " + holder + " for longer than the lock timeout (" + lockTimeout.String() + ")", Mend: mend})
		w, lerr := d.load(d.e.readUnlocked)
		if lerr != nil {
			return nil, lerr
		}
		d.checkAll(w, false)
	} else if err != nil {
		return nil, err
	}
	d.checkAFK()
	d.checkRules()
	d.checkClaims(ctx, fix && busy == nil)
	return d.report(), busy
}

// Finding severities: an error makes doctor exit 6, a warning does not.
const (
	SevError   = "error"
	SevWarning = "warning"
)

// Finding is one thing doctor found: where, what is wrong, how to mend it.
type Finding struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"` // a stable word: "drift", "duplicate-qid", …
	File     string `json:"file"` // relative to the feature directory, or .devrites/…
	Line     int    `json:"line,omitempty"`
	Problem  string `json:"problem"`
	Mend     string `json:"mend"`
	Fixable  bool   `json:"fixable"` // doctor --fix repairs it
}

// Where is "file:line", or "file" when there is no line.
func (f Finding) Where() string {
	if f.Line > 0 {
		return f.File + ":" + strconv.Itoa(f.Line)
	}
	return f.File
}

// Repair is one change doctor --fix made.
type Repair struct {
	Kind string `json:"kind"`
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Did  string `json:"did"`
}

// Where is "file:line", or "file" when there is no line.
func (r Repair) Where() string {
	return Finding{File: r.File, Line: r.Line}.Where()
}

// DoctorReport is what doctor prints. With fix, Findings are what remains
// after the repairs.
type DoctorReport struct {
	Workspace string    `json:"workspace"`
	OK        bool      `json:"ok"` // no errors
	Errors    int       `json:"errors"`
	Warnings  int       `json:"warnings"`
	Findings  []Finding `json:"findings"`
	Repairs   []Repair  `json:"repairs"`
}

// Fixable reports whether doctor --fix would repair any of the findings.
func (r *DoctorReport) Fixable() bool {
	for _, f := range r.Findings {
		if f.Fixable {
			return true
		}
	}
	return false
}

type doctor struct {
	errorsOnly bool  // checking for a write: errors matter, warnings need no words
	scan       *scan // the write guard's scan of questions.md (errorsOnly)
	e          *Engine
	findings   []Finding
	repairs    []Repair
	keys       keyLines // fieldLines', reused from block to block
	// ledger is decisions.md's blocks, parsed from ledgerSrc (ledgerOf).
	ledger    []*mdstore.Block
	ledgerSrc []byte
}

// ledgerOf is decisions.md's blocks for its bytes b, parsed once for each
// version of them: a check, its repairs and the check after them read the
// same bytes unless a repair replaced them (decisions.md's bytes are
// replaced or appended to, never changed in place).
func (d *doctor) ledgerOf(b []byte) []*mdstore.Block {
	if d.ledgerSrc == nil || len(b) != len(d.ledgerSrc) || len(b) > 0 && &b[0] != &d.ledgerSrc[0] {
		d.ledger, d.ledgerSrc = mdstore.DecisionBlocks(b), b
	}
	return d.ledger
}

func (d *doctor) add(f Finding) {
	if len(d.findings) == cap(d.findings) {
		// Twice the room, where append grows a long slice by a quarter:
		// thousands of findings (one per block) leave half the garbage.
		d.findings = slices.Grow(d.findings, len(d.findings)+1)
	}
	d.findings = append(d.findings, f)
}

func (d *doctor) anyFixable() bool {
	return (&DoctorReport{Findings: d.findings}).Fixable()
}

func (d *doctor) report() *DoctorReport {
	r := &DoctorReport{Workspace: d.e.WS.Dir, OK: true, Findings: d.findings, Repairs: d.repairs}
	if r.Repairs == nil {
		r.Repairs = []Repair{}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	r.count(r.Findings) // the report takes the findings: thousands are not copied
	return r
}

// devritesName names a file of the .devrites directory as the project sees it.
func (d *doctor) devritesName(name string) string {
	ws := d.e.WS
	if rel, err := filepath.Rel(ws.Project, filepath.Join(ws.Devrites, name)); err == nil && ws.Devrites != "" {
		return rel
	}
	return filepath.Join(ws.Devrites, name)
}

// load reads the files through read (the transaction's, or plain reads when
// the lock is busy) and reports the ones that are missing or not regular.
func (d *doctor) load(read func(string) ([]byte, bool, error)) (*wsFiles, error) {
	w := &wsFiles{}
	usable := func(name string, missing Finding) ([]byte, bool, error) {
		fi, err := os.Lstat(d.e.WS.Path(name))
		if errors.Is(err, fs.ErrNotExist) {
			missing.Kind, missing.File = "missing-file", name
			d.add(missing)
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if !fi.Mode().IsRegular() {
			d.add(Finding{Severity: SevError, Kind: "not-regular", File: name,
				Problem: "not a regular file (" + mdstore.FileType(fi.Mode()) + "); the engine refuses to read or replace it",
				Mend:    "replace it with a plain file holding the content, e.g. cp --remove-destination \"$(readlink -f " + name + ")\" " + name})
			return nil, false, nil
		}
		return read(name)
	}
	var err error
	w.origState, w.hasState, err = usable(mdstore.StateFile, Finding{Severity: SevError,
		Problem: "missing: the cursor of the workspace is gone",
		Mend:    "restore it from version control (git checkout -- state.md); without a copy, move the feature directory aside and run devrites-engine init <slug> again"})
	if err != nil {
		return nil, err
	}
	if w.hasState {
		w.state = mdstore.ParseState(w.origState)
	}
	w.origQ, w.hasQ, err = usable(mdstore.QuestionsFile, Finding{Severity: SevWarning,
		Problem: "missing: no question has been raised here",
		Mend:    "nothing to do if that is so (the first raise creates it); else restore it from version control"})
	if err != nil {
		return nil, err
	}
	w.questions = mdstore.ParseQuestions(w.origQ)
	w.decisions, w.hasDec, err = usable(mdstore.DecisionsFile, Finding{Severity: SevWarning,
		Problem: "missing: no decision has been recorded here",
		Mend:    "nothing to do if that is so (the first resolution creates it); else restore it from version control"})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// holdCursor says why drift must not be repaired: a cursor is reconciled
// only from a questions.md that is there and reads cleanly, next to a
// state.md that does; otherwise a broken status line could lift a pause
// nobody answered.
func (d *doctor) holdCursor(w *wsFiles) string {
	if !w.hasQ {
		return "questions.md is missing or not a regular file"
	}
	for _, f := range d.findings {
		if f.Severity == SevError && (f.File == mdstore.QuestionsFile || f.File == mdstore.StateFile) && f.Kind != "duplicate-qid" && f.Kind != "ledger" {
			return f.File + " has errors of its own (above)"
		}
	}
	return ""
}

// stage hands the repaired files to the transaction, as lines written out
// at commit (not a copy of each file).
func (w *wsFiles) stage(tx *mdstore.Tx) {
	if w.dirtyQ {
		tx.WriteContent(mdstore.QuestionsFile, w.questions)
	}
	if w.dirtyS {
		tx.WriteContent(mdstore.StateFile, w.state)
	}
	if w.dirtyDec {
		tx.Write(mdstore.DecisionsFile, w.decisions)
	}
}

func (d *doctor) checkAll(w *wsFiles, locked bool) {
	d.checkState(w)
	d.checkQuestions(w)
	d.checkSharedQIDs(w)
	w.held = d.holdCursor(w)
	followed := d.checkIdentity(w)
	d.checkDrift(followed)
	d.checkDecisions(followed)
	d.checkSignatures(w)
	d.checkTemps(locked)
	d.checkRecovery()
	d.checkTasks()
}
