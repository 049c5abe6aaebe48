package doctor

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Checks of the files themselves: text, schema, cursor, blocks.

// Checker runs the checks of the files themselves and collects what they
// find. The engine's write guard runs it with ErrorsOnly before every
// write; doctor runs it whole.
type Checker struct {
	// ErrorsOnly: checking for a write: errors matter, warnings need no
	// words, and only the Unclean blocks are worded.
	ErrorsOnly bool
	// Unclean are the blocks whose id, status, gate or SLA does not read
	// (FieldsRead), as the caller's one scan of the blocks found them.
	Unclean []*mdstore.Block
	// Schema is the newest state.md schema the caller reads.
	Schema int
	// Routing, when set, checks a block's routing fields (the engine's
	// model of them), given the lines of the block's fields.
	Routing func(b *mdstore.Block, fields Fields)
	// WS is the workspace checked, for the checks of the files around
	// the three (temporary files, ledgers, claims, configuration).
	WS *mdstore.Workspace
	// Findings are what the checks found, in the order they ran; Repairs
	// what doctor --fix changed.
	Findings []Finding
	Repairs  []Repair
	keys     Fields // Fields', reused from block to block
}

// Add records a finding.
func (c *Checker) Add(f Finding) {
	if len(c.Findings) == cap(c.Findings) {
		// Twice the room, where append grows a long slice by a quarter:
		// thousands of findings (one per block) leave half the garbage.
		c.Findings = slices.Grow(c.Findings, len(c.Findings)+1)
	}
	c.Findings = append(c.Findings, f)
}

// State checks state.md, s as parsed from raw: its text, schema, cursor
// keys and status. refused is true when its schema is too new or does not
// read: nothing in it may then be repaired.
func (c *Checker) State(s *mdstore.State, raw []byte) (refused bool) {
	const file = mdstore.StateFile
	c.Text(file, raw)
	schemaLine := 0
	seen := map[string]int{}
	for _, en := range s.Cursor() {
		if en.Canon == "schema" {
			schemaLine = en.Line()
		}
		if first, dup := seen[en.Canon]; dup {
			c.Add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: en.Line(),
				Problem: fmt.Sprintf("key %q repeated (first at line %d): only the first is read", en.Key, first),
				Mend:    "delete one of the two lines"})
			continue
		}
		seen[en.Canon] = en.Line()
	}
	n, err := s.Schema()
	switch {
	case err != nil:
		c.Add(Finding{Severity: SevError, Kind: "schema", File: file, Line: schemaLine,
			Problem: err.Error(), Mend: "set the schema to " + strconv.Itoa(c.Schema)})
		refused = true
	case n > c.Schema:
		c.Add(Finding{Severity: SevError, Kind: "schema", File: file, Line: schemaLine,
			Problem: fmt.Sprintf("schema %d is newer than this binary understands (%d)", n, c.Schema),
			Mend:    "upgrade devrites-engine; nothing else is checked or repaired in state.md"})
		return true
	}
	if len(s.Cursor()) == 0 {
		mend := "add \"- Status: running\" and the other cursor lines before the first ## heading"
		if s.Encoding() == mdstore.Table {
			mend = "add rows such as \"| status | running |\" under the \"| Key | Value |\" header of ## Cursor"
		}
		c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Problem: "no cursor entries found", Mend: mend})
		return refused
	}
	status, ok := s.Get("status")
	switch {
	case !ok || strings.TrimSpace(status) == "":
		c.Add(Finding{Severity: SevWarning, Kind: "parse", File: file, Problem: "no status in the cursor: it is read as running",
			Mend: "add a status (running, awaiting_human, blocked or done)"})
	case !slices.Contains(mdstore.CursorStatuses, status):
		c.Add(Finding{Severity: SevError, Kind: "unknown-status", File: file, Line: seen["status"],
			Problem: fmt.Sprintf("status %q is not running, awaiting_human, blocked or done", status),
			Mend:    "set it to running, awaiting_human, blocked or done"})
	}
	return refused
}

