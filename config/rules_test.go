package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

func parsedRules(t *testing.T, text string) Rules {
	t.Helper()
	r := Rules{Path: "rules.yaml", data: []byte(text)}
	r.parse()
	return r
}

func TestRulesParse(t *testing.T) {
	r := parsedRules(t, "# rules\n- id: r-1\n  breakpoint: pay.rounding\n  action: always-approve\n  created_by: alice\n  note: |\n    two\n    lines\n- id: r-2\n  tag: billing\n  action: never-auto\n  colour: red\n")
	if r.Broken || len(r.List) != 2 {
		t.Fatalf("got %+v, want two rules", r)
	}
	if got := r.List[0]; got.Line != 2 || got.Note != "two\nlines" || got.CreatedBy != "alice" {
		t.Errorf("rule 1: got %+v", got)
	}
	if len(r.Ignored) != 1 || r.Ignored[0].Line != 12 || !strings.Contains(r.Ignored[0].Text, `"colour"`) {
		t.Errorf("ignored: got %+v, want the colour key on line 12", r.Ignored)
	}
	for _, text := range []string{"", "# only a comment\n", "~\n", "[]\n"} {
		if r := parsedRules(t, text); r.Broken || len(r.List) != 0 {
			t.Errorf("%q: got %+v, want no rules", text, r)
		}
	}
}

func TestRulesProblems(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		want       string
	}{
		{"map", "rules: []\n", 1, "want a list of rules"},
		{"scalar item", "- r-1\n", 1, "want a rule"},
		{"no id", "- breakpoint: a\n  action: never-auto\n", 1, "a rule without an id"},
		{"bad id", "- id: 'r 1'\n  breakpoint: a\n  action: never-auto\n", 1, `id "r 1"`},
		{"both", "- id: r\n  breakpoint: a\n  tag: b\n  action: never-auto\n", 1, "want exactly one of breakpoint, tag and gate"},
		{"neither", "- id: r\n  action: never-auto\n", 1, "want exactly one of breakpoint, tag and gate"},
		{"action", "- id: r\n  tag: b\n  action: approve\n", 1, `action "approve" is not always-approve, never-auto, person-only or require-signature`},
		{"twice", "- id: r\n  tag: b\n  tag: c\n  action: never-auto\n", 3, "tag is set twice"},
		{"list value", "- id: r\n  tag: [a, b]\n  action: never-auto\n", 2, "tag: want one line of text"},
		{"duplicate id", "- id: r\n  tag: a\n  action: never-auto\n- id: r\n  tag: b\n  action: never-auto\n", 4, "id r is also used on line 1"},
		{"syntax", "- id: r\n\ttag: a\n", 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := parsedRules(t, tc.text)
			if !r.Broken || len(r.List) != 0 || len(r.Problems) == 0 {
				t.Fatalf("got %+v, want a broken file and no rules", r)
			}
			if p := r.Problems[0]; p.Line != tc.line || !strings.Contains(p.Text, tc.want) {
				t.Errorf("got line %d: %s; want line %d: %s", p.Line, p.Text, tc.line, tc.want)
			}
		})
	}
}

func TestRulesMatch(t *testing.T) {
	r := parsedRules(t, "- id: a\n  tag: Billing\n  action: never-auto\n- id: b\n  breakpoint: pay.x\n  action: always-approve\n  scope: project\n- id: c\n  tag: docs\n  action: always-approve\n  scope: project\n")
	for _, tc := range []struct {
		action, bp string
		tags       []string
		want       string
	}{
		{NeverAuto, "", []string{" billing "}, "a"},
		{AlwaysApprove, "pay.x", nil, "b"},
		{AlwaysApprove, "pay.y", []string{"docs"}, "c"},
		{AlwaysApprove, "pay.y", []string{"billing"}, ""},
		{NeverAuto, "pay.x", nil, ""},
	} {
		got := r.Match(tc.action, tc.bp, tc.tags)
		if id := ruleIDOf(got); id != tc.want {
			t.Errorf("match(%s, %q, %q): got %q, want %q", tc.action, tc.bp, tc.tags, id, tc.want)
		}
	}
	broken := parsedRules(t, "- id: a\n  tag: x\n  action: nope\n")
	if got := broken.Match(NeverAuto, "", []string{"x"}); got != nil {
		t.Errorf("a broken file matched %+v", got)
	}
	var none *Rules
	if none.Match(AlwaysApprove, "pay.x", nil) != nil {
		t.Error("nil rules matched")
	}
}

