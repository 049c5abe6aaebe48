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
	"github.com/devrites/devrites-engine/qid"
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
// Ours is held whole (s, log: it is what is written); of the base and
// theirs, only what the merge compares: what they hold of the cursor and
// the section are copies, and they keep no Log entries but theirs' new
// ones (logUnion).
type stateSide struct {
	s        *mdstore.State
	cursor   map[string]string // canonical key → value, first of each
	keys     []string
	status   string
	awaited  string
	stop     string
	section  bool
	awaiting []mdstore.KV // canonical keys
	log      []logLine    // ours: every Log entry, sharing ours' bytes
	latest   string       // the time of its latest Log entry
	said     []string     // the ids next_action names that the Log says were rejected or overruled (owed)
	added    []logLine    // theirs: the Log entries neither ours nor the base has, each once
}

// readState reads one version of state.md, its ids renamed by m, and
// hands each of its Log entries, which share b, to entry; a nil entry
// keeps them in log (ours). s is b parsed: for ours only, which is
// written.
func readState(b []byte, m map[string]string, entry func(logLine)) *stateSide {
	s := mdstore.ParseState(b)
	v := &stateSide{cursor: map[string]string{}}
	for _, e := range s.Cursor() {
		if _, dup := v.cursor[e.Canon]; dup || e.Canon == "" {
			continue // a key without letters or digits cannot be written back
		}
		v.cursor[e.Canon] = strings.Clone(mapIDs(e.Value, m))
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
			val = strings.Clone(val)
			v.awaiting = append(v.awaiting, mdstore.KV{Key: e.Canon, Value: val})
			if e.Canon == "question_id" && v.awaited == "" {
				v.awaited = strings.TrimSpace(val)
			}
		}
	}
	if entry == nil {
		v.s = s
		entry = func(l logLine) { v.log = append(v.log, l) }
	}
	next := slices.Collect(qid.All(v.cursor["next_action"]))
	prev := ""
	for _, l := range logEntries(s) {
		t := mapIDs(l, m)
		first := t // the entry is trimmed: its first field ends at a space
		if i := strings.IndexFunc(t, unicode.IsSpace); i >= 0 {
			first = t[:i]
		}
		if _, err := time.Parse(time.RFC3339, first); err == nil {
			prev = first
		}
		v.latest = max(v.latest, prev)
		for _, id := range next {
			if !slices.Contains(v.said, id) && (says(t, "rejected ", id) || says(t, "provisional ", id)) {
				v.said = append(v.said, id)
			}
		}
		entry(logLine{text: t, at: prev})
	}
	v.latest = strings.Clone(v.latest)
	return v
}

func (v *stateSide) get(k string) (string, bool) {
	x, ok := v.cursor[k]
	return x, ok
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
	// One version is read at a time, ours last: of the base and theirs
	// the merge keeps what it compares, and what the Log union needs;
	// ours it keeps whole, as what is written.
	var log logUnion
	data, err := vs[0].reread()
	if err != nil {
		return Result{}, err
	}
	b := readState(data, mapB, log.inBase)
	if data, err = vs[2].reread(); err != nil {
		return Result{}, err
	}
	t := readState(data, mapT, log.inTheirs)
	ours, err := vs[1].reread()
	if err != nil {
		return Result{}, err
	}
	o := readState(ours, mapO, nil)
	t.added = log.newTo(o.log)
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

	// Each side's view of a conflict is built from ours' parse: the first
	// edits o.s itself, a second (only when the sides' changes differ) a
	// new one.
	rawO := rawAwaiting(o.s)
	sec := c.section
	build := func(s *mdstore.State, ch []change) []byte {
		for _, c := range ch {
			if c.del {
				s.Delete(c.key)
			} else {
				s.Set(c.key, c.value)
			}
		}
		switch {
		case sec == nil && o.section:
			s.ClearAwaiting()
		case sec != nil && !slices.Equal(sec.awaiting, rawO):
			s.SetAwaiting(sec.awaiting...)
		}
		return mergeLog(s, o.log, t.added)
	}
	outs := [][]byte{build(o.s, chO)}
	o.s = nil
	if !slices.Equal(chO, chT) {
		outs = append(outs, build(mdstore.ParseState(ours), chT))
	}
	want := ""
	if sec != nil {
		want = sec.awaitedRaw()
	}
	for _, out := range outs {
		if got := mdstore.ParseState(out).AwaitingQID(); got != want {
			return Result{}, fmt.Errorf("merging state.md gives the awaited question %q, want %q", got, want)
		}
	}
	if len(outs) == 1 || bytes.Equal(outs[0], outs[1]) {
		return Result{Data: outs[0], Conflicts: conflicts}, nil
	}
	if len(conflicts) == 0 {
		conflicts = append(conflicts, "state.md: the two sides differ")
	}
	tx := splitText(outs[0])
	merged, _, _ := render(tx.bom, tx.nl, []piece{{ours: tx.lines, theirs: splitText(outs[1]).lines}}, nil)
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
