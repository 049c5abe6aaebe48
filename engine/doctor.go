package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
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
	e := &Engine{WS: ws, Now: now, LockTimeout: lockTimeout, Actor: "doctor", AFK: LoadAFK(ws.Devrites)}
	d := &doctor{e: e}
	t, err := LoadTemplates(ws.Devrites)
	e.Templates = t
	if err != nil {
		problem := strings.TrimPrefix(err.Error(), filepath.Join(ws.Devrites, "engine.yaml")+": ")
		d.add(Finding{Severity: SevError, Kind: "config", File: d.devritesName("engine.yaml"), Problem: problem,
			Mend: "fix the YAML, or delete the file to use the default next_action texts"})
	}
	global := d.findings

	err = ws.Transact(ctx, lockTimeout, func(tx *mdstore.Tx) error {
		d.findings, d.repairs = append([]Finding(nil), global...), nil
		w, err := d.load(tx.ReadOptional)
		if err != nil {
			return err
		}
		d.checkAll(w, true)
		if !fix || !d.anyFixable() {
			return nil
		}
		if err := d.repair(w); err != nil {
			return err
		}
		d.findings = append([]Finding(nil), global...)
		d.checkAll(w, true)
		w.stage(tx)
		return nil
	})
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
		w, lerr := d.load(func(name string) ([]byte, bool, error) {
			b, err := ws.ReadFile(name)
			if errors.Is(err, mdstore.ErrMissing) {
				return nil, false, nil
			}
			return b, err == nil, err
		})
		if lerr != nil {
			return nil, lerr
		}
		d.checkAll(w, false)
	} else if err != nil {
		return nil, err
	}
	d.checkAFK()
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
	e        *Engine
	findings []Finding
	repairs  []Repair
}

func (d *doctor) add(f Finding) { d.findings = append(d.findings, f) }

func (d *doctor) anyFixable() bool {
	return (&DoctorReport{Findings: d.findings}).Fixable()
}

func (d *doctor) report() *DoctorReport {
	r := &DoctorReport{Workspace: d.e.WS.Dir, Findings: d.findings, Repairs: d.repairs}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	if r.Repairs == nil {
		r.Repairs = []Repair{}
	}
	for _, f := range r.Findings {
		if f.Severity == SevError {
			r.Errors++
		} else {
			r.Warnings++
		}
	}
	r.OK = r.Errors == 0
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

// wsFiles is the workspace as doctor reads and repairs it.
type wsFiles struct {
	files
	hasState, hasQ   bool
	origQ, origState []byte
	refused          bool // schema too new or unreadable: nothing is repaired
	dirtyQ, dirtyS   bool
	dirtyDec         bool
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
				Problem: "not a regular file (" + fileType(fi.Mode()) + "); the engine refuses to read or replace it",
				Mend:    "replace it with a plain file holding the content, e.g. cp --remove-destination \"$(readlink -f " + name + ")\" " + name})
			return nil, false, nil
		}
		return read(name)
	}
	var err error
	w.origState, w.hasState, err = usable(mdstore.StateFile, Finding{Severity: SevError,
		Problem: "missing: the cursor of the workspace is gone",
		Mend:    "restore it from version control (git checkout -- state.md), or re-create the workspace with devrites-engine init"})
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

func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// stage hands the repaired files to the transaction.
func (w *wsFiles) stage(tx *mdstore.Tx) {
	if w.dirtyQ {
		tx.Write(mdstore.QuestionsFile, w.questions.Bytes())
	}
	if w.dirtyS {
		tx.Write(mdstore.StateFile, w.state.Bytes())
	}
	if w.dirtyDec {
		tx.Write(mdstore.DecisionsFile, w.decisions)
	}
}

func (d *doctor) checkAll(w *wsFiles, locked bool) {
	d.checkState(w)
	d.checkQuestions(w)
	d.checkDrift(w)
	d.checkDecisions(w)
	d.checkTemps(locked)
}

// Cursor statuses state.md may hold.
var cursorStatuses = []string{"running", "awaiting_human", "blocked"}

