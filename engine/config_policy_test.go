package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/trust"
)

// The policy on configuration as config reads it: a file that does not
// parse auto-picks nothing, and approval rules sit where docs/afk-and-notify.md says.

func writeAFK(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AFK"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// trustedRules is rules.yaml with text, trusted on this (test) machine.
func trustedRules(t *testing.T, text string) config.Rules {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, config.RulesFile)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := trust.Open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trust(path); err != nil {
		t.Fatal(err)
	}
	return config.LoadRules(dir)
}

// A body that does not parse fails closed: config.AFK stays on, nothing is allowed,
// and the one warning names the line.
func TestLoadAFKBrokenFailsClosed(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"syntax", "allow_gates: [advisory, blocking]\nnotify: ./page.sh\nnotify_on: [raised\n", "AFK:"},
		{"bad indentation", "allow_gates: [blocking]\n  notify: x\n", "AFK:2: did not find expected key"},
		{"tab indentation", "allow_gates:\n\t- blocking\n", "AFK:2: found character that cannot start any token"},
		{"unclosed list", "notify: x\nnotify_on: [reminder\n", "AFK:2: did not find expected ',' or ']'"},
		// The parser names where it stopped: the end of the file.
		{"unclosed list at the end", "notify_on: [reminder\n", "AFK:2: did not find expected ',' or ']'"},
		{"error on line 1", "notify_on: [a]]\n", "AFK:1: did not find expected key"},
		{"unclosed quote on line 4", "notify: x\n\n\nnever_auto: ['billing\n", "AFK:4: found unexpected end of stream"},
		{"not a mapping", "- blocking\n- advisory\n", "AFK:1: want key: value lines"},
		{"unknown gate", "notify: x\nallow_gates: [advisory, blockng]\n", `AFK:2: allow_gates: unknown gate "blockng"`},
		{"bad timeout", "allow_gates: [blocking]\nnotify_timeout: ten\n", `AFK:2: notify_timeout: "ten" is not a duration`},
		{"negative count", "allow_gates: [blocking]\n\nauto_approve_after: -1\n", `AFK:3: auto_approve_after: "-1" is not a whole number`},
		{"count in words", "auto_approve_after: three\n", `AFK:1: auto_approve_after: "three"`},
		{"duplicate key", "allow_gates: [advisory]\nallow_gates: [blocking]\n", "AFK:2: allow_gates is also set on line 1"},
		{"list of maps", "never_auto:\n  - a: b\n", "AFK:1: want a list of words"},
		{"notify as a list", "notify: [a, b]\n", "AFK:1: notify: want a shell command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := config.LoadAFK(writeAFK(t, tt.body))
			if !a.On || !a.Broken {
				t.Fatalf("got on=%v broken=%v, want on and broken", a.On, a.Broken)
			}
			if len(a.AllowGates) != 0 || a.AutoApproveAfter != 0 {
				t.Errorf("got allow_gates %q auto_approve_after %d, want nothing allowed", a.AllowGates, a.AutoApproveAfter)
			}
			if len(a.Warnings) != 1 {
				t.Fatalf("got warnings %q, want exactly one", a.Warnings)
			}
			w := a.Warnings[0]
			if !strings.Contains(w, tt.want) || !strings.HasSuffix(w, "nothing is auto-picked until it is fixed") {
				t.Errorf("got warning %q, want it to contain %q and say nothing is auto-picked", w, tt.want)
			}
			for _, gate := range mdstore.Gates {
				if d := Decide(a, Gatekeeping{Gate: gate, Breakpoint: "b"}); d.Outcome != Paused {
					t.Errorf("gate %s: got %s, want paused", gate, d.Outcome)
				}
			}
			if a.NotifyOnEvent("raised") {
				t.Errorf("got the hook enabled from a file that does not parse, want it off")
			}
		})
	}
}

// Every line that makes the body fail is reported, each naming its line,
// after the warnings about what is ignored; the body still fails closed.
func TestLoadAFKReportsEveryBadLine(t *testing.T) {
	tests := []struct {
		name, body string
		warnings   []string // contained in the warnings, in order
		failed     []bool   // Failed(i) for each
	}{
		{"several keys", "allow_gates: [advisory, blockin]\nnotify: ./page.sh\nnotify_timeout: ten\npager: on\n" +
			"auto_approve_after: -1\nallow_gates: [advisory]\nnever_auto:\n  - billing\n  - {a: b}\n",
			[]string{`AFK:4: unknown key "pager" (ignored)`, `AFK:1: allow_gates: unknown gate "blockin"`,
				`AFK:3: notify_timeout: "ten" is not a duration`, `AFK:5: auto_approve_after: "-1" is not a whole number`,
				"AFK:6: allow_gates is also set on line 1", "AFK:7: want a list of words"},
			[]bool{false, true, true, true, true, true}},
		{"gates on their own lines", "allow_gates:\n  - advisroy\n  - blocking\n  - validatng\n",
			[]string{`AFK:2: allow_gates: unknown gate "advisroy"`, `AFK:4: allow_gates: unknown gate "validatng"`},
			[]bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := config.LoadAFK(writeAFK(t, tt.body))
			if !a.On || !a.Broken || len(a.AllowGates) != 0 || a.AutoApproveAfter != 0 {
				t.Fatalf("got on=%v broken=%v allow_gates %q auto_approve_after %d, want on, broken, nothing allowed",
					a.On, a.Broken, a.AllowGates, a.AutoApproveAfter)
			}
			if len(a.Warnings) != len(tt.warnings) {
				t.Fatalf("got warnings %q, want %d", a.Warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(a.Warnings[i], w) {
					t.Errorf("got warning %d %q, want it to contain %q", i, a.Warnings[i], w)
				}
				if got := a.Failed(i); got != tt.failed[i] {
					t.Errorf("got Failed(%d) %v for %q, want %v", i, got, a.Warnings[i], tt.failed[i])
				}
				if tt.failed[i] && !strings.HasSuffix(a.Warnings[i], "nothing is auto-picked until it is fixed") {
					t.Errorf("got %q, want it to say nothing is auto-picked", a.Warnings[i])
				}
			}
			for _, gate := range mdstore.Gates {
				if d := Decide(a, Gatekeeping{Gate: gate, Breakpoint: "b"}); d.Outcome != Paused {
					t.Errorf("gate %s: got %s, want paused", gate, d.Outcome)
				}
			}
		})
	}
}

