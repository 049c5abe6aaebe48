package merge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// What holds the agent is three things, merged each on its own against the
// base (docs/git.md): the stop (status blocked and its stop_reason), the
// pauses (the question the Awaiting human section holds, then the ones
// queued in awaiting_next) and the re-scopes owed (rescope_pending, or a
// re-scope next_action). A stop on one side and a pause on the other give
// a stopped workspace that still awaits the question; two pauses give one,
// on the question raised first, with the other queued; a re-scope one side
// owes is kept in rescope_pending when the merged next_action is another.

// composed are the cursor keys compose decides; every other key merges on
// its own (merge3).
var composed = []string{"status", "stop_reason", "stopped_at", "next_action", "awaiting_next", "rescope_pending", "active_slice", "slice_mode"}

// want is a cursor key's value in a result: ok false removes it.
type want struct {
	v  string
	ok bool
}

// composition is what compose decided, for the two renderings of a
// conflict (ours' side of the markers, theirs'); without a conflict both
// are the same.
type composition struct {
	keys      map[string][2]want
	section   *stateSide // whose Awaiting human section the result takes; nil: none
	conflicts []string
}

// A stop is known by its identity: the times stopped_at holds (when it
// was made; after a merge of two stops with one reason, both), or, for a
// stop without stopped_at (written by hand or by an older engine), its
// reason. So a stop made again with the same reason after a lift is a new
// stop. Stops merge as sets of identities against the base, as re-scopes
// do: one that either side lifted goes, one that either side made stays.

// stopIDs is a side's stop as identities; none when it is not stopped.
func (v *stateSide) stopIDs() []string {
	if v.status != blocked {
		return nil
	}
	if at := splitList(v.cursor["stopped_at"]); len(at) > 0 {
		return at
	}
	return []string{"reason " + v.stop}
}

// mergeStop merges the stops of the three sides: whether the result is
// stopped; whose stop (reason and resume action) each rendering keeps (nil:
// both sides hold the base's stop, and next_action merges on its own); its
// stopped_at in each; and, for two different stops, what conflicts.
func mergeStop(b, o, t *stateSide) (stopped bool, stopper [2]*stateSide, at [2]want, conflict string) {
	ib, io, it := b.stopIDs(), o.stopIDs(), t.stopIDs()
	kept := joinSets(ib, io, it)
	if len(kept) == 0 {
		return false, [2]*stateSide{}, [2]want{}, ""
	}
	var times []string
	for _, id := range kept {
		if !strings.HasPrefix(id, "reason ") {
			times = append(times, id)
		}
	}
	slices.Sort(times)
	w := want{strings.Join(times, ", "), len(times) > 0}
	at = [2]want{w, w}
	holds := func(ids []string) bool {
		return slices.ContainsFunc(kept, func(id string) bool { return slices.Contains(ids, id) })
	}
	switch oh, th := holds(io), holds(it); {
	case oh && !th:
		return true, [2]*stateSide{o, o}, at, ""
	case th && !oh:
		return true, [2]*stateSide{t, t}, at, ""
	case o.stop == t.stop && slices.Equal(io, ib) && slices.Equal(it, ib):
		return true, [2]*stateSide{}, at, ""
	case o.stop == t.stop, t.stop == b.stop:
		return true, [2]*stateSide{o, o}, at, ""
	case o.stop == b.stop:
		return true, [2]*stateSide{t, t}, at, ""
	}
	get := func(v *stateSide) want { x, ok := v.get("stopped_at"); return want{x, ok} }
	return true, [2]*stateSide{o, t}, [2]want{get(o), get(t)},
		fmt.Sprintf("state.md: the stop changed differently on both sides (ours %s, theirs %s)", describe(o.stop), describe(t.stop))
}