func ruleIDOf(r *Rule) string {
	if r == nil {
		return ""
	}
	return r.ID
}

// TestRulesEdits: adding appends in the file's own indentation and line
// ending, removing cuts the rule's lines and nothing else, and a shape that
// cannot be edited in place is written again in the canonical form.
func TestRulesEdits(t *testing.T) {
	add := RuleRequest{Breakpoint: "deploy.window", Action: NeverAuto, By: "carol"}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", rulesHeader + "- id: ID\n  breakpoint: deploy.window\n  action: never-auto\n  created_by: carol\n  created_at: \"2026-11-29T14:02:11Z\"\n"},
		{"comments kept", "# top\n- id: r-1 # first\n  tag: a\n  action: never-auto", "# top\n- id: r-1 # first\n  tag: a\n  action: never-auto\n- id: ID\n  breakpoint: deploy.window\n  action: never-auto\n  created_by: carol\n  created_at: \"2026-11-29T14:02:11Z\"\n"},
		{"indented", "  - id: r-1\n    tag: a\n    action: never-auto\n", "  - id: r-1\n    tag: a\n    action: never-auto\n  - id: ID\n    breakpoint: deploy.window\n    action: never-auto\n    created_by: carol\n    created_at: \"2026-11-29T14:02:11Z\"\n"},
		{"crlf", "- id: r-1\r\n  tag: a\r\n  action: never-auto\r\n", "- id: r-1\r\n  tag: a\r\n  action: never-auto\r\n- id: ID\r\n  breakpoint: deploy.window\r\n  action: never-auto\r\n  created_by: carol\r\n  created_at: \"2026-11-29T14:02:11Z\"\r\n"},
		{"flow", "[]\n", rulesHeader + "- id: ID\n  breakpoint: deploy.window\n  action: never-auto\n  created_by: carol\n  created_at: \"2026-11-29T14:02:11Z\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := parsedRules(t, tc.in)
			q := add
			if err := q.Check(nil); err != nil {
				t.Fatal(err)
			}
			res, err := r.Add(q, "2026-11-29T14:02:11Z")
			if err != nil || !res.Added {
				t.Fatalf("add: %+v, %v", res, err)
			}
			if want := strings.ReplaceAll(tc.want, "ID", res.Rule.ID); string(r.data) != want {
				t.Errorf("got:\n%s\nwant:\n%s", r.data, want)
			}
			if last := r.List[len(r.List)-1]; last.ID != res.Rule.ID || last.Line != res.Rule.Line || last.Line == 0 {
				t.Errorf("added rule %+v, last in the list %+v", res.Rule, last)
			}
		})
	}

	in := "# kept\n- id: a\n  tag: x\n  action: never-auto\n\n# about b\n-\n  id: b\n  tag: y\n  note: |\n    # not a comment\n  action: never-auto\n# about c\n- id: c\n  tag: z\n  action: never-auto\n"
	for _, tc := range []struct{ id, want string }{
		{"a", "# kept\n\n# about b\n-\n  id: b\n  tag: y\n  note: |\n    # not a comment\n  action: never-auto\n# about c\n- id: c\n  tag: z\n  action: never-auto\n"},
		{"b", "# kept\n- id: a\n  tag: x\n  action: never-auto\n\n# about b\n# about c\n- id: c\n  tag: z\n  action: never-auto\n"},
		{"c", "# kept\n- id: a\n  tag: x\n  action: never-auto\n\n# about b\n-\n  id: b\n  tag: y\n  note: |\n    # not a comment\n  action: never-auto\n# about c\n"},
	} {
		t.Run("remove "+tc.id, func(t *testing.T) {
			r := parsedRules(t, in)
			for i, x := range r.List {
				if x.ID == tc.id {
					r.removeRule(i)
				}
			}
			if string(r.data) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", r.data, tc.want)
			}
			if len(r.List) != 2 || r.Broken {
				t.Errorf("rules after: %+v", r.List)
			}
		})
	}
}

