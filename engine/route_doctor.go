package engine

import (
	"fmt"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// checkRouting reports routing fields that do not read: an unknown
// strategy, a quorum larger than the route, responses that are not a
// record list of responses (errors: the engine would decide the question
// wrongly, so it writes nothing while they stand); and a strategy without
// a route, which routes nothing (a warning). seen holds each field's line.
func (d *checkup) checkRouting(b *mdstore.Block, seen doctor.Fields) {
	const file = mdstore.QuestionsFile
	v, found := b.Peek("strategy", "route", "responses")
	if !found[0] {
		return
	}
	strat, route := v[0], question.SplitNames(v[1])
	if len(route) == 0 {
		d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "parse", File: file, Line: seen.Line("strategy"),
			Problem: fmt.Sprintf("%s: strategy %q without a route: anyone may answer it", b.QID, strat),
			Mend:    "add \"route: <names>\", or delete the strategy"})
		return
	}
	s, err := question.ParseStrategy(strat)
	switch {
	case err != nil:
		d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "parse", File: file, Line: seen.Line("strategy"),
			Problem: fmt.Sprintf("%s: field \"strategy\" has unknown value %q", b.QID, strat),
			Mend:    "set it to single, first-response-wins, collect-all or quorum:N"})
	case !s.Fits(len(route)):
		d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "parse", File: file, Line: seen.Line("strategy"),
			Problem: fmt.Sprintf("%s: strategy %s, but the route has %s", b.QID, s, question.Plural(len(route), "responder")),
			Mend:    fmt.Sprintf("set the quorum from 1 to %d, or route the question to more people", len(route))})
	}
	if found[2] {
		if _, err := question.ParseResponses(v[2]); err != nil {
			d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "parse", File: file, Line: seen.Line("responses"),
				Problem: fmt.Sprintf("%s: field \"responses\": %v", b.QID, err),
				Mend:    "write each response as \"- by: <name>\" with at, status (answered, rejected or dropped), choice and answer indented under it"})
		}
	}
}

// routingErrors is the write guard's check of routing fields (checkRouting's
// errors): only the blocks its scan found with a strategy field are read.
func (d *checkup) routingErrors(w *wsFiles) {
	if !w.hasQ {
		return
	}
	for _, b := range d.scan.routed {
		d.checkRouting(b, d.Fields(b, nil))
	}
}