// queue is a side's pauses, the awaited question first.
func (v *stateSide) queue() []string {
	var q []string
	if v.section && v.awaited != "" {
		q = append(q, v.awaited)
	}
	for _, id := range splitList(v.cursor["awaiting_next"]) {
		if !slices.Contains(q, id) {
			q = append(q, id)
		}
	}
	return q
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// raisedAt is when the awaited question of a side's section was raised.
func (v *stateSide) raisedAt(id string) string {
	if v.awaited != id {
		return ""
	}
	for _, kv := range v.awaiting {
		if kv.Key == "raised_at" {
			return strings.TrimSpace(kv.Value)
		}
	}
	return ""
}

// owed are the re-scopes a side owes: its rescope_pending, and, while it
// runs, the ids its next_action names of questions that were pending on some side (the
// engine moves them from rescope_pending into the re-scope command) or
// that its Log says were rejected or overruled (a "rejected <id>" or
// "provisional <id>" line).
func (v *stateSide) owed(pending []string) []string {
	owed := splitList(v.cursor["rescope_pending"])
	if v.status != running {
		return owed // next_action is the pause's or the stop's own command
	}
	for id := range qid.All(v.cursor["next_action"]) {
		if !slices.Contains(owed, id) && (slices.Contains(pending, id) || slices.Contains(v.said, id)) {
			owed = append(owed, id)
		}
	}
	return owed
}

// says reports whether text names id right after word, as a whole id.
func says(text, word, id string) bool {
	for i := 0; ; {
		start, end := qid.Index(text, i)
		if start < 0 {
			return false
		}
		if text[start:end] == id && strings.HasSuffix(text[:start], word) {
			return true
		}
		i = end
	}
}

// compose merges the stop, the pauses and the re-scopes of the three
// sides; r says which merged questions are final and when each was raised.
func compose(b, o, t *stateSide, r *Renumbering) composition {
	c := composition{keys: map[string][2]want{}}
	later := o // the side whose Log is later wins what both changed while running
	if t.latest > o.latest {
		later = t
	}
	both := func(k string, w want) { c.keys[k] = [2]want{w, w} }
	get := func(v *stateSide, k string) want { x, ok := v.get(k); return want{x, ok} }
	// pick merges a key the side that changed it wins; when both did, the
	// later side's value.
	pick := func(k string) want {
		wb, wo, wt := get(b, k), get(o, k), get(t, k)
		switch {
		case wo == wt, wt == wb:
			return wo
		case wo == wb:
			return wt
		}
		return get(later, k)
	}

	// The stop.
	stopped, stopper, stopAt, conflict := mergeStop(b, o, t)
	if conflict != "" {
		c.conflicts = append(c.conflicts, conflict)
	}

	// The pauses: every question either side queued that the merge keeps
	// open, less the ones a side released, the earliest raised first.
	qb, qo, qt := b.queue(), o.queue(), t.queue()
	var queue []string
	for _, id := range append(slices.Clone(qo), qt...) {
		released := slices.Contains(qb, id) && (!slices.Contains(qo, id) || !slices.Contains(qt, id))
		if !released && !r.Final(id) && !slices.Contains(queue, id) {
			queue = append(queue, id)
		}
	}
	raised := func(id string) string {
		if at := r.Raised(id); at != "" {
			return at
		}
		return max(o.raisedAt(id), t.raisedAt(id))
	}
	slices.SortStableFunc(queue, func(x, y string) int { return strings.Compare(raised(x), raised(y)) })
	awaited := ""
	if len(queue) > 0 {
		awaited = queue[0]
		both("awaiting_next", want{strings.Join(queue[1:], ", "), len(queue) > 1})
	} else {
		both("awaiting_next", want{})
	}
	// The section is the one a side wrote for the awaited question, the
	// side that changed it first.
	var sec *stateSide
	for _, v := range []*stateSide{o, t} {
		if v.section && v.awaited == awaited && awaited != "" && (sec == nil || slices.Equal(sec.awaiting, b.awaiting)) {
			sec = v
		}
	}
	if awaited != "" && sec == nil {
		// Queued on the side that holds it: the section names it, and the
		// engine's next write fills in the rest from questions.md (engine,
		// describeAwaited).
		sec = &stateSide{section: true, awaited: awaited, awaiting: []mdstore.KV{{Key: "question_id", Value: awaited}}}
		if at := raised(awaited); at != "" {
			sec.awaiting = append(sec.awaiting, mdstore.KV{Key: "raised_at", Value: at})
		}
	}
	c.section = sec

	// Status and next_action follow: a stop first, then a pause, else
	// running.
	for i := range 2 {
		status, next := want{running, true}, want{}
		switch s := stopper[i]; {
		case s != nil && s.status == blocked || s == nil && stopped:
			status = want{blocked, true}
			if s == nil {
				next = pick("next_action")
			} else {
				next = get(s, "next_action")
			}
			c.keys["stop_reason"] = keyAt(c.keys["stop_reason"], i, get(orSide(s, o), "stop_reason"))
			c.keys["stopped_at"] = keyAt(c.keys["stopped_at"], i, stopAt[i])
		case awaited != "":
			status = want{awaiting, true}
			next = resumeAction(awaited, o, t, pick)
			c.keys["stop_reason"] = keyAt(c.keys["stop_reason"], i, want{})
			c.keys["stopped_at"] = keyAt(c.keys["stopped_at"], i, want{})
		default:
			next = runningAction(o, t, get, pick)
			if st := pick("status"); st.ok && st.v != awaiting && st.v != blocked {
				status = st
			} else if !st.ok && rank(o.status) == 0 && rank(t.status) == 0 {
				status = st
			}
			c.keys["stop_reason"] = keyAt(c.keys["stop_reason"], i, want{})
			c.keys["stopped_at"] = keyAt(c.keys["stopped_at"], i, want{})
		}
		c.keys["status"] = keyAt(c.keys["status"], i, status)
		c.keys["next_action"] = keyAt(c.keys["next_action"], i, next)
	}

	// Re-scopes owed on either side are kept, as sets against the base
	// (one a side acted on goes): those the merged next_action does not
	// carry are pending.
	var anyPending []string
	for _, v := range []*stateSide{b, o, t} {
		anyPending = append(anyPending, splitList(v.cursor["rescope_pending"])...)
	}
	owedB, owedO, owedT := b.owed(anyPending), o.owed(anyPending), t.owed(anyPending)
	owed := joinSets(owedB, owedO, owedT)
	for i := range 2 {
		next := c.keys["next_action"][i].v
		isRunning := c.keys["status"][i].v == running
		named := slices.Collect(qid.All(next))
		// carried: a side whose next_action is the merged one owes id there.
		carried := func(id string) bool {
			return o.cursor["next_action"] == next && slices.Contains(owedO, id) ||
				t.cursor["next_action"] == next && slices.Contains(owedT, id)
		}
		var pending []string
		for _, id := range owed {
			if !isRunning || !slices.Contains(named, id) || !carried(id) {
				pending = append(pending, id)
			}
		}
		c.keys["rescope_pending"] = keyAt(c.keys["rescope_pending"], i, want{strings.Join(pending, ", "), len(pending) > 0})
	}

	// The slice: the pause's, else the side that changed it, else the later.
	for _, k := range []string{"active_slice", "slice_mode"} {
		w := pick(k)
		if sec == o || sec == t {
			if x, ok := sec.get(k); ok && get(o, k) != get(t, k) {
				w = want{x, ok}
			}
		}
		both(k, w)
	}
	return c
}

// keyAt is w with rendering i's value set.
func keyAt(w [2]want, i int, v want) [2]want {
	w[i] = v
	return w
}

func orSide(v, or *stateSide) *stateSide {
	if v == nil {
		return or
	}
	return v
}

// runningAction is next_action when the result neither stops nor pauses:
// as merged on its own, except that a side paused then had its pause's
// command there (answer the question), which the other side's answer (or
// stop lifted) made stale: the other side's next_action is taken.
func runningAction(o, t *stateSide, get func(*stateSide, string) want, pick func(string) want) want {
	switch po, pt := o.status == awaiting, t.status == awaiting; {
	case po && !pt:
		return get(t, "next_action")
	case pt && !po:
		return get(o, "next_action")
	}
	return pick("next_action")
}

// resumeAction is next_action while paused on id: a side's, paused on it;
// else a side's paused on another question, naming id instead; else the
// merged next_action.
func resumeAction(id string, o, t *stateSide, pick func(string) want) want {
	for _, v := range []*stateSide{o, t} {
		if v.status == awaiting && v.awaited == id {
			x, ok := v.get("next_action")
			return want{x, ok}
		}
	}
	for _, v := range []*stateSide{o, t} {
		if x, ok := v.get("next_action"); ok && v.status == awaiting && v.awaited != "" && strings.Contains(x, v.awaited) {
			return want{strings.ReplaceAll(x, v.awaited, id), true}
		}
	}
	return pick("next_action")
}