// alwaysStop stands for the policy's hard stops (engine tests the real
// ones through engine.AddRule).
func alwaysStop(tag string) bool {
	return NormTag(tag) == "fs-destruction" || NormTag(tag) == "auth-boundary"
}

func TestRuleRequestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    RuleRequest
		want string
	}{
		{"no selector", RuleRequest{Action: NeverAuto}, "give one of --breakpoint, --tag and --gate"},
		{"two selectors", RuleRequest{Breakpoint: "a", Tag: "b", Action: NeverAuto}, "give one of --breakpoint, --tag and --gate"},
		{"no action", RuleRequest{Tag: "b"}, "--action is required"},
		{"bad action", RuleRequest{Tag: "b", Action: "yes"}, `--action "yes"`},
		{"comma", RuleRequest{Tag: "a,b", Action: NeverAuto}, "has a comma"},
		{"line break", RuleRequest{Tag: "a", Action: NeverAuto, Note: "a\nb"}, "--note has a line break"},
		{"utf-8", RuleRequest{Tag: "a\xff", Action: NeverAuto}, "not valid UTF-8"},
		{"always paused", RuleRequest{Tag: "FS-Destruction", Action: AlwaysApprove}, "would never apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.q.Check(alwaysStop)
			if !errors.Is(err, ErrBadArgs) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want bad arguments: %s", err, tc.want)
			}
		})
	}
	q := RuleRequest{Tag: " auth-boundary ", Action: NeverAuto}
	if err := q.Check(alwaysStop); err != nil || q.Tag != "auth-boundary" || q.By != "human" {
		t.Errorf("a never-auto rule for an always-stop tag: got %+v, %v", q, err)
	}
}

