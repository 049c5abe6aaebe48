package merge

import "github.com/devrites/devrites-engine/qid"

// Project is what the merge of one workspace's questions.md knows of the
// rest of its project, where a qid names one question (docs/git.md,
// "Several features"): the ids the project's other workspaces use, on
// either side of the merge, and those the merges of other workspaces in
// the same merge give. A block of theirs new to ours under one of them is
// renumbered as if ours held it, and no renumbering takes one.
type Project struct {
	Reserved []string
	// Claimed are ids that another workspace holds on theirs' side and
	// whose questions.md git takes from theirs as it is (only theirs
	// changed it): a block new on ours' side under one of them is the one
	// that can still move, and takes the next free id.
	Claimed []string
}

// PlanIn is Plan for a workspace of a project of several: see Project.
func PlanIn(base, ours, theirs Source, pr Project) (*Renumbering, error) {
	p, err := newPlan(base, ours, theirs, pr)
	if err != nil {
		return nil, err
	}
	p.records()
	return p.r, nil
}

// yieldClaimed moves on each question new on ours' side whose id a
// workspace of theirs holds (Project.Claimed): that workspace's file is
// theirs as it is, so this block is the one that can still move. It takes
// the next free id past all, which it returns with the ids it gave.
func (p *plan) yieldClaimed(all []string, taken map[string]bool) []string {
	if len(p.claimed) == 0 {
		return all
	}
	claimed := make(map[string]bool, len(p.claimed))
	for _, id := range p.claimed {
		claimed[id] = true
	}
	for _, o := range p.o.blocks {
		if !claimed[o.qid] || p.oBase.of(o) != nil || p.pairs[o.n].t != nil || p.moved[o] != "" {
			continue
		}
		id, err := qid.Parse(o.qid)
		if err != nil {
			continue
		}
		next, err := qid.Next(all, nil, id.Date)
		if err != nil {
			continue // kept: doctor reports the id two workspaces hold
		}
		all = append(all, next)
		taken[next] = true
		p.moved[o] = next
		p.yielded = append(p.yielded, Rename{From: o.qid, To: next})
	}
	return all
}
