package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

var testNow = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

// historyFile writes a questions.md whose blocks resolve breakpoint
// "slice-3.blocking" as the steps say, oldest first:
//
//	h1     a person picked option 1
//	h2     a person picked option 2
//	htext  a person answered in words
//	drop   dropped
//	reject rejected
//	afk    the engine auto-picked option 1
//	open   still open
//	other  a person picked option 1 on another breakpoint
func historyFile(steps ...string) string {
	var b strings.Builder
	b.WriteString("# Questions\n")
	for i, s := range steps {
		bp := "slice-3.blocking"
		if s == "other" {
			bp, s = "slice-4.blocking", "h1"
		}
		fmt.Fprintf(&b, "\n## q-2026-11-%02d-001\nstatus: %s\nslice: 3 — payments\ngate: blocking\nquestion: Which rounding?\n", i+1, map[string]string{
			"h1": "answered", "h2": "answered", "htext": "answered", "afk": "answered", "drop": "dropped", "reject": "rejected", "open": "open"}[s])
		b.WriteString("options: |\n  1. Banker's rounding (Recommended) — unbiased\n  2. Round half up — simpler\n  3. Something else — I'll describe it\n")
		fmt.Fprintf(&b, "proposed: Banker's rounding\nsla: 15m\nraised_at: 2026-11-%02dT10:00:00Z\nbreakpoint: %s\n", i+1, bp)
		if s == "open" {
			continue
		}
		fmt.Fprintf(&b, "answered_at: 2026-11-%02dT10:05:00Z\n", i+1)
		switch s {
		case "h1":
			b.WriteString("answer: Banker's rounding\nchoice: 1\nanswered_by: human\n")
		case "h2":
			b.WriteString("answer: Round half up\nchoice: 2\nanswered_by: human\n")
		case "htext":
			b.WriteString("answer: Banker's rounding, but log it\nanswered_by: human\n")
		case "afk":
			b.WriteString("answer: Banker's rounding\nchoice: 1\nanswered_by: afk\nauto: auto_approve_after\n")
		case "drop":
			b.WriteString("answer: not needed any more\nanswered_by: human\n")
		case "reject":
			b.WriteString("answer: split the slice first\nanswered_by: human\n")
		}
	}
	return b.String()
}

func parseHistory(t *testing.T, text string) []question.Question {
	t.Helper()
	qs := mdstore.ParseQuestions([]byte(text))
	var out []question.Question
	for _, b := range qs.Blocks() {
		q := question.FromBlock(b, testNow)
		q.AnsweredHere = true // as if this machine recorded each resolution
		out = append(out, q)
	}
	return out
}

func TestDecideRuleOrder(t *testing.T) {
	on := config.AFK{On: true, AllowGates: []string{"advisory", "validating", "blocking"}, NeverAuto: []string{"billing"}}
	tests := []struct {
		name    string
		afk     config.AFK
		g       Gatekeeping
		outcome string
		rule    int
		rname   string
	}{
		{"afk off pauses even an allowed gate", config.AFK{AllowGates: []string{"advisory"}}, Gatekeeping{Gate: "advisory"}, Paused, 1, "afk-off"},
		{"escalating pauses even when allowed", config.AFK{On: true, AllowGates: []string{"escalating"}}, Gatekeeping{Gate: "escalating"}, Paused, 2, "escalating"},
		{"escalating beats an always-stop tag", on, Gatekeeping{Gate: "escalating", Tags: []string{"auth-boundary"}}, Paused, 2, "escalating"},
		{"always-stop tag", on, Gatekeeping{Gate: "advisory", Tags: []string{"fs-destruction"}}, Paused, 3, "always-stop"},
		{"always-stop tag in another case", on, Gatekeeping{Gate: "advisory", Tags: []string{" Public-API-Break "}}, Paused, 3, "always-stop"},
		{"never_auto tag", on, Gatekeeping{Gate: "advisory", Tags: []string{"ui", "billing"}}, Paused, 3, "never-auto"},
		{"always-stop beats scope", on, Gatekeeping{Gate: "advisory", Tags: []string{"scope", "external-contract"}}, Paused, 3, "always-stop"},
		{"scope tag", on, Gatekeeping{Gate: "advisory", Tags: []string{"scope"}}, Paused, 4, "scope-or-acceptance"},
		{"acceptance tag", on, Gatekeeping{Gate: "blocking", Tags: []string{"acceptance"}}, Paused, 4, "scope-or-acceptance"},
		{"scope beats seal", on, Gatekeeping{Gate: "advisory", Slice: "seal", Tags: []string{"scope"}}, Paused, 4, "scope-or-acceptance"},
		{"seal slice", on, Gatekeeping{Gate: "validating", Slice: " Seal "}, Paused, 5, "seal"},
		{"advisory allowed", on, Gatekeeping{Gate: "advisory", Tags: []string{"ui"}}, AutoPicked, 6, "allow_gates"},
		{"blocking allowed", on, Gatekeeping{Gate: "blocking"}, AutoPicked, 6, "allow_gates"},
		{"validating allowed is provisional", on, Gatekeeping{Gate: "validating"}, Provisional, 6, "allow_gates"},
		{"default allow_gates keeps blocking out", config.AFK{On: true, AllowGates: []string{"advisory"}}, Gatekeeping{Gate: "blocking"}, Paused, 8, "default"},
		{"broken file pauses advisory", config.AFK{On: true, Broken: true, AllowGates: []string{}}, Gatekeeping{Gate: "advisory"}, Paused, 8, "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.afk, tt.g)
			if d.Outcome != tt.outcome || d.Rule != tt.rule || d.Name != tt.rname {
				t.Errorf("got %s by rule %d (%s), want %s by rule %d (%s)", d.Outcome, d.Rule, d.Name, tt.outcome, tt.rule, tt.rname)
			}
			if d.Reason == "" {
				t.Errorf("got an empty reason, want one sentence")
			}
		})
	}
}