func (d *doctor) checkState(w *wsFiles) {
	if !w.hasState {
		w.refused = true
		return
	}
	const file = mdstore.StateFile
	d.checkText(file, w.origState)
	s := w.state
	schemaLine := 0
	seen := map[string]int{}
	for _, en := range s.Cursor() {
		if en.Canon == "schema" {
			schemaLine = en.Line()
		}
		if first, dup := seen[en.Canon]; dup {
			d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: en.Line(),
				Problem: fmt.Sprintf("key %q repeated (first at line %d): only the first is read", en.Key, first),
				Mend:    "delete one of the two lines"})
			continue
		}
		seen[en.Canon] = en.Line()
	}
	n, err := s.Schema()
	switch {
	case err != nil:
		v, _ := s.Get("schema")
		d.add(Finding{Severity: SevError, Kind: "schema", File: file, Line: schemaLine,
			Problem: fmt.Sprintf("schema %q is not a number", v), Mend: "set the schema to " + strconv.Itoa(SchemaVersion)})
		w.refused = true
	case n > SchemaVersion:
		d.add(Finding{Severity: SevError, Kind: "schema", File: file, Line: schemaLine,
			Problem: fmt.Sprintf("schema %d is newer than this binary understands (%d)", n, SchemaVersion),
			Mend:    "upgrade devrites-engine; nothing else is checked or repaired in state.md"})
		w.refused = true
		return
	}
	if len(s.Cursor()) == 0 {
		mend := "add \"- Status: running\" and the other cursor lines before the first ## heading"
		if s.Encoding() == mdstore.Table {
			mend = "add rows such as \"| status | running |\" under the \"| Key | Value |\" header of ## Cursor"
		}
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Problem: "no cursor entries found", Mend: mend})
		return
	}
	status, ok := s.Get("status")
	switch {
	case !ok || strings.TrimSpace(status) == "":
		d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Problem: "no status in the cursor: it is read as running",
			Mend: "add a status (running, awaiting_human or blocked)"})
	case !slices.Contains(cursorStatuses, status):
		d.add(Finding{Severity: SevError, Kind: "unknown-status", File: file, Line: seen["status"],
			Problem: fmt.Sprintf("status %q is not running, awaiting_human or blocked", status),
			Mend:    "set it to running, awaiting_human or blocked"})
	}
}

// Question statuses and the gate values a block may hold.
var questionStatuses = []string{StatusOpen, StatusAnswered, StatusDropped, StatusRejected}

func (d *doctor) checkQuestions(w *wsFiles) {
	if !w.hasQ {
		return
	}
	const file = mdstore.QuestionsFile
	d.checkText(file, w.origQ)
	heads := map[int]bool{}
	for _, b := range w.questions.Blocks() {
		heads[b.Line()] = true
	}
	for _, h := range w.questions.Headings() {
		title := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(h.Text), "#"))
		switch {
		case h.Unclosed && mdstore.IsQuestionHeading(h.Text):
			d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: h.Line,
				Problem: "question heading inside a fenced code block: the question is not read",
				Mend:    "close the fence (```) that is left open above this line"})
		case !h.Fenced && !heads[h.Line] && strings.HasPrefix(title, "q-"):
			d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: h.Line,
				Problem: fmt.Sprintf("heading %q is not a question heading: its fields are not read", h.Text),
				Mend:    "write it as \"## q-YYYY-MM-DD-NNN\" (column 0, three or more digits, nothing after the id)"})
		}
	}
	first := map[string]*mdstore.Block{}
	for _, b := range w.questions.Blocks() {
		if _, err := qid.Parse(b.QID); err != nil {
			d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: b.Line(), Problem: err.Error(),
				Mend: fmt.Sprintf("give the question a real date and a suffix from 001 to %d", qid.MaxN)})
		}
		if f, dup := first[b.QID]; dup {
			d.add(Finding{Severity: SevError, Kind: "duplicate-qid", File: file, Line: b.Line(),
				Problem: fmt.Sprintf("qid %s is also used at line %d (two branches raised the same id?)", b.QID, f.Line()),
				Mend:    "run: devrites-engine doctor --fix (renumbers this later block and records renumbered_from)", Fixable: !w.refused})
		} else {
			first[b.QID] = b
		}
		d.checkBlock(b)
	}
}