// TestRulesFile goes through the file: load, add, conflict, remove, lock.
func TestRulesFile(t *testing.T) {
	ctx, dir := context.Background(), t.TempDir()
	now := time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)
	if r := LoadRules(dir); r.Broken || len(r.List) != 0 {
		t.Fatalf("no file: %+v", r)
	}
	a, err := AddRule(ctx, dir, time.Second, now, RuleRequest{Breakpoint: "pay.x", Action: AlwaysApprove, By: "alice", Scope: ScopeProject}, nil)
	if err != nil || !a.Added || !strings.HasPrefix(a.Rule.ID, "r-") {
		t.Fatalf("add: %+v, %v", a, err)
	}
	again, err := AddRule(ctx, dir, time.Second, now, RuleRequest{Breakpoint: "pay.x", Action: AlwaysApprove, By: "bob", Scope: ScopeProject}, nil)
	if err != nil || again.Added || again.Rule.ID != a.Rule.ID {
		t.Errorf("the same rule again: %+v, %v", again, err)
	}
	if _, err := AddRule(ctx, dir, time.Second, now, RuleRequest{Breakpoint: "pay.x", Action: NeverAuto}, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("the other action: got %v, want a conflict", err)
	}
	if _, err := RemoveRule(ctx, dir, time.Second, "r-none", nil); !errors.Is(err, ErrUnknownRule) {
		t.Errorf("remove unknown: got %v, want ErrUnknownRule", err)
	}
	unlock, err := mdstore.Lock(ctx, filepath.Join(dir, RulesLock), "the rules file", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveRule(ctx, dir, 50*time.Millisecond, a.Rule.ID, nil); !errors.Is(err, mdstore.ErrBusy) {
		t.Errorf("remove while locked: got %v, want busy", err)
	}
	unlock()
	if r, err := RemoveRule(ctx, dir, time.Second, a.Rule.ID, nil); err != nil || r.ID != a.Rule.ID {
		t.Fatalf("remove: %+v, %v", r, err)
	}
	if r := LoadRules(dir); len(r.List) != 0 || r.Broken {
		t.Errorf("after remove: %+v", r)
	}

	if err := os.WriteFile(filepath.Join(dir, RulesFile), []byte("- id: x\n  action: nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AddRule(ctx, dir, time.Second, now, RuleRequest{Tag: "t", Action: NeverAuto}, nil); !errors.Is(err, mdstore.ErrMalformed) {
		t.Errorf("add to a broken file: got %v, want malformed", err)
	}
	if _, err := ListRules(dir); !errors.Is(err, mdstore.ErrMalformed) || !strings.Contains(err.Error(), RulesFile+":1: ") {
		t.Errorf("list a broken file: got %v", err)
	}
	if _, err := ListRules(""); !errors.Is(err, mdstore.ErrNoWorkspace) {
		t.Errorf("no .devrites: got %v", err)
	}
}

// FuzzRulesEdit: for any rules.yaml that reads cleanly, adding a rule gives
// a file that reads as the old rules and the new one, and removing a rule
// gives one that reads as the old rules without it.
func FuzzRulesEdit(f *testing.F) {
	f.Add("# top\n- id: a\n  tag: x\n  action: never-auto\n", "deploy", "note", uint8(0))
	f.Add("-\n  id: a\n  tag: x\n  note: |\n    # text\n  action: never-auto\n# b\n- id: b\n  breakpoint: y\n  action: always-approve\n", "z", "", uint8(1))
	f.Add("[]", "a", "it's \"quoted\": yes", uint8(0))
	f.Add("  - id: a\r\n    tag: x\r\n    action: never-auto\r\n", "k", "#", uint8(0))
	f.Fuzz(func(t *testing.T, data, bp, note string, pick uint8) {
		r := parsedRules(t, data)
		if r.Broken {
			return
		}
		old := r.List
		q := RuleRequest{Breakpoint: bp, Action: NeverAuto, Note: note, By: "fuzz"}
		if q.Check(nil) != nil {
			return
		}
		added := r
		if _, err := added.Add(q, "2026-11-29T14:02:11Z"); err != nil {
			return // the same breakpoint with the other action
		}
		again := parsedRules(t, string(added.data))
		if again.Broken || !sameRules(again.List, added.List) || len(again.List) < len(old) || !sameRules(again.List[:len(old)], old) {
			t.Fatalf("after add:\n%s\nread %+v, had %+v", added.data, again.List, old)
		}
		if len(old) == 0 {
			return
		}
		i := int(pick) % len(old)
		removed := r
		removed.removeRule(i)
		want := append(append([]Rule(nil), old[:i]...), old[i+1:]...)
		back := parsedRules(t, string(removed.data))
		if back.Broken || !sameRules(back.List, want) {
			t.Fatalf("after removing %s:\n%s\nread %+v, want %+v", old[i].ID, removed.data, back.List, want)
		}
	})
}

// A require-signature rule selects by gate, tag or breakpoint; the
// policy's actions never by gate, which they would silently ignore.
func TestRequireSignatureRules(t *testing.T) {
	type query struct {
		Breakpoint, Gate string
		Tags             []string
	}
	r := Rules{Path: "rules.yaml", data: []byte("- id: g\n  gate: escalating\n  action: require-signature\n" +
		"- id: t\n  tag: billing\n  action: require-signature\n")}
	r.parse()
	if r.Broken || len(r.List) != 2 {
		t.Fatalf("got %+v, want two rules", r)
	}
	for _, tc := range []struct {
		q    query
		want string
	}{
		{query{Gate: "escalating"}, "g"},
		{query{Gate: "blocking", Tags: []string{"Billing"}}, "t"},
		{query{Gate: "blocking", Breakpoint: "pay.x"}, ""},
	} {
		got := ""
		if m := r.MatchQuestion(RequireSignature, tc.q.Breakpoint, tc.q.Gate, tc.q.Tags); m != nil {
			got = m.ID
		}
		if got != tc.want {
			t.Errorf("%+v: got rule %q, want %q", tc.q, got, tc.want)
		}
	}
	bad := Rules{Path: "rules.yaml", data: []byte("- id: n\n  gate: advisory\n  action: always-approve\n")}
	bad.parse()
	if !bad.Broken || !strings.Contains(bad.Problems[0].Text, "always-approve rules select by breakpoint or tag, not gate") {
		t.Fatalf("got %+v, want the gate refused for always-approve", bad.Problems)
	}
}
