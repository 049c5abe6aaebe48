package engine

import (
	"fmt"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Checker is a doctor.Checker of the engine's workspace and of the schema
// this binary reads, whose Routing is the engine's check of routing fields
// (checkRouting): the one checks API of the write guard and of doctor's
// run. Each call returns a Checker of its own, with nothing found yet.
func (e *Engine) Checker() *doctor.Checker {
	c := &doctor.Checker{Schema: mdstore.SchemaVersion, WS: e.WS}
	c.Routing = func(b *mdstore.Block, seen doctor.Fields) { checkRouting(c, b, seen) }
	return c
}

// checkRouting reports routing fields that do not read: an unknown
// strategy, a quorum larger than the route, responses that are not a
// record list of responses (errors: the engine would decide the question
// wrongly, so it writes nothing while they stand); and a strategy without
// a route, which routes nothing (a warning). seen holds each field's line.
func checkRouting(c *doctor.Checker, b *mdstore.Block, seen doctor.Fields) {
	const file = mdstore.QuestionsFile
	v, found := b.Peek("strategy", "route", "responses")
	if !found[0] {
		return
	}
	strat, route := v[0], question.SplitNames(v[1])
	if len(route) == 0 {
		c.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "parse", File: file, Line: seen.Line("strategy"),
			Problem: fmt.Sprintf("%s: strategy %q without a route: anyone may answer it", b.QID, strat),
			Mend:    "add \"route: <names>\", or delete the strategy"})
		return
	}
	s, err := question.ParseStrategy(strat)
	switch {
	case err != nil:
		c.Add(doctor.Finding{Severity: doctor.SevError, Kind: "parse", File: file, Line: seen.Line("strategy"),
			Problem: fmt.Sprintf("%s: field \"strategy\" has unknown value %q", b.QID, strat),
			Mend:    "set it to single, first-response-wins, collect-all or quorum:N"})
	case !s.Fits(len(route)):
		c.Add(doctor.Finding{Severity: doctor.SevError, Kind: "parse", File: file, Line: seen.Line("strategy"),
			Problem: fmt.Sprintf("%s: strategy %s, but the route has %s", b.QID, s, question.Plural(len(route), "responder")),
			Mend:    fmt.Sprintf("set the quorum from 1 to %d, or route the question to more people", len(route))})
	}
	if found[2] {
		if _, err := question.ParseResponses(v[2]); err != nil {
			c.Add(doctor.Finding{Severity: doctor.SevError, Kind: "parse", File: file, Line: seen.Line("responses"),
				Problem: fmt.Sprintf("%s: field \"responses\": %v", b.QID, err),
				Mend:    "write each response as \"- by: <name>\" with at, status (answered, rejected or dropped), choice and answer indented under it"})
		}
	}
}

// routingErrors is the write guard's check of routing fields (checkRouting's
// errors): only the blocks its scan found with a strategy field are read.
func routingErrors(c *doctor.Checker, w *wsFiles, sc *scan) {
	if !w.hasQ {
		return
	}
	for _, b := range sc.routed {
		checkRouting(c, b, c.Fields(b, nil))
	}
}
