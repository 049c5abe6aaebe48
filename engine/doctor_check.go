package engine

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Checks of the files themselves: text, schema, cursor, blocks, decisions.

// Cursor statuses state.md may hold: the engine's three, and done, the
// closed workflow of DevRites.
var cursorStatuses = []string{CursorRunning, CursorAwaiting, CursorBlocked, CursorDone}

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
		d.add(Finding{Severity: SevError, Kind: "schema", File: file, Line: schemaLine,
			Problem: err.Error(), Mend: "set the schema to " + strconv.Itoa(SchemaVersion)})
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
			Mend: "add a status (running, awaiting_human, blocked or done)"})
	case !slices.Contains(cursorStatuses, status):
		d.add(Finding{Severity: SevError, Kind: "unknown-status", File: file, Line: seen["status"],
			Problem: fmt.Sprintf("status %q is not running, awaiting_human, blocked or done", status),
			Mend:    "set it to running, awaiting_human, blocked or done"})
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
	qHeads := 0
	for _, b := range w.questions.Blocks() {
		if id := b.QID; !b.Row() && len(id) > 1 && (id[0] == 'q' || id[0] == 'Q') && id[1] == '-' {
			qHeads++
		}
	}
	// Headings cuts every line (it must tell values from headings): it is
	// skipped when it cannot find anything, no fence and no "# q-" beyond
	// the question headings themselves, which spares a file of ten
	// thousand questions a copy of its lines.
	if !w.questions.HasFenceMarker() && qHeadingLike(w.origQ) <= qHeads {
		d.checkIDs(w)
		return
	}
	heads := make(map[int]bool, len(w.questions.Blocks()))
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
		case !h.Fenced && !heads[h.Line] && len(title) > 1 && (title[0] == 'q' || title[0] == 'Q') && title[1] == '-':
			d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: h.Line,
				Problem: fmt.Sprintf("heading %q is not a question heading: its fields are not read", h.Text),
				Mend:    "write it as \"## q-YYYY-MM-DD-NNN\" (three or more digits) or \"## Q-NNN\", at column 0, with nothing after the id but a gate word"})
		}
	}
	d.checkIDs(w)
}

// qHeadingLike counts the places in b that may be a heading whose title is
// a q-/Q- id: a '#' run, blanks, then "q-" or "Q-".
func qHeadingLike(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		next := bytes.IndexByte(b[i:], '#')
		if next < 0 {
			break
		}
		i += next
		j := i
		for j < len(b) && b[j] == '#' {
			j++
		}
		k := j
		for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
			k++
		}
		if k > j && k+1 < len(b) && (b[k] == 'q' || b[k] == 'Q') && b[k+1] == '-' {
			n++
		}
		i = j - 1
	}
	return n
}

// checkIDs checks the ids of the blocks and each block.
func (d *doctor) checkIDs(w *wsFiles) {
	const file = mdstore.QuestionsFile
	blocks := w.questions.Blocks()
	if d.errorsOnly {
		blocks = d.scan.unclean // the write guard words only the blocks its scan found wrong
	}
	for _, b := range blocks {
		if err := qid.Check(b.QID); err != nil {
			d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: b.Line(), Problem: err.Error(),
				Mend: fmt.Sprintf("give the question a real date and a suffix from 001 to %d", qid.MaxN)})
		}
		if id, err := qid.Parse(b.QID); err == nil && id.N > 999 && !d.errorsOnly {
			d.add(Finding{Severity: SevWarning, Kind: "qid-large", File: file, Line: b.Line(),
				Problem: fmt.Sprintf("%s: more than 999 questions on %s (an id typed by hand, or a heading pasted from a value?)", b.QID, id.Date),
				Mend:    "check that the heading is a question the engine raised; the next raise takes the id above it"})
		}
		if d.errorsOnly { // duplicates are refused where a command names them
			d.checkBlock(b)
			b.Release()
			continue
		}
		if b.Nth() > 0 {
			mend := "run: devrites-engine doctor --fix (renumbers this later block and records renumbered_from)"
			if !renumberable(b) {
				mend = "give one of them another id by hand: doctor renumbers only the engine's q-YYYY-MM-DD-NNN headings"
			}
			d.add(Finding{Severity: SevError, Kind: "duplicate-qid", File: file, Line: b.Line(),
				Problem: fmt.Sprintf("qid %s is also used at line %d (two branches raised the same id?)", b.QID, w.questions.Find(b.QID).Line()),
				Mend:    mend, Fixable: !w.refused && renumberable(b)})
		}
		d.checkBlock(b)
		b.Release() // read again if a later check asks: a pass holds one block's fields at a time
	}
}