// Questions checks questions.md, qs as parsed from raw: its text, its
// headings, each block's id and fields, and qids used twice. refused says
// the workspace is not to be repaired (State): a duplicate is then not
// offered to --fix.
func (c *Checker) Questions(qs *mdstore.Questions, raw []byte, refused bool) {
	const file = mdstore.QuestionsFile
	c.Text(file, raw)
	qHeads := 0
	for _, b := range qs.Blocks() {
		if id := b.QID; !b.Row() && len(id) > 1 && (id[0] == 'q' || id[0] == 'Q') && id[1] == '-' {
			qHeads++
		}
	}
	// Headings cuts every line (it must tell values from headings): it is
	// skipped when it cannot find anything, no fence and no "# q-" beyond
	// the question headings themselves, which spares a file of ten
	// thousand questions a copy of its lines.
	if !qs.HasFenceMarker() && qHeadingLike(raw) <= qHeads {
		c.ids(qs, refused)
		return
	}
	heads := make(map[int]bool, len(qs.Blocks()))
	for _, b := range qs.Blocks() {
		heads[b.Line()] = true
	}
	for _, h := range qs.Headings() {
		title := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(h.Text), "#"))
		switch {
		case h.Unclosed && mdstore.IsQuestionHeading(h.Text):
			c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Line: h.Line,
				Problem: "question heading inside a fenced code block: the question is not read",
				Mend:    "close the fence (```) that is left open above this line"})
		case !h.Fenced && !heads[h.Line] && len(title) > 1 && (title[0] == 'q' || title[0] == 'Q') && title[1] == '-':
			c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Line: h.Line,
				Problem: fmt.Sprintf("heading %q is not a question heading: its fields are not read", h.Text),
				Mend:    "write it as \"## q-YYYY-MM-DD-NNN\" (three or more digits) or \"## Q-NNN\", at column 0, with nothing after the id but a gate word"})
		}
	}
	c.ids(qs, refused)
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

// ids checks the ids of the blocks and each block.
func (c *Checker) ids(qs *mdstore.Questions, refused bool) {
	const file = mdstore.QuestionsFile
	blocks := qs.Blocks()
	if c.ErrorsOnly {
		blocks = c.Unclean // the write guard words only the blocks its scan found wrong
	}
	for _, b := range blocks {
		if err := qid.Check(b.QID); err != nil {
			c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Line: b.Line(), Problem: err.Error(),
				Mend: fmt.Sprintf("give the question a real date and a suffix from 001 to %d", qid.MaxN)})
		}
		if id, err := qid.Parse(b.QID); err == nil && id.N > 999 && !c.ErrorsOnly {
			c.Add(Finding{Severity: SevWarning, Kind: "qid-large", File: file, Line: b.Line(),
				Problem: fmt.Sprintf("%s: more than 999 questions on %s (an id typed by hand, or a heading pasted from a value?)", b.QID, id.Date),
				Mend:    "check that the heading is a question the engine raised; the next raise takes the id above it"})
		}
		if c.ErrorsOnly { // duplicates are refused where a command names them
			c.block(b)
			b.Release()
			continue
		}
		if b.Nth() > 0 {
			mend := "run: devrites-engine doctor --fix (renumbers this later block and records renumbered_from)"
			if !Renumberable(b) {
				mend = "give one of them another id by hand: doctor renumbers only the engine's q-YYYY-MM-DD-NNN headings"
			}
			c.Add(Finding{Severity: SevError, Kind: "duplicate-qid", File: file, Line: b.Line(),
				Problem: fmt.Sprintf("qid %s is also used at line %d (two branches raised the same id?)", b.QID, qs.Find(b.QID).Line()),
				Mend:    mend, Fixable: !refused && Renumberable(b)})
		}
		c.block(b)
		b.Release() // read again if a later check asks: a pass holds one block's fields at a time
	}
}

func (c *Checker) block(b *mdstore.Block) {
	const file = mdstore.QuestionsFile
	if c.ErrorsOnly {
		c.blockErrors(b)
		return
	}
	seen := c.Fields(b, func(key string, line, first int) {
		c.Add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: line,
			Problem: fmt.Sprintf("%s: field %q repeated (first at line %d): only the first is read", b.QID, key, first),
			Mend:    "delete one of the two"})
	})
	v, found := b.Peek("status", "answer", "sla", "gate")
	status, sla, gate := v[0], v[2], v[3]
	switch {
	case !found[0]:
		c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Line: b.Line(),
			Problem: b.QID + ": no status field", Mend: "add \"status: open\" (or answered, dropped, rejected) under the heading"})
	case !slices.Contains(mdstore.Statuses, status):
		c.Add(Finding{Severity: SevError, Kind: "unknown-status", File: file, Line: seen.Line("status"),
			Problem: fmt.Sprintf("%s: field \"status\" has unknown value %q", b.QID, status),
			Mend:    "set it to open, answered, dropped or rejected"})
	case status != mdstore.StatusOpen && !found[1]:
		c.Add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: seen.Line("status"),
			Problem: fmt.Sprintf("%s: %s without an answer field", b.QID, status),
			Mend:    "add the answer, reason or feedback as \"answer: …\""})
	}
	if found[2] && !mdstore.ValidSLA(sla) {
		c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Line: seen.Line("sla"),
			Problem: fmt.Sprintf("%s: field \"sla\" has value %q, not none or a duration of at most 365d", b.QID, sla),
			Mend:    "set it to none or a duration such as 15m, 4h, 24h, 7d"})
	}
	if c.Routing != nil {
		c.Routing(b, seen)
	}
	ok := found[3]
	if strings.TrimSpace(gate) == "" && mdstore.HeadingGate(b) != "" {
		gate, ok = mdstore.HeadingGate(b), true // "## Q-002 validating"
	}
	switch {
	case !ok || b.Row() && gate == "":
		c.Add(Finding{Severity: SevWarning, Kind: "parse", File: file, Line: b.Line(),
			Problem: b.QID + ": no gate field", Mend: "add \"gate: advisory|validating|blocking|escalating\""})
	case !mdstore.ValidGate(gate):
		c.Add(Finding{Severity: SevError, Kind: "unknown-gate", File: file, Line: seen.Line("gate"),
			Problem: fmt.Sprintf("%s: field \"gate\" has unknown value %q", b.QID, gate),
			Mend:    "set it to advisory, validating, blocking or escalating"})
	}
}