func (d *doctor) checkBlock(b *mdstore.Block) {
	const file = mdstore.QuestionsFile
	seen := map[string]int{}
	for _, f := range b.Fields() {
		k := mdstore.NormKey(f.Key)
		if prev, dup := seen[k]; dup {
			d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: f.Line(),
				Problem: fmt.Sprintf("%s: field %q repeated (first at line %d): only the first is read", b.QID, f.Key, prev),
				Mend:    "delete one of the two"})
			continue
		}
		seen[k] = f.Line()
	}
	status, ok := b.Get("status")
	switch {
	case !ok:
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: b.Line(),
			Problem: b.QID + ": no status field", Mend: "add \"status: open\" (or answered, dropped, rejected) under the heading"})
	case !slices.Contains(questionStatuses, status):
		d.add(Finding{Severity: SevError, Kind: "unknown-status", File: file, Line: seen["status"],
			Problem: fmt.Sprintf("%s: field \"status\" has unknown value %q", b.QID, status),
			Mend:    "set it to open, answered, dropped or rejected"})
	case status != StatusOpen:
		if _, ok := b.Get("answer"); !ok {
			d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: seen["status"],
				Problem: fmt.Sprintf("%s: %s without an answer field", b.QID, status),
				Mend:    "add the answer, reason or feedback as \"answer: …\""})
		}
	}
	if sla, ok := b.Get("sla"); ok && slaError(sla) != nil {
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: seen["sla"],
			Problem: fmt.Sprintf("%s: field \"sla\" has value %q, not none or a duration of at most 365d", b.QID, sla),
			Mend:    "set it to none or a duration such as 15m, 4h, 24h, 7d"})
	}
	gate, ok := b.Get("gate")
	switch {
	case !ok:
		d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: b.Line(),
			Problem: b.QID + ": no gate field", Mend: "add \"gate: advisory|validating|blocking|escalating\""})
	case !validGate(gate):
		d.add(Finding{Severity: SevError, Kind: "unknown-gate", File: file, Line: seen["gate"],
			Problem: fmt.Sprintf("%s: field \"gate\" has unknown value %q", b.QID, gate),
			Mend:    "set it to advisory, validating, blocking or escalating"})
	}
}

// drift is the pause state.md should hold according to questions.md.
type drift struct {
	status      string
	statusLine  int
	awaited     string // the qid the awaiting section names
	awaitedLine int
	section     int // line of "## Awaiting human", 0 when absent
	target      *mdstore.Block
	lost        bool // target is an open question whose pause was lost
}

// pausing reports whether an open block waits for a person: provisional
// validating questions are open but let the agent proceed.
func pausing(b *mdstore.Block) bool {
	if b.Value("status") != StatusOpen {
		return false
	}
	v := strings.TrimSpace(b.Value("provisional"))
	return v == "" || v == "0" || v == "false"
}

// unique returns the first block of each qid, in file order.
func unique(qs *mdstore.Questions) []*mdstore.Block {
	seen := map[string]bool{}
	var out []*mdstore.Block
	for _, b := range qs.Blocks() {
		if !seen[b.QID] {
			seen[b.QID] = true
			out = append(out, b)
		}
	}
	return out
}

func (d *doctor) readDrift(w *wsFiles) drift {
	s := w.state
	dr := drift{section: s.AwaitingLine(), awaited: s.AwaitingQID()}
	for _, en := range s.Cursor() {
		if en.Canon == "status" && dr.statusLine == 0 {
			dr.status, dr.statusLine = en.Value, en.Line()
		}
	}
	for _, en := range s.Awaiting() {
		if en.Canon == "question_id" {
			dr.awaitedLine = en.Line()
			break
		}
	}
	if dr.awaitedLine == 0 {
		dr.awaitedLine = dr.section
	}
	if b := w.questions.Find(dr.awaited); b != nil && b.Value("status") == StatusOpen {
		dr.target = b
		return dr
	}
	for _, b := range unique(w.questions) {
		if pausing(b) {
			dr.target, dr.lost = b, true
			break
		}
	}
	return dr
}

