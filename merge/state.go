package merge

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/devrites/devrites-engine/mdstore"
)

// Cursor statuses and how strongly each holds the agent: a stop beats a
// pause, which beats running.
const (
	running  = "running"
	awaiting = "awaiting_human"
	blocked  = "blocked"
)

func rank(status string) int {
	switch status {
	case blocked:
		return 2
	case awaiting:
		return 1
	}
	return 0
}

// verbatim are the awaiting values copied from the question block: they
// stay as the block has them, ids and all.
var verbatim = []string{"question", "proposed"}

// stateSide is one version of state.md, its ids renamed into the result's.
type stateSide struct {
	s        *mdstore.State
	cursor   map[string]string // canonical key → value, first of each
	keys     []string
	status   string
	awaited  string
	stop     string
	section  bool
	awaiting []mdstore.KV // canonical keys
	log      []logLine
}

type logLine struct {
	text string // after "- "
	at   string // its timestamp, or the one before it
}

func readState(b []byte, m map[string]string) *stateSide {
	s := mdstore.ParseState(b)
	v := &stateSide{s: s, cursor: map[string]string{}}
	for _, e := range s.Cursor() {
		if _, dup := v.cursor[e.Canon]; dup || e.Canon == "" {
			continue // a key without letters or digits cannot be written back
		}
		v.cursor[e.Canon] = mapIDs(e.Value, m)
		v.keys = append(v.keys, e.Canon)
	}
	v.status = strings.TrimSpace(v.cursor["status"])
	if v.status == "" {
		v.status = running
	}
	v.stop = strings.TrimSpace(v.cursor["stop_reason"])
	if aw := s.Awaiting(); aw != nil {
		v.section = true
		for _, e := range aw {
			if e.Canon == "" {
				continue
			}
			val := e.Value
			if !slices.Contains(verbatim, e.Canon) {
				val = mapIDs(val, m)
			}
			v.awaiting = append(v.awaiting, mdstore.KV{Key: e.Canon, Value: val})
			if e.Canon == "question_id" && v.awaited == "" {
				v.awaited = strings.TrimSpace(val)
			}
		}
	}
	lines, _, _ := logSection(s, splitText(b))
	prev := ""
	for _, l := range lines {
		t := mapIDs(l, m)
		first := t // the entry is trimmed: its first field ends at a space
		if i := strings.IndexFunc(t, unicode.IsSpace); i >= 0 {
			first = t[:i]
		}
		if _, err := time.Parse(time.RFC3339, first); err == nil {
			prev = first
		}
		v.log = append(v.log, logLine{text: t, at: prev})
	}
	return v
}

func (v *stateSide) get(k string) (string, bool) {
	x, ok := v.cursor[k]
	return x, ok
}

// logSection finds the Log section of s (its bytes split as t), bounded as
// mdstore reads it: the texts of its "- " entries and, for each, its line
// index; end is where the section ends (-1 when there is no such section).
func logSection(s *mdstore.State, t text) (entries []string, at []int, end int) {
	head, end, ok := s.LogSpan()
	if !ok {
		return nil, nil, -1
	}
	for i := head + 1; i < end; i++ {
		if rest, ok := strings.CutPrefix(body(t.lines[i]), "- "); ok {
			entries, at = append(entries, strings.TrimSpace(rest)), append(at, i)
		}
	}
	return entries, at, end
}

// settled reads each version of file once, checks that it is text and
// sums it up, and settles the merges that need no more reading: a side
// that changed nothing (and whose ids the renumbering leaves alone) takes
// the other's version. done is false when the versions must be merged;
// vs are then the base, ours and theirs, to be read again.
func settled(file string, base, ours, theirs Source, mapO, mapT map[string]string) (vs [3]version, res Result, done bool, err error) {
	for i, src := range []Source{base, ours, theirs} {
		vs[i] = version{src: src, name: []string{"base ", "our ", "their "}[i] + file}
		b, err := src.Bytes()
		if err == nil {
			err = readable(vs[i].name, b)
		}
		if err != nil {
			return vs, Result{}, true, err
		}
		vs[i].sum = sha256.Sum256(b)
	}
	b, o, t := vs[0].sum, vs[1].sum, vs[2].sum
	switch {
	case len(mapO) == 0 && (o == t || b == t):
		res, err = vs[1].whole()
		return vs, res, true, err
	case len(mapT) == 0 && b == o:
		res, err = vs[2].whole()
		return vs, res, true, err
	}
	return vs, Result{}, false, nil
}

