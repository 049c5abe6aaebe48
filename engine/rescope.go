package engine

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// Re-scopes owed. A rejection (or an overruled provisional answer) owes
// the agent a re-scope: next_action becomes the re-scope command for the
// qid, or, while something else holds the cursor, the qid waits in
// rescope_pending. An owed re-scope outlives every write that is not the
// agent acting on it: a stop, a recovery stop, a pausing raise or another
// override replaces the re-scope next_action only after moving its qids to
// rescope_pending, and the next continue (a resume, an answer) sets the
// re-scope command again. It is acted on, and owed no more, when a question
// superseding it is raised, or when the agent says so (state rescoped).

// deferRescope adds id to the cursor's rescope_pending, with a Log line.
func (e *Engine) deferRescope(s *mdstore.State, id, logText string) {
	e.addPending(s, id)
	s.AppendLog(e.LogLine(s, logText+"; re-scope pending"))
}

// addPending adds ids to rescope_pending, each once.
func (e *Engine) addPending(s *mdstore.State, ids ...string) {
	pending := rescopePending(s)
	for _, id := range ids {
		if !slices.Contains(pending, id) {
			pending = append(pending, id)
		}
	}
	s.Set("rescope_pending", strings.Join(pending, ", "))
}

// rescopePending lists the qids of the cursor's rescope_pending.
func rescopePending(s *mdstore.State) []string {
	return question.SplitNames(valueOf(s, "rescope_pending"))
}

// owedRescopes are the qids owed a re-scope: those of a re-scope
// next_action, then those of rescope_pending.
func (e *Engine) owedRescopes(s *mdstore.State) []string {
	ids := e.rescopeIDs(valueOf(s, "next_action"))
	for _, id := range rescopePending(s) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// rescopeAction is next_action after a rejection of id: the re-scope
// command for id and every re-scope still owed (a re-scope next_action
// being replaced, rescope_pending, which it clears).
func (e *Engine) rescopeAction(s *mdstore.State, id string) string {
	ids := e.owedRescopes(s)
	if id != "" && !slices.Contains(ids, id) {
		ids = append([]string{id}, ids...)
	}
	s.Delete("rescope_pending")
	phase, _ := s.Get("phase")
	slice, _ := s.Get("active_slice")
	return config.Expand(e.Templates.Rescope, strings.Join(ids, ","), phase, slice)
}

// rescopeIDs reads a next_action made from the re-scope template: the qids
// it carries, or nil when it is another command. The phase and slice it was
// made with may have changed since, so they match anything.
func (e *Engine) rescopeIDs(next string) []string {
	if !strings.Contains(e.Templates.Rescope, "{qid}") || !strings.Contains(next, "q-") {
		return nil
	}
	pat := regexp.QuoteMeta(e.Templates.Rescope)
	pat = strings.NewReplacer(`\{qid\}`, `(?P<qid>[^\s"']+)`, `\{phase\}`, `.*?`, `\{slice\}`, `.*?`).Replace(pat)
	m := regexp.MustCompile("^" + pat + "$").FindStringSubmatch(next)
	if m == nil {
		return nil
	}
	var ids []string
	for _, id := range strings.Split(m[1], ",") {
		if qid.Check(id) != nil {
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// holdRescope keeps the re-scope of a next_action about to be replaced by
// another command: its qids move to rescope_pending, with a Log line.
func (e *Engine) holdRescope(s *mdstore.State) {
	ids := e.rescopeIDs(valueOf(s, "next_action"))
	if len(ids) == 0 {
		return
	}
	e.addPending(s, ids...)
	s.AppendLog(e.LogLine(s, "re-scope of "+strings.Join(ids, ",")+" still owed; re-scope pending"))
}

// actedOn records that the agent acted on the re-scope of id: it leaves
// rescope_pending, and a re-scope next_action drops it (and becomes the
// continue command when no other qid is left in it). It reports whether
// a re-scope of id was owed.
func (e *Engine) actedOn(s *mdstore.State, id string) bool {
	owed := false
	if pending := rescopePending(s); slices.Contains(pending, id) {
		owed = true
		setNames(s, "rescope_pending", slices.DeleteFunc(pending, func(p string) bool { return p == id }))
	}
	if ids := e.rescopeIDs(valueOf(s, "next_action")); slices.Contains(ids, id) {
		owed = true
		ids = slices.DeleteFunc(ids, func(p string) bool { return p == id })
		phase, _ := s.Get("phase")
		slice, _ := s.Get("active_slice")
		if len(ids) > 0 {
			s.Set("next_action", config.Expand(e.Templates.Rescope, strings.Join(ids, ","), phase, slice))
		} else {
			s.Set("next_action", e.ContinueAction(s, id))
		}
	}
	return owed
}

// RescopedResult is what `state rescoped` reports.
type RescopedResult struct {
	QID        string   `json:"qid"`
	Owed       bool     `json:"owed"` // a re-scope was owed; false: nothing changed
	NextAction string   `json:"next_action"`
	Pending    []string `json:"rescope_pending,omitempty"`
}

// Rescoped records that the agent has re-scoped after the rejection of id
// (or the overruled provisional answer): the re-scope is owed no more. A
// qid owed nothing changes nothing (a re-run succeeds); an unknown one is
// refused.
func (e *Engine) Rescoped(ctx context.Context, id string) (*RescopedResult, error) {
	if err := checkQID(id); err != nil {
		return nil, err
	}
	return transact(ctx, e, func(f *Files) (*RescopedResult, error) {
		b := f.Questions.Find(id)
		if b == nil && !slices.Contains(e.owedRescopes(f.State), id) {
			return nil, unknownQID(id)
		}
		r := &RescopedResult{QID: id}
		if r.Owed = e.actedOn(f.State, id); r.Owed {
			f.State.AppendLog(e.LogLine(f.State, "re-scoped "+id))
		}
		r.NextAction, r.Pending = valueOf(f.State, "next_action"), rescopePending(f.State)
		return r, nil
	})
}