func (d *doctor) checkBlock(b *mdstore.Block) {
	const file = mdstore.QuestionsFile
	if d.errorsOnly {
		d.blockErrors(b)
		return
	}
	seen := d.fieldLines(b, func(key string, line, first int) {
		d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: line,
			Problem: fmt.Sprintf("%s: field %q repeated (first at line %d): only the first is read", b.QID, key, first),
			Mend:    "delete one of the two"})
	})
	v, found := b.Peek("status", "answer", "sla", "gate")
	status, sla, gate := v[0], v[2], v[3]
	switch {
	case !found[0]:
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: b.Line(),
			Problem: b.QID + ": no status field", Mend: "add \"status: open\" (or answered, dropped, rejected) under the heading"})
	case !slices.Contains(questionStatuses, status):
		d.add(Finding{Severity: SevError, Kind: "unknown-status", File: file, Line: seen.line("status"),
			Problem: fmt.Sprintf("%s: field \"status\" has unknown value %q", b.QID, status),
			Mend:    "set it to open, answered, dropped or rejected"})
	case status != StatusOpen && !found[1]:
		d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: seen.line("status"),
			Problem: fmt.Sprintf("%s: %s without an answer field", b.QID, status),
			Mend:    "add the answer, reason or feedback as \"answer: …\""})
	}
	if found[2] && slaError(sla) != nil {
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: seen.line("sla"),
			Problem: fmt.Sprintf("%s: field \"sla\" has value %q, not none or a duration of at most 365d", b.QID, sla),
			Mend:    "set it to none or a duration such as 15m, 4h, 24h, 7d"})
	}
	d.checkRouting(b, seen)
	ok := found[3]
	if strings.TrimSpace(gate) == "" && headingGate(b) != "" {
		gate, ok = headingGate(b), true // "## Q-002 validating"
	}
	switch {
	case !ok || b.Row() && gate == "":
		d.add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: b.Line(),
			Problem: b.QID + ": no gate field", Mend: "add \"gate: advisory|validating|blocking|escalating\""})
	case !mdstore.ValidGate(gate):
		d.add(Finding{Severity: SevError, Kind: "unknown-gate", File: file, Line: seen.line("gate"),
			Problem: fmt.Sprintf("%s: field \"gate\" has unknown value %q", b.QID, gate),
			Mend:    "set it to advisory, validating, blocking or escalating"})
	}
}

// keyLines are the normalised keys of a block's fields, each with the line
// of its first field.
type keyLines []keyLine

type keyLine struct {
	key  string
	line int
}

// line is the line of the first field of key (normalised), or 0.
func (s keyLines) line(key string) int {
	for _, k := range s {
		if k.key == key {
			return k.line
		}
	}
	return 0
}

// fieldLines reads the keys of b's fields and their lines, and calls dup
// (when not nil) with each field whose key an earlier one has. The result
// is good until the next call: a pass over thousands of blocks reuses it.
func (d *doctor) fieldLines(b *mdstore.Block, dup func(key string, line, first int)) keyLines {
	seen := d.keys[:0]
	b.Keys(func(key string, line int) {
		k := mdstore.NormKey(key)
		if first := seen.line(k); first > 0 {
			if dup != nil {
				dup(key, line, first)
			}
			return
		}
		seen = append(seen, keyLine{k, line})
	})
	d.keys = seen
	return seen
}

