package gitdriver

import (
	"context"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/merge"
	"github.com/devrites/devrites-engine/qid"
)

// A qid names one question in the whole project (docs/git.md, "Several
// features"), so the merge of one workspace's questions.md renumbers
// against the ids of every workspace on both sides, not only its own file.
// Git runs the driver of each workspace's files apart, in an order of its
// own; each run computes the same reservation from the same commits: the
// ids every other workspace holds in the base, ours and theirs (its
// questions.md and decisions.md), and the ids the merges of the workspaces
// before it (by path) give to renumbered blocks, planned here again in
// that order. So two workspaces merged at once never give one new id.

// wsFiles are the blob ids of a workspace's questions.md and decisions.md
// in one commit.
type wsFiles struct{ questions, decisions string }

// reserved is the merge.Project of the workspace directory dir (a path in
// the repository) for the merge of theirs into HEAD, whose first merge
// base is mergeBase (findRevs). A commit
// that cannot be listed adds nothing: the merge is then as it was without
// it.
func reserved(ctx context.Context, g *catFile, dir, theirs, mergeBase string) merge.Project {
	devrites := path.Dir(path.Dir(dir))
	if path.Base(devrites) != ".devrites" {
		return merge.Project{}
	}
	// The same commits for every driver of the merge, whichever version of
	// its own file each found: HEAD, theirs, and their first merge base
	// (the base a driver finds by its file's content can be another one in
	// a criss-cross history, and the plans would then differ).
	canon := [3]string{mergeBase, "HEAD", theirs}
	trees := [3]map[string]wsFiles{}
	dirs := map[string]bool{}
	for i, rev := range canon {
		if rev == "" {
			continue
		}
		trees[i] = listWorkspaces(ctx, rev, devrites)
		for d := range trees[i] {
			dirs[d] = true
		}
	}
	ids := map[string][]string{}       // workspace directory → the ids its versions hold
	theirsIDs := map[string][]string{} // … and those of theirs' version alone
	for d := range dirs {
		seen := map[string]bool{}
		for i, t := range trees {
			f := t[d]
			for _, oid := range []string{f.questions, f.decisions} {
				if oid == "" || seen[oid] {
					continue
				}
				seen[oid] = true
				b, ok, err := g.blob(oid)
				if err != nil || !ok {
					continue
				}
				var held []string
				if oid == f.questions {
					for _, blk := range mdstore.ParseQuestions(b).Blocks() {
						held = append(held, blk.QID)
					}
				} else {
					held = slices.Collect(mdstore.DecisionQIDs(b))
				}
				// Only the engine's project-wide ids count: DevRites numbers
				// each feature's questions on its own (Q-001 in each).
				held = slices.DeleteFunc(held, func(id string) bool { _, err := qid.Parse(id); return err != nil })
				ids[d] = append(ids[d], held...)
				if i == 2 {
					theirsIDs[d] = append(theirsIDs[d], held...)
				}
			}
		}
	}
	// project is the merge.Project of the workspace x, given the ids the
	// merges before it give: every other workspace's ids are reserved,
	// and those of a workspace whose questions.md git takes from theirs
	// as it is (only theirs changed it) are claimed.
	project := func(x string, given []string) merge.Project {
		var pr merge.Project
		for d, v := range ids {
			if d == x {
				continue
			}
			pr.Reserved = append(pr.Reserved, v...)
			if b, o, t := trees[0][d].questions, trees[1][d].questions, trees[2][d].questions; b == o && t != b {
				pr.Claimed = append(pr.Claimed, theirsIDs[d]...)
			}
		}
		pr.Reserved = append(pr.Reserved, given...)
		return pr
	}
	// The merges of the workspaces before dir that git runs the driver on
	// (both sides changed their questions.md): the ids they give.
	var given []string
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if d >= dir {
			break
		}
		b, o, t := trees[0][d].questions, trees[1][d].questions, trees[2][d].questions
		if o == "" || t == "" || o == t || b == o || b == t {
			continue
		}
		src := func(oid string) merge.Source {
			if oid == "" {
				return merge.Source{}
			}
			return merge.Reader(func() ([]byte, error) { data, _, err := g.blob(oid); return data, err })
		}
		r, err := merge.PlanIn(src(b), src(o), src(t), project(d, given))
		if err != nil {
			continue
		}
		given = append(given, r.Given()...)
	}
	return project(dir, given)
}

// listWorkspaces lists the questions.md and decisions.md of every
// workspace of the project devrites (.devrites/work/<slug>, and the older
// .devrites/features/<slug>) in the commit rev.
func listWorkspaces(ctx context.Context, rev, devrites string) map[string]wsFiles {
	out, err := output(ctx, "", "ls-tree", "-r", "--full-tree", rev, "--", devrites+"/work", devrites+"/features")
	if err != nil {
		return nil
	}
	ws := map[string]wsFiles{}
	for _, line := range strings.Split(string(out), "\n") {
		meta, p, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		d, name := path.Dir(p), path.Base(p)
		if path.Dir(path.Dir(d)) != devrites {
			continue // a file deeper in a workspace
		}
		cur := ws[d]
		switch name {
		case mdstore.QuestionsFile:
			cur.questions = f[2]
		case mdstore.DecisionsFile:
			cur.decisions = f[2]
		default:
			continue
		}
		ws[d] = cur
	}
	return ws
}