// State merges three versions of state.md field by field against the base,
// in the form ours has (table or bullets, its line endings). r is the
// renumbering of the questions (Plan), by which every question id the
// versions name is read as the merged questions.md has it; nil renames
// nothing.
func State(baseSrc, oursSrc, theirsSrc Source, r *Renumbering) (Result, error) {
	mapB, mapO, mapT := r.maps()
	vs, res, done, err := settled("state.md", baseSrc, oursSrc, theirsSrc, mapO, mapT)
	if done {
		return res, err
	}
	var data [3][]byte
	for i, v := range vs {
		if data[i], err = v.reread(); err != nil {
			return Result{}, err
		}
	}
	base, ours, theirs := data[0], data[1], data[2]
	b, o, t := readState(base, mapB), readState(ours, mapO), readState(theirs, mapT)
	b.s, t.s = nil, nil // what is left to read, the sides hold: only ours is written
	c := compose(b, o, t, r)
	conflicts := c.conflicts

	// Every other cursor key merges on its own.
	type change struct {
		key, value string
		del        bool
	}
	var chO, chT []change
	keys := slices.Clone(o.keys)
	for _, v := range []*stateSide{t, b} {
		for _, k := range v.keys {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	for _, k := range composed {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	set := func(into *[]change, k, v string, ok bool) {
		ov, has := o.get(k)
		raw := rawValue(o.s, k)
		switch {
		case !ok && has:
			*into = append(*into, change{key: k, del: true})
		case ok && (!has || v != ov || v != raw):
			*into = append(*into, change{key: k, value: v})
		}
	}
	for _, k := range keys {
		if w, ok := c.keys[k]; ok {
			set(&chO, k, w[0].v, w[0].ok)
			set(&chT, k, w[1].v, w[1].ok)
			continue
		}
		vb, okB := b.get(k)
		vo, okO := o.get(k)
		vt, okT := t.get(k)
		v, ok, why := merge3(k, vb, okB, vo, okO, vt, okT)
		if why != "" {
			conflicts = append(conflicts, why)
			set(&chO, k, vo, okO)
			set(&chT, k, vt, okT)
			continue
		}
		set(&chO, k, v, ok)
		set(&chT, k, v, ok)
	}

	build := func(ch []change, sec *stateSide) []byte {
		s := mdstore.ParseState(ours)
		for _, c := range ch {
			if c.del {
				s.Delete(c.key)
			} else {
				s.Set(c.key, c.value)
			}
		}
		rawO := rawAwaiting(o.s)
		switch {
		case sec == nil && o.section:
			s.ClearAwaiting()
		case sec != nil && !slices.Equal(sec.awaiting, rawO):
			s.SetAwaiting(sec.awaiting...)
		}
		return mergeLog(s, o, b, t)
	}
	outO, outT := build(chO, c.section[0]), build(chT, c.section[1])
	for i, out := range [][]byte{outO, outT} {
		want := ""
		if c.section[i] != nil {
			want = c.section[i].awaitedRaw()
		}
		if got := mdstore.ParseState(out).AwaitingQID(); got != want {
			return Result{}, fmt.Errorf("merging state.md gives the awaited question %q, want %q", got, want)
		}
	}
	if !bytes.Equal(outO, outT) && len(conflicts) == 0 {
		conflicts = append(conflicts, "state.md: the two sides differ")
	}
	tx := splitText(outO)
	merged, _, _ := render(tx.bom, tx.nl, []piece{{ours: tx.lines, theirs: splitText(outT).lines}}, nil)
	return Result{Data: merged, Conflicts: conflicts}, nil
}

// awaitedRaw is the awaited id as the section is written in the result.
func (v *stateSide) awaitedRaw() string {
	for _, kv := range v.awaiting {
		if kv.Key == "question_id" {
			return kv.Value
		}
	}
	return ""
}

// rawValue is a cursor value as ours has it written.
func rawValue(s *mdstore.State, k string) string {
	v, _ := s.Get(k)
	return v
}

// rawAwaiting is the awaiting section as written, with canonical keys.
func rawAwaiting(s *mdstore.State) []mdstore.KV {
	var out []mdstore.KV
	for _, e := range s.Awaiting() {
		out = append(out, mdstore.KV{Key: e.Canon, Value: e.Value})
	}
	return out
}

// merge3 merges one cursor key: the side that changed it wins; when both
// did, rescope_pending joins the lists, schema keeps the higher, two
// timestamps the later; anything else is a conflict (why says which).
func merge3(k, vb string, okB bool, vo string, okO bool, vt string, okT bool) (string, bool, string) {
	switch {
	case vo == vt && okO == okT:
		return vo, okO, ""
	case vo == vb && okO == okB:
		return vt, okT, ""
	case vt == vb && okT == okB:
		return vo, okO, ""
	}
	switch {
	case k == "rescope_pending":
		v := joinIDs(vb, vo, vt)
		return v, v != "", ""
	case k == "schema" && okO && okT:
		a, errA := strconv.Atoi(strings.TrimSpace(vo))
		c, errC := strconv.Atoi(strings.TrimSpace(vt))
		if errA == nil && errC == nil {
			if c > a {
				return vt, true, ""
			}
			return vo, true, ""
		}
	case okO && okT && isTime(vo) && isTime(vt):
		if strings.TrimSpace(vt) > strings.TrimSpace(vo) {
			return vt, true, ""
		}
		return vo, true, ""
	}
	show := func(v string, ok bool) string {
		if !ok {
			return "removed"
		}
		return describe(v)
	}
	return "", false, fmt.Sprintf("state.md: %s changed differently on both sides (ours %s, theirs %s)", k, show(vo, okO), show(vt, okT))
}

func isTime(v string) bool {
	_, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
	return err == nil
}

// joinIDs merges comma-separated lists as sets (joinSets).
func joinIDs(b, o, t string) string {
	return strings.Join(joinSets(splitList(b), splitList(o), splitList(t)), ", ")
}

// joinSets merges sets against the base: what either side added, less
// what either side removed.
func joinSets(b, o, t []string) []string {
	var out []string
	for _, x := range append(slices.Clone(o), t...) {
		removed := slices.Contains(b, x) && (!slices.Contains(o, x) || !slices.Contains(t, x))
		if !removed && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// mergeLog adds to the Log section of s (ours, edited) the entries theirs
// added since the base, in time order, each once; ours' entries keep their
// places. Ids in ours' entries are renamed in place.
func mergeLog(s *mdstore.State, o, b, t *stateSide) []byte {
	out := s.Bytes()
	x := splitText(out)
	entries, at, end := logSection(s, x)
	have := map[string]bool{}
	for _, l := range o.log {
		have[l.text] = true
	}
	for _, l := range b.log {
		have[l.text] = true
	}
	var added []logLine
	for _, l := range t.log {
		if !have[l.text] {
			have[l.text] = true
			added = append(added, l)
		}
	}
	renamed := false
	for i, e := range entries {
		if i < len(o.log) && o.log[i].text != e {
			x.lines[at[i]] = strings.Replace(x.lines[at[i]], e, o.log[i].text, 1)
			renamed = true
		}
	}
	if len(added) == 0 {
		if renamed {
			return join(x)
		}
		return out
	}
	line := func(l logLine) string { return "- " + l.text + x.nl }
	if end < 0 {
		lines := endLine(x.lines, x.nl)
		if n := len(lines); n > 0 && !isBlankLine(lines[n-1]) {
			lines = append(lines, x.nl)
		}
		lines = append(lines, "## Log"+x.nl)
		for _, l := range added {
			lines = append(lines, line(l))
		}
		x.lines = lines
		return join(x)
	}
	// Where each added entry goes: before the first of ours' entries (from
	// where the last one went) that is later, else after ours' last entry.
	before := map[int][]string{}
	var after []string
	next := 0
	for _, l := range added {
		for next < len(entries) && (l.at == "" || o.logAt(next) <= l.at) {
			next++
		}
		if next < len(entries) {
			before[at[next]] = append(before[at[next]], line(l))
		} else {
			after = append(after, line(l))
		}
	}
	// The rest go after the section's last line with text: after ours' last
	// entry and whatever belongs to it (a fenced block under it).
	last := -1
	for i := end - 1; i >= 0; i-- {
		if !isBlankLine(x.lines[i]) {
			last = i
			break
		}
	}
	var lines []string
	for i, l := range x.lines {
		lines = append(lines, before[i]...)
		if i == last && len(after) > 0 {
			lines = append(lines, endLine([]string{l}, x.nl)...)
			lines = append(lines, after...)
			if i+1 == len(x.lines) && !hasEOL(l) {
				// A file without a final newline keeps that shape.
				lines[len(lines)-1] = body(lines[len(lines)-1])
			}
			continue
		}
		lines = append(lines, l)
	}
	x.lines = lines
	return join(x)
}

// logAt is the time of ours' i-th Log entry as written in the result.
func (v *stateSide) logAt(i int) string {
	if i < len(v.log) {
		return v.log[i].at
	}
	return ""
}

func join(t text) []byte {
	var b bytes.Buffer
	if t.bom {
		b.WriteString(utf8BOM)
	}
	for _, l := range t.lines {
		b.WriteString(l)
	}
	return b.Bytes()
}