func TestDecideBrokenSaysSo(t *testing.T) {
	d := Decide(config.AFK{On: true, Broken: true, AutoApproveAfter: 0}, Gatekeeping{Gate: "advisory"})
	if !strings.Contains(d.Reason, "does not parse") {
		t.Errorf("got reason %q, want it to say the AFK file does not parse", d.Reason)
	}
}

func TestDecideAutoApproveAfter(t *testing.T) {
	tests := []struct {
		n       int
		history []string
		outcome string
		rule    int
	}{
		{3, nil, Paused, 8},
		{3, []string{"h1", "h1"}, Paused, 8},
		{3, []string{"h1", "h1", "h1"}, AutoPicked, 7},
		{3, []string{"h1", "h1", "h1", "h1"}, AutoPicked, 7},
		{1, []string{"h1"}, AutoPicked, 7},
		{3, []string{"h1", "h1", "drop", "h1"}, Paused, 8},
		{3, []string{"h1", "reject", "h1", "h1"}, Paused, 8},
		{3, []string{"h1", "h1", "h1", "drop"}, Paused, 8},
		{3, []string{"h1", "h1", "h1", "reject", "h1", "h1", "h1"}, AutoPicked, 7},
		{3, []string{"h1", "h2", "h1", "h1"}, Paused, 8},
		{3, []string{"h1", "htext", "h1", "h1"}, Paused, 8},
		{3, []string{"h1", "h1", "other", "h1"}, AutoPicked, 7},
		{3, []string{"h1", "other", "other", "other"}, Paused, 8},
		{3, []string{"h1", "h1", "open", "h1"}, AutoPicked, 7},
		{3, []string{"h1", "h1", "afk", "h1"}, AutoPicked, 7},
		{3, []string{"h1", "h1", "h1", "afk", "afk"}, AutoPicked, 7},
		{3, []string{"afk", "afk", "afk"}, Paused, 8},
		{0, []string{"h1", "h1", "h1"}, Paused, 8},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("n=%d/%s", tt.n, strings.Join(tt.history, ","))
		t.Run(name, func(t *testing.T) {
			afk := config.AFK{On: true, AllowGates: []string{"advisory"}, AutoApproveAfter: tt.n}
			g := Gatekeeping{Gate: "blocking", Breakpoint: "slice-3.blocking", Slice: "3 — payments",
				History: parseHistory(t, historyFile(tt.history...))}
			d := Decide(afk, g)
			if d.Outcome != tt.outcome || d.Rule != tt.rule {
				t.Errorf("got %s by rule %d (%s), want %s by rule %d", d.Outcome, d.Rule, d.Reason, tt.outcome, tt.rule)
			}
		})
	}
}

// Rule 7 never overrides an earlier rule that pauses.
func TestDecideAutoApproveAfterComesLast(t *testing.T) {
	afk := config.AFK{On: true, AllowGates: []string{"advisory"}, AutoApproveAfter: 1}
	h := parseHistory(t, historyFile("h1", "h1"))
	for _, g := range []Gatekeeping{
		{Gate: "escalating", Breakpoint: "slice-3.blocking", History: h},
		{Gate: "blocking", Tags: []string{"auth-boundary"}, Breakpoint: "slice-3.blocking", History: h},
		{Gate: "blocking", Tags: []string{"acceptance"}, Breakpoint: "slice-3.blocking", History: h},
		{Gate: "blocking", Slice: "seal", Breakpoint: "slice-3.blocking", History: h},
	} {
		t.Run(g.Gate+"/"+strings.Join(g.Tags, ",")+"/"+g.Slice, func(t *testing.T) {
			if d := Decide(afk, g); d.Outcome != Paused || d.Rule == 7 {
				t.Errorf("got %s by rule %d, want a pause by an earlier rule", d.Outcome, d.Rule)
			}
		})
	}
}

// Resolutions count in the order they happened, not the order raised.
func TestHumanStreakOrdersByAnsweredAt(t *testing.T) {
	text := historyFile("h1", "h1", "drop")
	// The drop was raised last but answered first.
	text = strings.Replace(text, "answered_at: 2026-11-03T10:05:00Z", "answered_at: 2026-11-01T09:00:00Z", 1)
	if got := HumanStreak(parseHistory(t, text), "slice-3.blocking"); got != 2 {
		t.Errorf("got streak %d, want 2", got)
	}
}