func (d *doctor) checkDrift(w *wsFiles) {
	if w.refused {
		return
	}
	const file = mdstore.StateFile
	dr := d.readDrift(w)
	if n := countQID(w.questions, dr.awaited); n > 1 {
		return // which block state.md means is settled by renumbering first
	}
	blocked := dr.status == "blocked"
	sev := SevError
	if blocked {
		sev = SevWarning // a deliberate stop: doctor does not move it
	}
	reconcile := "run: devrites-engine doctor --fix (reconciles state.md from questions.md)"
	if blocked {
		reconcile = "state.md is blocked (" + d.stopReason(w) + "); when resuming, run devrites-engine doctor --fix after state stop --status running"
	}
	drifted := func(line int, problem string) {
		d.add(Finding{Severity: sev, Kind: "drift", File: file, Line: line, Problem: problem, Mend: reconcile, Fixable: !blocked})
	}
	switch {
	case dr.section > 0 && dr.awaited == "":
		drifted(dr.section, "the Awaiting human section names no question_id")
	case dr.awaited != "" && w.questions.Find(dr.awaited) == nil:
		drifted(dr.awaitedLine, fmt.Sprintf("awaits %s, which is not in questions.md", dr.awaited))
	case dr.awaited != "" && (dr.target == nil || dr.target.QID != dr.awaited):
		drifted(dr.awaitedLine, fmt.Sprintf("awaits %s, which is already %s", dr.awaited, w.questions.Find(dr.awaited).Value("status")))
	}
	switch {
	case dr.target != nil && !dr.lost && dr.status != "awaiting_human":
		drifted(dr.statusLine, fmt.Sprintf("status is %q, but it awaits %s, which is open", dr.status, dr.awaited))
	case dr.target != nil && dr.lost:
		d.add(Finding{Severity: sev, Kind: "drift", File: mdstore.QuestionsFile, Line: dr.target.Line(),
			Problem: dr.target.QID + " is open and waits for a person, but state.md lost its pause (a raise interrupted after questions.md was written?)",
			Mend:    reconcile, Fixable: !blocked})
	case dr.target == nil && dr.status == "awaiting_human" && dr.section == 0:
		if reason := d.stopReason(w); reason != "" {
			d.add(Finding{Severity: SevWarning, Kind: "drift", File: file, Line: dr.statusLine,
				Problem: "awaiting_human with no question open, for a stop: " + reason,
				Mend:    "when the person has acted: devrites-engine state stop --status running --reason … --resume …"})
		} else {
			drifted(dr.statusLine, "status is awaiting_human, but no question is open")
		}
	}
	// Any other open question that waits for a person cannot be the pause:
	// only one question pauses at a time.
	for _, b := range unique(w.questions) {
		if pausing(b) && dr.target != nil && b.QID != dr.target.QID {
			d.add(Finding{Severity: SevError, Kind: "drift", File: mdstore.QuestionsFile, Line: b.Line(),
				Problem: fmt.Sprintf("%s is open and waits for a person, but the pause is %s's (one question per pause)", b.QID, dr.target.QID),
				Mend:    "resolve or drop one of them: devrites-engine state resolve --drop " + b.QID + " \"<reason>\""})
		}
	}
}

func (d *doctor) stopReason(w *wsFiles) string {
	v, _ := w.state.Get("stop_reason")
	return strings.TrimSpace(v)
}