// TestDecideRules: where approval rules sit in the policy.
func TestDecideRules(t *testing.T) {
	rules := trustedRules(t, "- id: ok\n  breakpoint: pay.x\n  action: always-approve\n  scope: project\n  created_by: alice\n- id: docs\n  tag: docs\n  action: always-approve\n  scope: project\n- id: no\n  breakpoint: pay.stop\n  action: never-auto\n- id: bill\n  tag: billing\n  action: never-auto\n")
	broken := trustedRules(t, "- id: x\n  action: nope\n")
	on := config.AFK{On: true, AllowGates: []string{"advisory", "validating"}}
	off := config.AFK{AllowGates: []string{"advisory"}}
	for _, tc := range []struct {
		name    string
		afk     config.AFK
		g       Gatekeeping
		outcome string
		rule    int
		rname   string
	}{
		{"off, approved", off, Gatekeeping{Gate: "blocking", Breakpoint: "pay.x"}, AutoPicked, RuleApproval, "rule ok"},
		{"off, approved by tag", off, Gatekeeping{Gate: "blocking", Tags: []string{"Docs"}}, AutoPicked, RuleApproval, "rule docs"},
		{"off, no rule", off, Gatekeeping{Gate: "advisory", Breakpoint: "pay.y"}, Paused, 1, "afk-off"},
		{"off, never-auto", off, Gatekeeping{Gate: "advisory", Breakpoint: "pay.stop"}, Paused, 1, "afk-off"},
		{"off, approved but escalating", off, Gatekeeping{Gate: "escalating", Breakpoint: "pay.x"}, Paused, 2, "escalating"},
		{"off, approved but billing", off, Gatekeeping{Gate: "blocking", Breakpoint: "pay.x", Tags: []string{"billing"}}, Paused, 3, "never-auto"},
		{"on, approved beats validating", on, Gatekeeping{Gate: "validating", Breakpoint: "pay.x"}, AutoPicked, RuleApproval, "rule ok"},
		{"on, never-auto beats allow_gates", on, Gatekeeping{Gate: "advisory", Breakpoint: "pay.stop"}, Paused, 3, "never-auto"},
		{"on, never-auto tag", on, Gatekeeping{Gate: "advisory", Tags: []string{"BILLING"}}, Paused, 3, "never-auto"},
		{"on, always-stop", on, Gatekeeping{Gate: "blocking", Breakpoint: "pay.x", Tags: []string{"public-api-break"}}, Paused, 3, "always-stop"},
		{"on, scope", on, Gatekeeping{Gate: "blocking", Breakpoint: "pay.x", Tags: []string{"scope"}}, Paused, 4, "scope-or-acceptance"},
		{"on, seal", on, Gatekeeping{Gate: "blocking", Breakpoint: "pay.x", Slice: "seal"}, Paused, 5, "seal"},
		{"on, no rule", on, Gatekeeping{Gate: "advisory", Breakpoint: "pay.y"}, AutoPicked, 6, "allow_gates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.g.Rules = &rules
			d := Decide(tc.afk, tc.g)
			if d.Outcome != tc.outcome || d.Rule != tc.rule || d.Name != tc.rname {
				t.Errorf("got %s, rule %d (%s): %s; want %s, rule %d (%s)", d.Outcome, d.Rule, d.Name, d.Reason, tc.outcome, tc.rule, tc.rname)
			}
		})
	}
	d := Decide(on, Gatekeeping{Gate: "advisory", Breakpoint: "pay.x", Rules: &broken})
	if d.Outcome != Paused || d.Rule != 3 || d.Name != "rules-broken" {
		t.Errorf("broken rules: got %+v, want a pause by rule 3 (rules-broken)", d)
	}
	if d := Decide(on, Gatekeeping{Gate: "advisory", Breakpoint: "pay.x"}); d.Rule != 6 {
		t.Errorf("no rules at all: got %+v, want rule 6", d)
	}
}

// TestAddRuleHardStops: an always-approve rule for a tag the policy always
// pauses is refused; a never-auto rule for it is not.
func TestAddRuleHardStops(t *testing.T) {
	ctx, dir := context.Background(), t.TempDir()
	now := time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)
	for _, tag := range []string{"FS-Destruction", "acceptance"} {
		_, err := AddRule(ctx, dir, time.Second, now, config.RuleRequest{Tag: tag, Action: config.AlwaysApprove, Scope: config.ScopeProject})
		if !errors.Is(err, ErrBadArgs) || !strings.Contains(err.Error(), "would never apply") {
			t.Errorf("always-approve %s: got %v, want bad arguments: would never apply", tag, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, config.RulesFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused rule wrote %s: %v", config.RulesFile, err)
	}
	if c, err := AddRule(ctx, dir, time.Second, now, config.RuleRequest{Tag: " auth-boundary ", Action: config.NeverAuto}); err != nil || c.Rule.Tag != "auth-boundary" {
		t.Errorf("a never-auto rule for an always-stop tag: got %+v, %v", c, err)
	}
}