// checkDecisions reports final questions the engine resolved whose decision
// a crash kept out of decisions.md.
func (d *doctor) checkDecisions(w *wsFiles) {
	if w.hasDec {
		// Zeros where an append was going when the power went, say.
		d.checkText(mdstore.DecisionsFile, w.decisions)
	}
	ledger := d.ledgerOf(w.decisions) // read once for both checks, and for --fix's repairs
	d.checkLedger(w, ledger)
	for _, b := range missingDecisions(w, ledger) {
		if !resolutionLogged(w.state, b.QID, b.Value("status")) { // doctor_evidence.go
			d.add(Finding{Severity: SevError, Kind: "no-record", File: mdstore.QuestionsFile, Line: b.Line(),
				Problem: b.QID + " is " + b.Value("status") + " in questions.md, but " + noRecord,
				Mend:    "doctor does not repair it: nothing but questions.md says a person decided it"})
			continue
		}
		d.add(Finding{Severity: SevWarning, Kind: "decision-missing", File: mdstore.DecisionsFile,
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
	repeated := repeatedIDs(w.questions)
	var out []*mdstore.Block
	var key []byte
	for _, b := range w.questions.Blocks() {
		v, found := b.Peek("status", "answeredby", "renumberedfrom") // every block: not kept
		st := v[0]
		if st == StatusOpen || !slices.Contains(questionStatuses, st) || repeated[b.QID] {
			continue
		}
		if !found[1] {
			continue // resolved by hand, or before the engine kept a log
		}
		if found[2] {
			continue
		}
		// decisionHeading(b.QID, st), built in a buffer that is reused: a
		// lookup of string(key) does not copy it.
		key = append(append(append(key[:0], b.QID...), ' '), st...)
		if !logged[string(key)] {
			out = append(out, b)
		}
	}
	return out
}

// blockErrors is checkBlock for a write about to happen: the errors alone,
// read with one pass over the block's fields, so that checking a file of
// thousands of questions costs little more than parsing it.
func (d *doctor) blockErrors(b *mdstore.Block) {
	if !blockReads(b) {
		d.errorsOnly = false // the whole check words the error
		d.checkBlock(b)
		d.errorsOnly = true
	}
}

// blockReads reports whether a block has a status, and a gate and an SLA
// that read, as a write needs: what blockErrors checks, without a word.
func blockReads(b *mdstore.Block) bool {
	v, ok := b.Peek("status", "gate", "sla")
	return fieldsRead(b, v, ok)
}

// checkMarkers reports the first conflict marker of a file.
func (d *doctor) checkMarkers(file string, b []byte) {
	if line := mdstore.ConflictLine(b); line > 0 {
		d.add(Finding{Severity: SevError, Kind: "conflict", File: file, Line: line,
			Problem: "unresolved merge conflict",
			Mend:    "keep what each side meant between the <<<<<<< and >>>>>>> lines, delete the markers, then run devrites-engine doctor"})
	}
}

// checkText reports a file that is not text (invalid UTF-8, binary
// content: a NUL byte) or that holds the markers of a merge git left
// unresolved, through which nothing may be written: a resolve would keep
// one side's pause and drop the other's.
func (d *doctor) checkText(file string, b []byte) {
	d.checkMarkers(file, b)
	if line := mdstore.InvalidUTF8Line(b); line > 0 {
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: line,
			Problem: "not valid UTF-8", Mend: "save the file as UTF-8"})
	}
	if line := mdstore.NULLine(b); line > 0 {
		d.add(Finding{Severity: SevError, Kind: "parse", File: file, Line: line,
			Problem: "binary content (a NUL byte)", Mend: "restore the file from version control, or remove the binary content"})
	}
}