// checkDecisions reports final questions the engine resolved whose decision
// a crash kept out of decisions.md.
func (d *doctor) checkDecisions(w *wsFiles) {
	for _, b := range missingDecisions(w) {
		d.add(Finding{Severity: SevWarning, Kind: "decision-missing", File: mdstore.DecisionsFile,
			Problem: fmt.Sprintf("the decision of %s (%s, questions.md:%d) is not logged (a resolution interrupted before decisions.md was written?)", b.QID, b.Value("status"), b.Line()),
			Mend:    "run: devrites-engine doctor --fix (appends it), or re-run the same state resolve", Fixable: !w.refused})
	}
}

// missingDecisions returns the final blocks, resolved by the engine (they
// carry answered_by), whose "## <qid> <status>" entry decisions.md lacks.
// Duplicated and renumbered qids are left out: which entry is theirs cannot
// be told.
func missingDecisions(w *wsFiles) []*mdstore.Block {
	logged := decisionHeadings(w.decisions)
	count := map[string]int{}
	for _, b := range w.questions.Blocks() {
		count[b.QID]++
	}
	var out []*mdstore.Block
	for _, b := range w.questions.Blocks() {
		st := b.Value("status")
		if st == StatusOpen || !slices.Contains(questionStatuses, st) || count[b.QID] > 1 {
			continue
		}
		if _, byEngine := b.Get("answered_by"); !byEngine {
			continue // resolved by hand, or before the engine kept a log
		}
		if _, renamed := b.Get("renumbered_from"); renamed {
			continue
		}
		if !logged[decisionHeading(b.QID, st)] {
			out = append(out, b)
		}
	}
	return out
}

func decisionHeadings(b []byte) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "## "); ok {
			out[strings.TrimSpace(h)] = true
		}
	}
	return out
}

// checkTemps reports temporary files that atomic writes leave when killed
// before their rename. Under the lock no write is in flight, so every such
// file is stale.
func (d *doctor) checkTemps(locked bool) {
	names, err := d.temps()
	if err != nil {
		d.add(Finding{Severity: SevError, Kind: "temp-file", File: ".", Problem: err.Error(), Mend: "check the directory's permissions"})
		return
	}
	for _, n := range names {
		f := Finding{Severity: SevWarning, Kind: "temp-file", File: n,
			Problem: "temporary file left by an interrupted write", Mend: "run: devrites-engine doctor --fix (removes it)", Fixable: true}
		if !locked {
			f.Mend, f.Fixable = "it may belong to the process holding the lock; run doctor --fix when the lock is free", false
		}
		d.add(f)
	}
	d.checkInitTemps(locked)
}

// checkInitTemps reports the directories that an init of this slug was
// building when it was killed. An init that is still running has its own
// (the workspace does not exist for it yet) and loses the rename to this
// workspace, so removing one is safe.
func (d *doctor) checkInitTemps(locked bool) {
	dirs, err := initTemps(d.e.WS)
	if err != nil {
		return // the directory above the workspace is not doctor's to judge
	}
	for _, dir := range dirs {
		f := Finding{Severity: SevWarning, Kind: "init-temp", File: d.beside(dir),
			Problem: "directory left by an init that did not finish", Mend: "run: devrites-engine doctor --fix (removes it)", Fixable: true}
		if !locked {
			f.Mend, f.Fixable = "run doctor --fix when the lock is free, or remove it: rm -r "+dir, false
		}
		d.add(f)
	}
}

// beside names a path next to the feature directory as the project sees it
// (.devrites/work/…), else relative to the feature directory.
func (d *doctor) beside(p string) string {
	ws := d.e.WS
	base := ws.Dir
	if ws.Devrites != "" {
		base = ws.Project
	}
	if rel, err := filepath.Rel(base, p); err == nil {
		return rel
	}
	return p
}

func (d *doctor) temps() ([]string, error) {
	ents, err := os.ReadDir(d.e.WS.Dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, en := range ents {
		if en.Type().IsRegular() && mdstore.IsTemp(en.Name()) {
			out = append(out, en.Name())
		}
	}
	return out, nil
}

// warningAt is the "path:line:" that LoadAFK's messages start with.
var warningAt = regexp.MustCompile(`^:([0-9]+):\s*`)

// splitWarning splits "path:12: message" into 12 and "message".
func splitWarning(w, path string) (int, string) {
	rest := strings.TrimPrefix(w, path)
	if m := warningAt.FindStringSubmatch(rest); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, rest[len(m[0]):]
	}
	return 0, strings.TrimSpace(strings.TrimPrefix(rest, ":"))
}

