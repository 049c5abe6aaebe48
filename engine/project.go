package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// A project holds several workspaces (features), and a qid names one
// question in the whole project: a raise allocates an id that no
// workspace of the project uses, and a command given a qid without a
// workspace finds the one workspace that holds it (Locate).

// qIDLock is the lock file in the .devrites directory that a raise holds,
// in a project of several workspaces, from reading the ids the other
// workspaces use until its own question is written: two features raising
// at once never take one id. It is taken before the workspace's own lock,
// and no one waits for it while holding a workspace lock.
const qIDLock = ".qid.lock"

// lockProjectQIDs takes qIDLock when the project has more than one
// workspace, and returns what releases it. The lock file is one machine's:
// .devrites/.gitignore lists it (best effort: a .gitignore that cannot be
// written does not stop a raise).
func (e *Engine) lockProjectQIDs(ctx context.Context) (func(), error) {
	if !e.severalWorkspaces() {
		return func() {}, nil
	}
	_ = mdstore.Ignore(e.WS.Devrites, "the lock of question ids of devrites-engine: one machine's", qIDLock)
	return mdstore.Lock(ctx, filepath.Join(e.WS.Devrites, qIDLock), "the project's question ids", e.LockTimeout)
}

// SeveralWorkspaces reports whether the engine's project has more than
// one feature directory: read once, at the first call.
func (e *Engine) SeveralWorkspaces() bool { return e.severalWorkspaces() }

// FollowRenumbered makes f name next wherever it named old, once question
// old of f was renumbered to next because another workspace of the project
// holds old too: no question of f keeps old. state.md's pause (Retarget),
// its cursor (a re-scope owed, a queued pause) and its Log follow, and so
// does decisions.md's entry of the question. It reports whether state.md
// and decisions.md changed.
func FollowRenumbered(f *Files, old, next string) (state, decisions bool) {
	if s := f.State; s != nil {
		if s.AwaitingQID() == old {
			Retarget(s, old, next)
			state = true
		}
		// A re-scope owed (next_action, rescope_pending) and a queued
		// pause (awaiting_next) name it by its new id too.
		for _, en := range s.Cursor() {
			if v := replaceID(en.Value, old, next); v != en.Value {
				s.Set(en.Canon, v)
				state = true
			}
		}
		// The Log names each raise once, under the id its question has:
		// in this workspace the old id named this question only.
		state = s.MapLog(func(t string) string { return replaceID(t, old, next) }) || state
	}
	return state, len(followDecisions(f, map[string]bool{old: true})) > 0
}

// OtherQIDs are the ids the project's other workspaces use: the questions
// of their questions.md, the decisions of their decisions.md, and the ids
// their state.md's Awaiting and Log sections name (a question a lost
// questions.md no longer holds is still on a person's phone). A file that
// cannot be read holds none.
func (e *Engine) OtherQIDs() []string {
	if !e.severalWorkspaces() {
		return nil
	}
	var used []string
	for _, ws := range mdstore.Workspaces(e.WS.Devrites) {
		if ws.Dir == e.WS.Dir {
			continue
		}
		if b, err := ws.ReadFile(mdstore.QuestionsFile); err == nil {
			used = append(used, qids(mdstore.ParseQuestions(b))...)
		}
		if b, err := ws.ReadFile(mdstore.DecisionsFile); err == nil {
			used = slices.AppendSeq(used, mdstore.DecisionQIDs(b))
		}
		if b, err := ws.ReadFile(mdstore.StateFile); err == nil {
			for m := range mdstore.ParseState(b).Mentions() {
				used = append(used, m.QID)
			}
		}
	}
	return used
}

// qids are the ids of questions.md's blocks, in file order.
func qids(qs *mdstore.Questions) []string {
	out := make([]string, 0, len(qs.Blocks()))
	for _, b := range qs.Blocks() {
		out = append(out, b.QID)
	}
	return out
}

// Locate returns the workspaces of a project (its .devrites directory)
// whose questions.md holds a question with the id id, as lookup matches
// it: exactly, or else in another case. A questions.md that cannot be read
// holds none.
func Locate(devrites, id string) []*mdstore.Workspace {
	var exact, folded []*mdstore.Workspace
	for _, ws := range mdstore.Workspaces(devrites) {
		b, err := ws.ReadFile(mdstore.QuestionsFile)
		if err != nil {
			continue
		}
		same, fold := false, false
		for _, bl := range mdstore.ParseQuestions(b).Blocks() {
			same = same || bl.QID == id
			fold = fold || strings.EqualFold(bl.QID, id)
		}
		switch {
		case same:
			exact = append(exact, ws)
		case fold:
			folded = append(folded, ws)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return folded
}

// Later is, of the workspaces found holding the question id, the one whose
// question doctor --fix renumbers (checkup/project.go): raised last, else
// the last by slug; nil when there is no such choice.
func Later(found []*mdstore.Workspace, id string) *mdstore.Workspace {
	var later *mdstore.Workspace
	var laterAt string
	for _, ws := range found {
		b, err := ws.ReadFile(mdstore.QuestionsFile)
		if err != nil {
			return nil
		}
		blk := mdstore.ParseQuestions(b).Find(id)
		if blk == nil {
			return nil
		}
		at := strings.TrimSpace(blk.Value("raised_at"))
		if later == nil || at > laterAt || at == laterAt && ws.Slug > later.Slug {
			later, laterAt = ws, at
		}
	}
	return later
}
