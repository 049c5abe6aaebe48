package question

import (
	"slices"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
)

// Routing: a question raised with a route goes to the people it names, and
// its strategy says how their responses decide it.
//
// A block with a route: field and a strategy: field is routed: each
// resolution of it is a response from one responder, kept in the block's
// responses: field (a record list, mdstore.EncodeRecords), and the question
// becomes final when its strategy says so. A route without a strategy
// (--route alone, as DevRites' escalating gates name a specialist) is a
// page: it says whom to ask, anyone may answer, and answered_by records
// who. Only an explicit strategy makes the responders checked.
//
// The route words "owner" (whoever runs the project) and "any" are no
// one's name: while the route holds one, anyone may respond, and each such
// word stands for one responder the route does not name.

// Strategies.
const (
	StrategySingle     = "single"
	StrategyFirstWins  = "first-response-wins"
	StrategyCollectAll = "collect-all"
	StrategyQuorum     = "quorum" // written quorum:N
)

// Route words that are no one's name.
const (
	RouteOwner = "owner"
	RouteAny   = "any"
)

// Strategy is a parsed strategy: its name, and N for a quorum (digits
// as given, without leading zeros, and their value, past 1000 held as
// 1001: more than any route).
type Strategy struct {
	name   string
	n      int
	digits string
}

// Fits reports whether the strategy can decide among n routed responders:
// a quorum from 1 to n.
func (s Strategy) Fits(n int) bool {
	return s.name != StrategyQuorum || s.n >= 1 && s.n <= n
}

// Name is the strategy's name: StrategySingle, StrategyFirstWins,
// StrategyCollectAll or StrategyQuorum.
func (s Strategy) Name() string { return s.name }

func (s Strategy) String() string {
	if s.name == StrategyQuorum {
		return StrategyQuorum + ":" + s.digits
	}
	return s.name
}

// ParseStrategy reads single, first-response-wins, collect-all or
// quorum:N, in any case and with spaces around the parts.
func ParseStrategy(s string) (Strategy, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return Strategy{name: StrategySingle}, nil
	}
	switch v {
	case StrategySingle, StrategyFirstWins, StrategyCollectAll:
		return Strategy{name: v}, nil
	}
	name, n, found := strings.Cut(v, ":")
	if strings.TrimSpace(name) != StrategyQuorum {
		return Strategy{}, mdstore.Errorf(config.ErrBadArgs, "unknown strategy %q", Brief(s)).
			Hint("use single, first-response-wins, collect-all or quorum:N")
	}
	n = strings.TrimSpace(n)
	if !found || !IsNumber(n) {
		return Strategy{}, mdstore.Errorf(config.ErrBadArgs, "strategy %q: a quorum needs a number, as in quorum:2", Brief(s))
	}
	n = strings.TrimLeft(n, "0")
	if n == "" {
		n = "0"
	}
	k, err := strconv.Atoi(n)
	if err != nil || k > 1000 {
		k = 1001 // however large: more than a route can hold
	}
	return Strategy{name: StrategyQuorum, n: k, digits: n}, nil
}