// checkAFK reports each line that makes an AFK file fail (AFK then fails
// closed) as an error, its other warnings, and a notify command whose program
// is not found.
func (d *doctor) checkAFK() {
	a := d.e.AFK
	if !a.On {
		return
	}
	file := d.devritesName("AFK")
	for i, w := range a.Warnings {
		f := Finding{Severity: SevWarning, Kind: "afk", File: file, Mend: "fix or remove the key"}
		f.Line, f.Problem = splitWarning(w, a.Path)
		if a.Failed(i) {
			f.Severity, f.Mend = SevError, "fix the YAML (see the AFK section of the README); until then every question pauses"
		}
		d.add(f)
	}
	if a.Broken || a.Notify == "" {
		return
	}
	prog, ok := notifyProgram(a.Notify)
	if !ok {
		return
	}
	if missing := d.programMissing(prog); missing != "" {
		d.add(Finding{Severity: SevWarning, Kind: "notify", File: file,
			Problem: fmt.Sprintf("notify command %q: %s: nobody is told about questions while AFK", a.Notify, missing),
			Mend:    "install it, or correct the notify line (it runs as sh -c from " + d.e.WS.Project + ")"})
	}
}

// shellWords are the builtins and keywords a notify command may start with.
var shellWords = map[string]bool{".": true, ":": true, "cd": true, "echo": true, "eval": true, "exec": true, "exit": true,
	"export": true, "printf": true, "read": true, "set": true, "test": true, "true": true, "false": true, "[": true,
	"if": true, "for": true, "while": true, "until": true, "case": true, "{": true, "(": true, "!": true}

// notifyProgram returns the program a shell command runs first, when it is
// simple enough to tell: leading VAR=value assignments are skipped, and a
// command that starts with quoting or a subshell is not judged.
func notifyProgram(cmd string) (string, bool) {
	for _, w := range strings.Fields(cmd) {
		if strings.ContainsAny(w, "'\"`$\\(){};|&<>*?") {
			return "", false
		}
		if eq := strings.IndexByte(w, '='); eq > 0 && !strings.Contains(w[:eq], "/") {
			continue
		}
		if shellWords[w] {
			return "", false
		}
		return w, true
	}
	return "", false
}

// programMissing says why prog cannot run, or "" when it can.
func (d *doctor) programMissing(prog string) string {
	if !strings.Contains(prog, "/") {
		if _, err := exec.LookPath(prog); err != nil {
			return prog + " is not found in PATH"
		}
		return ""
	}
	p := prog
	if strings.HasPrefix(p, "~/") {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, p[2:])
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(d.e.WS.Project, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return prog + " does not exist"
	case fi.IsDir():
		return prog + " is a directory"
	case fi.Mode().Perm()&0o111 == 0:
		return prog + " is not executable (chmod +x " + prog + ")"
	}
	return ""
}

// checkText reports a file that is not text: invalid UTF-8, or binary
// content (a NUL byte).
func (d *doctor) checkText(file string, b []byte) {
	if !utf8.Valid(b) {
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: invalidUTF8Line(b),
			Problem: "not valid UTF-8", Mend: "save the file as UTF-8"})
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: 1 + bytes.Count(b[:i], []byte("\n")),
			Problem: "binary content (a NUL byte)", Mend: "restore the file from version control, or remove the binary content"})
	}
}

func invalidUTF8Line(b []byte) int {
	line := 1
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			return line
		}
		if b[0] == '\n' {
			line++
		}
		b = b[n:]
	}
	return line
}

// repair makes the safe repairs on w; repair order matters: ids first, so
// that state.md is reconciled against the renumbered questions.
func (d *doctor) repair(w *wsFiles) error {
	if err := d.removeTemps(); err != nil {
		return err
	}
	if w.refused {
		return nil
	}
	if err := d.renumber(w); err != nil {
		return err
	}
	d.completeDecisions(w)
	d.reconcile(w)
	return nil
}

