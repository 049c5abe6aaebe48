package question

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/mdstore"
)

// Question statuses (mdstore.Statuses).
const (
	StatusOpen     = mdstore.StatusOpen
	StatusAnswered = mdstore.StatusAnswered
	StatusDropped  = mdstore.StatusDropped
	StatusRejected = mdstore.StatusRejected
)

// Question is a question block as callers and JSON see it.
type Question struct {
	QID        string   `json:"qid"`
	Status     string   `json:"status"`
	Slice      string   `json:"slice,omitempty"`
	Gate       string   `json:"gate,omitempty"`
	Question   string   `json:"question,omitempty"`
	Options    []string `json:"options"`
	Proposed   string   `json:"proposed,omitempty"`
	SLA        string   `json:"sla,omitempty"`
	RaisedAt   string   `json:"raised_at,omitempty"`
	AnsweredAt string   `json:"answered_at,omitempty"`
	Answer     *string  `json:"answer,omitempty"`
	Choice     *int     `json:"choice,omitempty"`
	AnsweredBy string   `json:"answered_by,omitempty"`
	// AnsweredVia is how the resolution came when not from the command
	// line: "agent" (relayed by an agent) or "elicitation" (the person's
	// answer to the MCP client's form).
	AnsweredVia string `json:"answered_via,omitempty"`
	// AnsweredHere: this machine recorded the resolution as a person's
	// own (the engine's streak.go sets it); only such resolutions make a
	// streak. Never in JSON.
	AnsweredHere bool     `json:"-"`
	Auto         string   `json:"auto,omitempty"`
	Provisional  bool     `json:"provisional,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	Breakpoint   string   `json:"breakpoint,omitempty"`
	Route        []string `json:"route,omitempty"`
	// Strategy, Responses, Progress and WaitingFor are those of a routed
	// question (route.go).
	Strategy         string     `json:"strategy,omitempty"`
	Responses        []Response `json:"responses,omitempty"`
	Progress         string     `json:"progress,omitempty"`    // "2 of 3 responded; waiting for carol; …"
	WaitingFor       []string   `json:"waiting_for,omitempty"` // routed responders yet to respond, while open
	BlockingSlices   string     `json:"blocking_slices,omitempty"`
	Supersedes       string     `json:"supersedes,omitempty"`
	Attempt          *int       `json:"attempt,omitempty"`
	PreviousFeedback string     `json:"previous_feedback,omitempty"`
	RemindedAt       string     `json:"reminded_at,omitempty"`
	EscalatedTo      []string   `json:"escalated_to,omitempty"`   // paged by on_overdue's escalate_to
	AlwaysApprove    string     `json:"always_approve,omitempty"` // "no": raised without the always-approve offer
	Overdue          bool       `json:"overdue"`
	Awaited          bool       `json:"awaited,omitempty"` // the question state.md awaits (questions list and show)
	// SignedBy is who signed the resolution ("principal SHA256:…");
	// Unsigned says why a question a require-signature rule selects still
	// holds the agent (the engine's signing.go).
	SignedBy string `json:"signed_by,omitempty"`
	Unsigned string `json:"unsigned,omitempty"`
	// Fingerprint is the question's identity (Fingerprint), set where the
	// engine hands a question out; RenumberedFrom, the ids a merge took
	// from it. Contested: a merge gave its id, or an id it had, to another
	// open question, so a command names it with --fingerprint (the engine's
	// pick.go).
	Fingerprint    string `json:"fingerprint,omitempty"`
	RenumberedFrom string `json:"renumbered_from,omitempty"`
	Contested      bool   `json:"contested,omitempty"`

	Line int `json:"-"` // line of the heading in questions.md

	responsesErr error // why the responses field does not read, if it does not
}

// FromBlock reads a question from its block in one pass over its fields;
// the first field of a key wins. now decides "overdue". A routed
// question's Progress and WaitingFor are filled from its responses
// (FillRouting).
func FromBlock(b *mdstore.Block, now time.Time) Question {
	q := Question{QID: b.QID, Line: b.Line()}
	var buf [32]string
	seen := buf[:0] // the keys read: a block has a dozen or two
	for _, f := range b.Fields() {
		k := mdstore.NormKey(f.Key)
		if slices.Contains(seen, k) {
			continue
		}
		seen = append(seen, k)
		v := f.Value
		switch k {
		case "status":
			q.Status = v
		case "slice":
			q.Slice = v
		case "gate":
			q.Gate = v
		case "question":
			q.Question = v
		case "options":
			q.Options = ParseOptions(v)
		case "proposed":
			q.Proposed = v
		case "sla":
			q.SLA = v
		case "raisedat":
			q.RaisedAt = v
		case "answeredat":
			q.AnsweredAt = v
		case "signedby":
			q.SignedBy = v
		case "answer":
			q.Answer = &v
		case "choice":
			q.Choice = Atoi(v)
		case "answeredby":
			q.AnsweredBy = v
		case "answeredvia":
			q.AnsweredVia = v
		case "auto":
			q.Auto = v
		case "provisional":
			v = strings.TrimSpace(v)
			q.Provisional = v != "" && v != "0" && v != "false"
		case "tags":
			q.Tags = SplitNames(v)
		case "breakpoint":
			q.Breakpoint = v
		case "route":
			q.Route = SplitNames(v)
		case "strategy":
			q.Strategy = strings.TrimSpace(v)
		case "responses":
			q.Responses, q.responsesErr = ParseResponses(v)
		case "blockingslices":
			q.BlockingSlices = v
		case "supersedes":
			q.Supersedes = v
		case "attempt":
			q.Attempt = Atoi(v)
		case "previousfeedback":
			q.PreviousFeedback = v
		case "remindedat":
			q.RemindedAt = v
		case "escalatedto":
			q.EscalatedTo = SplitNames(v)
		case "alwaysapprove":
			q.AlwaysApprove = v
		case "renumberedfrom":
			q.RenumberedFrom = v
		}
	}
	if q.Options == nil {
		q.Options = []string{}
	}
	if q.Status == StatusOpen && q.Answer != nil && *q.Answer == "" {
		q.Answer = nil // DevRites keeps "answer:" empty while a question is open
	}
	if q.Gate == "" {
		q.Gate = mdstore.HeadingGate(b)
	}
	if strings.TrimSpace(q.SLA) == "" {
		// DevRites writes no sla (its SLAs are per gate): the gate's
		// default stands for it, for overdue, remind and what is shown.
		q.SLA = DefaultSLA[q.Gate]
	}
	q.Overdue = q.overdue(now)
	q.FillRouting()
	return q
}

// Detached is q with a copy of each of its texts: a question read from a
// file shares the file's memory, and keeps all of it while it is kept.
func (q Question) Detached() Question {
	for _, s := range []*string{&q.QID, &q.Status, &q.Slice, &q.Gate, &q.Question, &q.Proposed, &q.SLA,
		&q.RaisedAt, &q.AnsweredAt, &q.AnsweredBy, &q.AnsweredVia, &q.Auto, &q.Breakpoint, &q.Strategy,
		&q.Progress, &q.BlockingSlices, &q.Supersedes, &q.PreviousFeedback, &q.RemindedAt, &q.AlwaysApprove, &q.SignedBy, &q.Unsigned,
		&q.RenumberedFrom, &q.Fingerprint} {
		*s = strings.Clone(*s)
	}
	for _, l := range []*[]string{&q.Options, &q.Tags, &q.Route, &q.WaitingFor, &q.EscalatedTo} {
		*l = cloneTexts(*l)
	}
	if q.Answer != nil {
		a := strings.Clone(*q.Answer)
		q.Answer = &a
	}
	if q.Responses != nil {
		rs := make([]Response, len(q.Responses))
		for i, r := range q.Responses {
			r.By, r.At, r.Status, r.Answer = strings.Clone(r.By), strings.Clone(r.At), strings.Clone(r.Status), strings.Clone(r.Answer)
			r.extra = slices.Clone(r.extra)
			for k, kv := range r.extra {
				r.extra[k] = mdstore.KV{Key: strings.Clone(kv.Key), Value: strings.Clone(kv.Value)}
			}
			rs[i] = r
		}
		q.Responses = rs
	}
	return q
}

// cloneTexts copies a list of texts and each text (nil stays nil).
func cloneTexts(l []string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strings.Clone(s)
	}
	return out
}

// Atoi is the number a field's value holds (blanks around it allowed), or
// nil when it holds none.
func Atoi(v string) *int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return nil
	}
	return &n
}

// ParseOptions returns the option texts of an "options" value, without their
// numbers. A line that does not start with a number continues the option
// before it. A list whose first line is a bullet ("- Banker's rounding")
// is a list of bullets instead, each an option.
func ParseOptions(v string) []string {
	out := []string{}
	marker := OptionNumber
	if optionBullet(strings.TrimSpace(v)) >= 0 {
		marker = optionBullet
	}
	for _, l := range strings.Split(v, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if at := marker(l); at >= 0 || len(out) == 0 {
			l = l[max(at, 0):]
			out = append(out, strings.TrimSpace(l))
			continue
		}
		out[len(out)-1] += " " + strings.TrimSpace(l)
	}
	return out
}

// Recommended is the mark of the recommended option, after its title.
const Recommended = " (Recommended)"

// EscapeHatch is the option the engine adds to every question's options.
const EscapeHatch = "Something else — I'll describe it"

// DefaultSLA is the SLA of each gate, for a question raised without one.
var DefaultSLA = map[string]string{"advisory": "none", "validating": "4h", "blocking": "15m", "escalating": "24h"}

// OptionTitle is an option's text up to its rationale (" — …"), without the
// "(Recommended)" mark: what an answer that picks the option records.
func OptionTitle(opt string) string {
	title, _, _ := strings.Cut(opt, " — ")
	return strings.TrimSpace(strings.Replace(title, Recommended, "", 1))
}

// IsEscapeHatch reports whether an option is the escape hatch ("Something
// else — …"): picked by its number alone it records nothing, so an answer
// that picks it must come in words.
func IsEscapeHatch(opt string) bool {
	return strings.HasPrefix(strings.ToLower(OptionTitle(opt)), "something else")
}

// SLADuration returns the question's SLA as a duration; ok is false for
// "none" or an SLA that does not parse.
func (q Question) SLADuration() (time.Duration, bool) {
	return mdstore.ParseSLA(q.SLA)
}

// RaisedTime is when the question was raised; ok is false when raised_at
// does not read.
func (q Question) RaisedTime() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, q.RaisedAt)
	return t, err == nil
}

// overdue: open, with an SLA, and raised longer ago than it.
func (q Question) overdue(now time.Time) bool { return q.OverdueBy(now) > 0 }

// OverdueBy is how long past its SLA an open question is; 0 when it is not.
func (q Question) OverdueBy(now time.Time) time.Duration {
	sla, ok := q.SLADuration()
	raised, ok2 := q.RaisedTime()
	if q.Status != StatusOpen || !ok || !ok2 || now.Sub(raised) <= sla {
		return 0
	}
	return now.Sub(raised) - sla
}

// Age is how long ago the question was raised, rounded for people.
func (q Question) Age(now time.Time) string {
	raised, ok := q.RaisedTime()
	if !ok {
		return "?"
	}
	d := now.Sub(raised)
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	default:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
}

// ShellWord is s as one word of a shell command line: as it is when it
// holds only letters, digits and . _ @ + -, else in single quotes.
func ShellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._@+-", r)) {
			plain = false
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// briefMax is how many characters of a person's or an agent's text an
// error line quotes: an answer can be 100 KB, and a line that quotes it
// whole drowns what failed.
const briefMax = 80

// Brief is s on one line (OneLine), cut to briefMax characters with the
// size of the whole when it is longer: for quoting text in error lines.
func Brief(s string) string {
	s = mdstore.OneLine(s)
	if utf8.RuneCountInString(s) <= briefMax {
		return s
	}
	r := []rune(s)
	return string(r[:briefMax]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