// SplitNames reads a comma-separated list (names, tags, qids), without
// blanks; nil when there is none.
func SplitNames(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// IsRouteWord reports whether a route entry is owner or any.
func IsRouteWord(s string) bool {
	return strings.EqualFold(s, RouteOwner) || strings.EqualFold(s, RouteAny)
}

// Plural is n and what, with an s after it unless n is 1: "1 responder",
// "3 responders".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Response is one routed responder's answer, rejection or drop, as the
// responses field keeps it.
type Response struct {
	By     string       `json:"by"`
	At     string       `json:"at,omitempty"`
	Status string       `json:"status"` // answered, rejected or dropped
	Choice int          `json:"choice,omitempty"`
	Answer string       `json:"answer"`
	extra  []mdstore.KV // fields of a later version, kept as they are
}

// Same reports whether r says what o says: the same verdict and text, and
// the same option when r picks one.
func (r Response) Same(o Response) bool {
	return r.Status == o.Status && r.Answer == o.Answer && (r.Choice == 0 || r.Choice == o.Choice)
}

// EncodeResponses is the value of the responses field.
func EncodeResponses(rs []Response) string {
	recs := make([][]mdstore.KV, len(rs))
	for i, r := range rs {
		kvs := []mdstore.KV{{Key: "by", Value: r.By}, {Key: "at", Value: r.At}, {Key: "status", Value: r.Status}}
		if r.Choice != 0 {
			kvs = append(kvs, mdstore.KV{Key: "choice", Value: strconv.Itoa(r.Choice)})
		}
		kvs = append(kvs, mdstore.KV{Key: "answer", Value: r.Answer})
		recs[i] = append(kvs, r.extra...)
	}
	return mdstore.EncodeRecords(recs)
}

// ParseResponses reads the responses field.
func ParseResponses(v string) ([]Response, error) {
	recs, err := mdstore.ParseRecords(v)
	if err != nil {
		return nil, err
	}
	out := make([]Response, 0, len(recs))
	for i, rec := range recs {
		var r Response
		for _, kv := range rec {
			switch mdstore.NormKey(kv.Key) {
			case "by":
				r.By = strings.TrimSpace(kv.Value)
			case "at":
				r.At = kv.Value
			case "status":
				r.Status = strings.TrimSpace(kv.Value)
			case "choice":
				n, err := strconv.Atoi(strings.TrimSpace(kv.Value))
				if err != nil || n < 1 {
					return nil, mdstore.Errorf(mdstore.ErrMalformed, "response %d: choice %q is not an option number", i+1, kv.Value)
				}
				r.Choice = n
			case "answer":
				r.Answer = kv.Value
			default:
				r.extra = append(r.extra, kv)
			}
		}
		switch {
		case r.By == "":
			return nil, mdstore.Errorf(mdstore.ErrMalformed, "response %d has no \"by\"", i+1)
		case r.Status != StatusAnswered && r.Status != StatusRejected && r.Status != StatusDropped:
			return nil, mdstore.Errorf(mdstore.ErrMalformed, "response %d (by %s): status %q is not answered, rejected or dropped", i+1, r.By, r.Status)
		case slices.ContainsFunc(out, func(o Response) bool { return strings.EqualFold(o.By, r.By) }):
			return nil, mdstore.Errorf(mdstore.ErrMalformed, "response %d: %s has responded twice", i+1, r.By)
		}
		out = append(out, r)
	}
	return out, nil
}

// Routing is what decides a routed question: who may respond, how, and
// what they said.
type Routing struct {
	Route     []string
	strat     Strategy
	Responses []Response
	options   []string
}

// Routed reports whether the question takes responses: it has a route and
// a strategy (see the top of this file).
func (q Question) Routed() bool { return len(q.Route) > 0 && q.Strategy != "" }

// checksResponders reports whether only the people q is routed to may
// answer it: it is routed (it has a strategy) and its route names no
// owner or any.
func (q Question) checksResponders() bool {
	return q.Routed() && !slices.ContainsFunc(q.Route, IsRouteWord)
}

// MayAnswer reports whether by may answer q: anyone, unless q checks its
// responders; then one of them (in any case).
func (q Question) MayAnswer(by string) bool {
	if !q.checksResponders() {
		return true
	}
	rt, err := q.Routing()
	if err != nil {
		return true // the engine reports the fields that do not read
	}
	_, ok := rt.Responder(strings.TrimSpace(by))
	return ok
}

// Awaits names whom a routed question waits for: the responders yet to
// respond while it is open, else its whole route.
func (q Question) Awaits() []string {
	if len(q.WaitingFor) > 0 {
		return q.WaitingFor
	}
	return q.Route
}

// Routing returns what decides the question, or why its fields cannot
// (an unknown strategy, a quorum larger than the route, responses that do
// not read).
func (q Question) Routing() (Routing, error) {
	s, err := ParseStrategy(q.Strategy)
	if err != nil {
		return Routing{}, mdstore.Errorf(mdstore.ErrMalformed, "%v", err)
	}
	if !s.Fits(len(q.Route)) {
		return Routing{}, mdstore.Errorf(mdstore.ErrMalformed, "strategy %s, but the route has %s", s, Plural(len(q.Route), "responder"))
	}
	if q.responsesErr != nil {
		return Routing{}, q.responsesErr
	}
	return Routing{Route: q.Route, strat: s, Responses: q.Responses, options: q.Options}, nil
}

// named returns the route's spelling of name when the route names it.
func (rt Routing) named(name string) (string, bool) {
	for _, r := range rt.Route {
		if !IsRouteWord(r) && strings.EqualFold(r, name) {
			return r, true
		}
	}
	return "", false
}

// Responder returns who a response from by is recorded as, and whether by
// may respond: a name of the route (as the route spells it), or anyone
// while the route holds owner or any.
func (rt Routing) Responder(by string) (string, bool) {
	if r, ok := rt.named(by); ok {
		return r, true
	}
	return by, slices.ContainsFunc(rt.Route, IsRouteWord)
}

// Find returns the index of who's response, or -1.
func (rt Routing) Find(who string) int {
	return slices.IndexFunc(rt.Responses, func(r Response) bool { return strings.EqualFold(r.By, who) })
}

// slots counts the routed responders who have responded, and lists those
// still awaited in route order. A response from someone the route does
// not name fills an owner or any entry.
func (rt Routing) slots() (responded int, waiting []string) {
	unnamed := 0
	for _, r := range rt.Responses {
		if _, ok := rt.named(r.By); !ok {
			unnamed++
		}
	}
	for _, entry := range rt.Route {
		switch {
		case IsRouteWord(entry) && unnamed > 0:
			unnamed--
			responded++
		case !IsRouteWord(entry) && rt.Find(entry) >= 0:
			responded++
		default:
			waiting = append(waiting, entry)
		}
	}
	return responded, waiting
}

// FillRouting sets the routed question's Progress and WaitingFor from its
// responses; a question whose routing fields do not read (doctor reports
// them) gets neither.
func (q *Question) FillRouting() {
	q.Progress, q.WaitingFor = "", nil
	if !q.Routed() {
		return
	}
	rt, err := q.Routing()
	if err != nil {
		return
	}
	q.Progress, q.WaitingFor = rt.progress(q.Status == StatusOpen)
}

// routeText is the route as questions show prints it: the names, and the
// strategy when it is not single.
func routeText(q Question) string {
	s := strings.Join(q.Route, ", ")
	if q.Strategy != "" && !strings.EqualFold(q.Strategy, StrategySingle) {
		s += " (" + q.Strategy + ")"
	}
	return s
}

// responsesText is the lines of questions show about a routed question's
// responses: where they stand, then each one.
//
//	responses: 1 of 3 responded; waiting for bob, carol
//	  2026-11-29T14:05:00Z alice answered (option 1): Banker's rounding
func (q Question) responsesText() string {
	if q.Progress == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("responses: " + q.Progress + "\n")
	for _, r := range q.Responses {
		line := strings.TrimSpace(r.At+" "+r.By) + " " + r.Status
		if r.Choice != 0 {
			line += " (option " + strconv.Itoa(r.Choice) + ")"
		}
		text := quoteLines(r.Answer)
		if !strings.HasPrefix(text, "\n") {
			text = " " + text
		}
		b.WriteString("  " + line + ":" + text + "\n")
	}
	return b.String()
}