func (d *doctor) removeTemps() error {
	names, err := d.temps()
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := os.Remove(d.e.WS.Path(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		d.repairs = append(d.repairs, Repair{Kind: "temp-file", File: n, Did: "removed"})
	}
	dirs, err := initTemps(d.e.WS)
	if err != nil {
		return nil
	}
	for _, dir := range dirs {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		d.repairs = append(d.repairs, Repair{Kind: "init-temp", File: d.beside(dir), Did: "removed"})
	}
	return nil
}

// renumber gives every block whose qid an earlier block already uses the
// next free id of its date, and records the old id in renumbered_from. When
// state.md awaits the qid, the block it means is the one whose question and
// raised_at it copied, else the open one, else the first.
func (d *doctor) renumber(w *wsFiles) error {
	awaited := w.state.AwaitingQID()
	meant := d.meantBlock(w)
	for {
		b := firstDuplicate(w.questions)
		if b == nil {
			return nil
		}
		old, line := b.QID, b.Line()
		id, _ := qid.Parse(old) // firstDuplicate returns valid ids only
		next, err := qid.Next(qids(w.questions), id.Date)
		if err != nil {
			return mdstore.Errorf(ErrMalformed, "renumbering %s: %w", old, err)
		}
		isMeant := meant == line
		if err := w.questions.Rename(line, next); err != nil {
			return err
		}
		if err := w.questions.Set(next, mdstore.KV{Key: "renumbered_from", Value: old}); err != nil {
			return err
		}
		w.dirtyQ = true
		did := "renumbered " + old + " to " + next + " (renumbered_from: " + old + ")"
		if isMeant && awaited == old {
			d.retarget(w, old, next)
			did += "; state.md now awaits " + next
		}
		if meant > line {
			meant++ // renumbered_from added a line above it
		}
		d.repairs = append(d.repairs, Repair{Kind: "duplicate-qid", File: mdstore.QuestionsFile, Line: line, Did: did})
	}
}

// meantBlock is the heading line of the block state.md's awaited qid means.
func (d *doctor) meantBlock(w *wsFiles) int {
	awaited := w.state.AwaitingQID()
	var same []*mdstore.Block
	for _, b := range w.questions.Blocks() {
		if b.QID == awaited {
			same = append(same, b)
		}
	}
	if len(same) < 2 {
		return 0
	}
	get := func(k string) string { v, _ := lookupAwaiting(w.state, k); return oneLine(v) }
	for _, b := range same {
		if oneLine(b.Value("question")) == get("question") && b.Value("raised_at") == get("raised_at") {
			return b.Line()
		}
	}
	for _, b := range same {
		if b.Value("status") == StatusOpen {
			return b.Line()
		}
	}
	return same[0].Line()
}

func lookupAwaiting(s *mdstore.State, key string) (string, bool) {
	c := mdstore.Canon(key)
	for _, en := range s.Awaiting() {
		if en.Canon == c {
			return en.Value, true
		}
	}
	return "", false
}

func countQID(qs *mdstore.Questions, id string) int {
	n := 0
	for _, b := range qs.Blocks() {
		if b.QID == id {
			n++
		}
	}
	return n
}

// firstDuplicate is the first block whose qid an earlier block has, among
// ids that can be renumbered (a valid qid).
func firstDuplicate(qs *mdstore.Questions) *mdstore.Block {
	seen := map[string]bool{}
	for _, b := range qs.Blocks() {
		if _, err := qid.Parse(b.QID); err != nil {
			continue
		}
		if seen[b.QID] {
			return b
		}
		seen[b.QID] = true
	}
	return nil
}

// retarget points state.md's references to old at next: the awaiting
// section and any cursor value that names it.
func (d *doctor) retarget(w *wsFiles, old, next string) {
	var kvs []mdstore.KV
	for _, en := range w.state.Awaiting() {
		v := en.Value
		if en.Canon == "question_id" {
			v = next
		}
		kvs = append(kvs, mdstore.KV{Key: en.Canon, Value: v})
	}
	w.state.SetAwaiting(kvs...)
	for _, en := range w.state.Cursor() {
		if strings.Contains(en.Value, old) {
			w.state.Set(en.Canon, strings.ReplaceAll(en.Value, old, next))
		}
	}
	w.dirtyS = true
}

func (d *doctor) completeDecisions(w *wsFiles) {
	missing := missingDecisions(w)
	if len(missing) == 0 {
		return
	}
	if !w.hasDec {
		w.decisions = []byte("# Decisions\n")
	}
	for _, b := range missing {
		d.e.appendDecision(&w.files, b)
		d.repairs = append(d.repairs, Repair{Kind: "decision-missing", File: mdstore.DecisionsFile,
			Did: "appended the decision of " + b.QID + " (" + b.Value("status") + ")"})
	}
	w.dirtyDec = true
}

// reconcile makes state.md's pause agree with questions.md. A lost pause is
// restored as the raise would have written it; a pause on a question that
// is no longer open is lifted as the resolution would have lifted it, so
// that doctor --fix after an interrupted command leaves the files as the
// command would have.
func (d *doctor) reconcile(w *wsFiles) {
	before := len(d.findings)
	d.checkDrift(w)
	fixable := false
	for _, f := range d.findings[before:] {
		fixable = fixable || f.Fixable
	}
	d.findings = d.findings[:before]
	if !fixable {
		return
	}
	dr := d.readDrift(w)
	f := &w.files
	var did string
	switch {
	case dr.target != nil:
		q := fromBlock(dr.target, d.e.Now())
		// A raise interrupted after questions.md left state.md as it was,
		// with no pause: complete it with the raise's own log line.
		text := "raised " + q.QID + " (" + q.Gate + ")"
		if !dr.lost || dr.section > 0 {
			text = "doctor: awaiting " + q.QID + " (reconciled from questions.md)"
		}
		d.e.pause(f, q, text)
		did = "state.md awaits " + q.QID + " (status awaiting_human)"
	case dr.awaited != "" && w.questions.Find(dr.awaited) != nil:
		q := fromBlock(w.questions.Find(dr.awaited), d.e.Now())
		st := q.Status
		d.e.resolveState(f, q, st, true)
		next, _ := w.state.Get("next_action")
		did = dr.awaited + " is " + st + ": state.md running, next: " + next
	default:
		next := d.e.continueAction(w.state, "")
		w.state.ClearAwaiting()
		w.state.Set("status", "running")
		w.state.Set("next_action", next)
		w.state.AppendLog(d.e.logLine(w.state, "doctor: no question open; next: "+next))
		did = "no question open: state.md running, next: " + next
	}
	w.dirtyS = true
	d.repairs = append(d.repairs, Repair{Kind: "drift", File: mdstore.StateFile, Did: did})
}

// pause writes a pause on q into state.md, as a raise that pauses does.
func (e *Engine) pause(f *files, q Question, logText string) {
	phase, _ := f.state.Get("phase")
	f.state.Set("status", "awaiting_human")
	if q.Slice != "" {
		f.state.Set("active_slice", q.Slice)
	}
	if _, ok := f.state.Get("slice_mode"); ok {
		f.state.Set("slice_mode", "HITL")
	}
	f.state.Set("next_action", expand(e.Templates.Resume, q.QID, phase, q.Slice))
	aw := []mdstore.KV{{Key: "question_id", Value: q.QID}, {Key: "gate", Value: q.Gate},
		{Key: "question", Value: q.Question}, {Key: "proposed", Value: q.Proposed}, {Key: "raised_at", Value: q.RaisedAt}}
	if q.BlockingSlices != "" {
		aw = append(aw, mdstore.KV{Key: "blocking_slices", Value: q.BlockingSlices})
	}
	f.state.SetAwaiting(aw...)
	f.state.AppendLog(e.logLine(f.state, logText))
}
