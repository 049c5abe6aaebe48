package merge

import (
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// unionResponses merges the responses of a routed question (a list of
// records, one per responder, docs/commands.md, Routed questions): people who responded on different
// clones are all kept; a responder whose record both sides changed keeps
// the later one (by its at). The records go in the order of their times.
// ok is false when a version cannot be read as records.
func unionResponses(base, ours, theirs string) (string, bool) {
	type rec struct {
		by, at string
		kvs    []mdstore.KV
	}
	read := func(v string) (map[string]rec, []string, bool) {
		recs, err := mdstore.ParseRecords(v)
		if err != nil {
			return nil, nil, false
		}
		m, order := map[string]rec{}, []string(nil)
		for _, kvs := range recs {
			r := rec{kvs: kvs}
			for _, kv := range kvs {
				switch mdstore.NormKey(kv.Key) {
				case "by":
					r.by = strings.ToLower(strings.TrimSpace(kv.Value))
				case "at":
					r.at = strings.TrimSpace(kv.Value)
				}
			}
			if _, dup := m[r.by]; !dup {
				order = append(order, r.by)
			}
			m[r.by] = r
		}
		return m, order, true
	}
	b, _, okB := read(base)
	o, orderO, okO := read(ours)
	t, orderT, okT := read(theirs)
	if !okB || !okO || !okT {
		return "", false
	}
	var out []rec
	for _, by := range append(orderO, orderT...) {
		if slices.ContainsFunc(out, func(r rec) bool { return r.by == by }) {
			continue
		}
		ro, inO := o[by]
		rt, inT := t[by]
		rb := b[by]
		same := func(x, y rec) bool { return slices.Equal(x.kvs, y.kvs) }
		switch {
		case !inT:
			out = append(out, ro)
		case !inO:
			out = append(out, rt)
		case same(ro, rt), same(rt, rb):
			out = append(out, ro)
		case same(ro, rb), rt.at > ro.at:
			out = append(out, rt)
		default:
			out = append(out, ro)
		}
	}
	slices.SortStableFunc(out, func(x, y rec) int { return strings.Compare(x.at, y.at) })
	recs := make([][]mdstore.KV, len(out))
	for i, r := range out {
		recs[i] = r.kvs
	}
	return mdstore.EncodeRecords(recs), true
}