// Fields are the normalised keys of a block's fields, each with the line
// of its first field.
type Fields []field

type field struct {
	key  string
	line int
}

// Line is the line of the first field of key (normalised), or 0.
func (s Fields) Line(key string) int {
	for _, k := range s {
		if k.key == key {
			return k.line
		}
	}
	return 0
}

// Fields reads the keys of b's fields and their lines, and calls dup
// (when not nil) with each field whose key an earlier one has. The result
// is good until the next call: a pass over thousands of blocks reuses it.
func (c *Checker) Fields(b *mdstore.Block, dup func(key string, line, first int)) Fields {
	seen := c.keys[:0]
	b.Keys(func(key string, line int) {
		k := mdstore.NormKey(key)
		if first := seen.Line(k); first > 0 {
			if dup != nil {
				dup(key, line, first)
			}
			return
		}
		seen = append(seen, field{k, line})
	})
	c.keys = seen
	return seen
}

// blockErrors is block for a write about to happen: the errors alone,
// read with one pass over the block's fields, so that checking a file of
// thousands of questions costs little more than parsing it.
func (c *Checker) blockErrors(b *mdstore.Block) {
	if !blockReads(b) {
		c.ErrorsOnly = false // the whole check words the error
		c.block(b)
		c.ErrorsOnly = true
	}
}

// blockReads reports whether a block has a status, and a gate and an SLA
// that read, as a write needs: what blockErrors checks, without a word.
func blockReads(b *mdstore.Block) bool {
	v, ok := b.Peek("status", "gate", "sla")
	return FieldsRead(b, v, ok)
}

// Markers reports the first conflict marker of a file.
func (c *Checker) Markers(file string, b []byte) {
	if line := mdstore.ConflictLine(b); line > 0 {
		c.Add(Finding{Severity: SevError, Kind: "conflict", File: file, Line: line,
			Problem: "unresolved merge conflict",
			Mend:    "keep what each side meant between the <<<<<<< and >>>>>>> lines, delete the markers, then run devrites-engine doctor"})
	}
}

// Text reports a file that is not text (invalid UTF-8, binary
// content: a NUL byte) or that holds the markers of a merge git left
// unresolved, through which nothing may be written: a resolve would keep
// one side's pause and drop the other's.
func (c *Checker) Text(file string, b []byte) {
	c.Markers(file, b)
	if line := mdstore.InvalidUTF8Line(b); line > 0 {
		c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Line: line,
			Problem: "not valid UTF-8", Mend: "save the file as UTF-8"})
	}
	if line := mdstore.NULLine(b); line > 0 {
		c.Add(Finding{Severity: SevError, Kind: "parse", File: file, Line: line,
			Problem: "binary content (a NUL byte)", Mend: "restore the file from version control, or remove the binary content"})
	}
}

// FieldsRead reports whether a block's status, gate and SLA (v and ok, as
// Peek gave them in that order) read as a write needs them: a status, and
// a gate and an SLA that read when present.
func FieldsRead(b *mdstore.Block, v [mdstore.PeekMax]string, ok [mdstore.PeekMax]bool) bool {
	status, gate, sla := v[0], v[1], v[2]
	hasGate := ok[1]
	if strings.TrimSpace(gate) == "" && mdstore.HeadingGate(b) != "" {
		gate, hasGate = mdstore.HeadingGate(b), true // "## Q-002 validating", as block reads it
	}
	return ok[0] && slices.Contains(mdstore.Statuses, status) &&
		(!hasGate || b.Row() && gate == "" || mdstore.ValidGate(gate)) &&
		(!ok[2] || mdstore.ValidSLA(sla))
}

// Renumberable reports whether doctor --fix may give a block a new id: the
// engine's own form, a heading with a canonical qid. Other ids are a
// person's or another tool's to change.
func Renumberable(b *mdstore.Block) bool {
	return !b.Row() && qid.Shaped(b.QID)
}

// DevritesFile names a file of the .devrites directory as the project
// sees it.
func (c *Checker) DevritesFile(name string) string {
	ws := c.WS
	if rel, err := filepath.Rel(ws.Project, filepath.Join(ws.Devrites, name)); err == nil && ws.Devrites != "" {
		return rel
	}
	return filepath.Join(ws.Devrites, name)
}
