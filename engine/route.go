package engine

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/notify"
	"github.com/devrites/devrites-engine/question"
)

// Routing as the engine does it: the route and strategy a raise gives,
// and the hook's view of a routed question. What a routed question's
// fields say (its strategy, responses and progress) is the question's own
// (package question); respond.go records a response.

// Names is a list of names that JSON gives as a list or as one string of
// comma-separated names ("alice, bob").
type Names []string

// UnmarshalJSON reads a string or a list of strings.
func (n *Names) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*n = Names{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*n = list
		return nil
	}
	return mdstore.Errorf(ErrBadArgs, "field \"route\" must be a name, \"a, b\" or a list of names")
}

// prepareRoute checks the route and the strategy of a raise: names are one
// line each, without commas (split on them), and none twice; the strategy,
// when one is given, is known, and a quorum is between 1 and the number of
// routed responders. Without one, Strategy stays "": the route is a page.
func (r *RaiseRequest) prepareRoute() error {
	var route Names
	for _, given := range r.Route {
		entry, err := config.CleanText("--route", given)
		if err != nil {
			return err
		}
		for _, name := range question.SplitNames(entry) {
			if strings.Contains(name, "\n") {
				return mdstore.Errorf(ErrBadArgs, "--route %q has a line break", question.Brief(name)).Hint("a route names people or roles, one line each")
			}
			if err := config.CheckName("--route", name); err != nil {
				return err
			}
			if question.IsRouteWord(name) {
				name = strings.ToLower(name)
			}
			if i := slices.IndexFunc(route, func(x string) bool { return strings.EqualFold(x, name) }); i >= 0 {
				return mdstore.Errorf(ErrBadArgs, "--route %s is given twice", name).Hint("name each responder once")
			}
			route = append(route, name)
		}
	}
	r.Route = route
	st, err := config.CleanText("--strategy", r.Strategy)
	if err != nil {
		return err
	}
	if blank(st) { // a route alone is a page: anyone may answer
		r.Strategy = ""
		return nil
	}
	s, err := question.ParseStrategy(st)
	if err != nil {
		return err
	}
	switch {
	case len(route) == 0 && s.Name() != question.StrategySingle:
		return mdstore.Errorf(ErrBadArgs, "strategy %s without a route", s).
			Hint("a strategy says how the answers of the people the question is routed to decide it; name them with --route")
	case !s.Fits(len(route)):
		return mdstore.Errorf(ErrBadArgs, "strategy %s: the route has %s", s, question.Plural(len(route), "responder")).
			Hint("a quorum is from 1 to the number of routed responders")
	}
	r.Strategy = s.String()
	return nil
}

// routeEvent tells the hook a question's route, strategy and responses;
// the responder is the one whose response came last.
func routeEvent(ev *notify.Event, q question.Question) {
	ev.Route, ev.Strategy, ev.Progress = q.Route, q.Strategy, q.Progress
	for _, r := range q.Responses {
		ev.Responses = append(ev.Responses, notify.Response{By: r.By, At: r.At, Status: r.Status, Choice: r.Choice, Answer: r.Answer})
		ev.Responder = r.By
	}
}
