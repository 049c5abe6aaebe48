package config

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"go.yaml.in/yaml/v3"
)

// Edits of .devrites/rules.yaml: add and remove rules under the rules lock,
// keeping what a person wrote around them.

// renderRules writes rules in the canonical form, indented by indent.
func renderRules(rules []Rule, indent int) []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(rules)
	_ = enc.Close()
	if indent == 0 {
		return b.Bytes()
	}
	pad := strings.Repeat(" ", indent)
	var out strings.Builder
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if l != "" {
			out.WriteString(pad + l)
		}
	}
	return []byte(out.String())
}

// rewrite stages data, keeping it only when it reads back as want (the
// same rules, in order); else the canonical form of want is staged.
func (r *Rules) rewrite(data []byte, want []Rule) {
	got := Rules{Path: r.Path, data: data}
	got.parse()
	if got.Broken || !sameRules(got.List, want) {
		data = append([]byte(rulesHeader), renderRules(want, 0)...)
		got = Rules{Path: r.Path, data: data}
		got.parse()
	}
	r.data, r.List, r.Ignored = data, got.List, got.Ignored
}

func sameRules(a, b []Rule) bool {
	return slices.EqualFunc(a, b, func(x, y Rule) bool { x.Line, y.Line = 0, 0; return x == y })
}

// appendRule adds rule at the end of the list.
func (r *Rules) appendRule(rule Rule) {
	want := append(slices.Clone(r.List), rule)
	seq, _ := ruleSeq(r.data)
	data := slices.Clone(r.data)
	switch {
	case seq != nil && seq.Style&yaml.FlowStyle != 0:
		data = append([]byte(rulesHeader), renderRules(want, 0)...)
	default:
		if len(bytes.TrimSpace(data)) == 0 {
			data = []byte(rulesHeader)
		}
		_, _, nl := mdstore.Form(string(data))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, nl...)
		}
		indent := 0
		if seq != nil {
			indent = seq.Column - 1
		}
		item := renderRules([]Rule{rule}, indent)
		if nl != "\n" {
			item = bytes.ReplaceAll(item, []byte("\n"), []byte(nl))
		}
		data = append(data, item...)
	}
	r.rewrite(data, want)
}

// removeRule cuts the lines of the i-th rule: from its "-" to the line
// before the next rule, less the blank and comment lines at its end (they
// belong to what follows).
func (r *Rules) removeRule(i int) {
	want := slices.Delete(slices.Clone(r.List), i, i+1)
	seq, err := ruleSeq(r.data)
	if err != nil || seq == nil || seq.Style&yaml.FlowStyle != 0 {
		r.rewrite(nil, want)
		return
	}
	lines := strings.SplitAfter(string(r.data), "\n")
	start := func(item *yaml.Node) int {
		at := item.Line - 1
		if item.Kind == yaml.MappingNode && at > 0 && strings.TrimSpace(lines[at-1]) == "-" {
			at--
		}
		return at
	}
	from, to := start(seq.Content[i]), len(lines)
	if i+1 < len(seq.Content) {
		to = start(seq.Content[i+1])
	}
	for to > from+1 && (strings.TrimSpace(lines[to-1]) == "" || strings.HasPrefix(strings.TrimSpace(lines[to-1]), "#")) {
		to--
	}
	r.rewrite([]byte(strings.Join(slices.Delete(lines, from, to), "")), want)
}

// newRuleID names a rule from what it says and when: "r-" and 8 hex digits,
// so that rules added on two branches do not collide.
func newRuleID(rule Rule, taken func(string) bool) string {
	for n := 0; ; n++ {
		sum := sha256.Sum256([]byte(strings.Join([]string{rule.Breakpoint, rule.Tag + rule.Gate + rule.Slug + rule.Scope, rule.Action, rule.CreatedBy, rule.CreatedAt, rule.Note, strconv.Itoa(n)}, "\x00")))
		if id := "r-" + hex.EncodeToString(sum[:4]); !taken(id) {
			return id
		}
	}
}

// RuleRequest is a rule as `rules add` (or state resolve --always) asks it.
type RuleRequest struct {
	Breakpoint string
	Tag        string
	Gate       string // person-only and require-signature rules only
	Action     string
	Note       string
	By         string
	// Slug is the workspace an always-approve rule applies in; Scope
	// "project" makes it apply in every one (rules_scope.go).
	Slug  string
	Scope string
}

// RuleChange reports an added rule.
type RuleChange struct {
	Rule  Rule `json:"rule"`
	Added bool `json:"added"` // false: the same rule was already there
	// Warnings: the file stays untrusted on this machine (trustWritten).
	Warnings []string `json:"warnings,omitempty"`
}

// Check refuses a rule that is not one line of text with one selector and
// a known action, and an always-approve rule that could never apply.
func (q *RuleRequest) Check(pauses func(tag string) bool) error {
	for _, t := range []struct {
		name string
		v    *string
	}{{"--breakpoint", &q.Breakpoint}, {"--tag", &q.Tag}, {"--note", &q.Note}, {"--by", &q.By}, {"--action", &q.Action}, {"--gate", &q.Gate}, {"--slug", &q.Slug}, {"--scope", &q.Scope}} {
		v, err := CleanText(t.name, *t.v)
		if err != nil {
			return err
		}
		if strings.Contains(v, "\n") {
			return mdstore.Errorf(ErrBadArgs, "%s has a line break", t.name)
		}
		*t.v = strings.TrimSpace(v)
	}
	if selectors(q.Breakpoint, q.Tag, q.Gate) != 1 {
		return mdstore.Errorf(ErrBadArgs, "give one of --breakpoint, --tag and --gate").Hint("a rule covers one breakpoint id, every question with one tag, or (person-only, require-signature) every question of one gate")
	}
	if strings.Contains(q.Tag, ",") {
		return mdstore.Errorf(ErrBadArgs, "tag %q has a comma", q.Tag)
	}
	switch {
	case slices.Contains(ruleActions, q.Action):
	case q.Action == "":
		return mdstore.Errorf(ErrBadArgs, "--action is required").Hint("use " + actionList())
	default:
		return mdstore.Errorf(ErrBadArgs, "--action %q", q.Action).Hint("use " + actionList())
	}

	// The policy's own hard stops say which tags always pause (rules 3, 4).
	if q.Action == AlwaysApprove && q.Tag != "" && pauses != nil && pauses(q.Tag) {
		return mdstore.Errorf(ErrBadArgs, "an always-approve rule for tag %q would never apply: questions with it always pause", NormTag(q.Tag))
	}
	if err := q.checkScope(); err != nil { // rules_scope.go
		return err
	}
	if q.By == "" {
		q.By = "human"
	}
	return nil
}

// Add adds the rule a request asks for, or finds the same one already
// there. A rule with the other action for the same breakpoint or tag is a
// conflict: a person removes it first.
func (r *Rules) Add(q RuleRequest, now string) (*RuleChange, error) {
	rule := Rule{Breakpoint: q.Breakpoint, Tag: q.Tag, Gate: q.Gate, Action: q.Action, Slug: q.Slug, Scope: q.Scope, CreatedBy: q.By, CreatedAt: now, Note: q.Note}
	for _, old := range r.List {
		if !old.sameSelector(rule) || !old.overlaps(rule) {
			continue
		}
		if old.Action == rule.Action && old.Slug == rule.Slug && old.Scope == rule.Scope {
			return &RuleChange{Rule: old}, nil
		}
		if old.Action == rule.Action || !opposed(old.Action, rule.Action) {
			continue // the same rule in another scope, or one that stands beside it
		}
		return nil, mdstore.Errorf(ErrConflict, "%s already has %s rule %s (%s:%d)", rule.Selector(), old.Action, old.ID, r.Path, old.Line)
	}
	rule.ID = newRuleID(rule, func(id string) bool {
		return slices.ContainsFunc(r.List, func(x Rule) bool { return x.ID == id })
	})
	r.appendRule(rule)
	for _, x := range r.List {
		if x.ID == rule.ID {
			rule = x
		}
	}
	return &RuleChange{Rule: rule, Added: true}, nil
}

// EditRules runs fn on rules.yaml under the rules lock and writes what it
// changed atomically. A broken file is refused: an edit could only make it
// worse, and a person reads it first. check, when given, runs first on the
// file read without the lock and must not change anything: what it refuses
// is refused without waiting for the lock or creating the lock file, so
// that a failing command leaves every file as it was. fn checks again under
// the lock.
//
// What it writes is trusted on this machine, as a person asked for it,
// unless the file held always-approve rules not trusted here: then the
// warning it returns says the file stays untrusted (trustWritten).
func EditRules(ctx context.Context, devrites string, timeout time.Duration, check, fn func(*Rules) error) (string, error) {
	r, err := ListRules(devrites)
	if err != nil {
		return "", err
	}
	if check != nil {
		if err := check(r); err != nil {
			return "", err
		}
	}
	unlock, err := mdstore.Lock(ctx, filepath.Join(devrites, RulesLock), "the rules file", timeout)
	if err != nil {
		return "", err
	}
	defer unlock()
	if r, err = ListRules(devrites); err != nil {
		return "", err
	}
	orig, untrusted, grants := r.data, r.Untrusted, r.grants()
	if err := fn(r); err != nil {
		return "", err
	}
	if bytes.Equal(orig, r.data) {
		if untrusted != "" {
			return r.TrustWarning(), nil
		}
		return "", nil
	}
	if err := mdstore.WriteAtomic(r.Path, r.data); err != nil {
		return "", err
	}
	return trustWritten(r.Path, orig, r.data, grants), nil
}

// ListRules returns the rules of .devrites/rules.yaml; a broken file is an
// error naming its first problem.
func ListRules(devrites string) (*Rules, error) {
	if devrites == "" {
		return nil, mdstore.Errorf(mdstore.ErrNoWorkspace, "no .devrites directory: approval rules live in .devrites/%s", RulesFile)
	}
	r := LoadRules(devrites)
	if r.Broken {
		return nil, r.err()
	}
	return &r, nil
}

// AddRule adds an approval rule to .devrites/rules.yaml (see RuleRequest).
// pauses reports whether the policy always pauses a question with a tag:
// an always-approve rule for such a tag is refused, as it would never apply.
func AddRule(ctx context.Context, devrites string, timeout time.Duration, now time.Time, q RuleRequest, pauses func(tag string) bool) (*RuleChange, error) {
	if err := q.Check(pauses); err != nil {
		return nil, err
	}
	var res *RuleChange
	add := func(r *Rules) error {
		var err error
		res, err = r.Add(q, qid.Timestamp(now))
		return err
	}
	warning, err := EditRules(ctx, devrites, timeout, func(r *Rules) error {
		dry := *r // add replaces what it changes: r stays as read
		return add(&dry)
	}, add)
	if res != nil && warning != "" {
		res.Warnings = []string{warning} // Add reports none of its own
	}
	return res, err
}

// RemoveRule removes the rule with id from .devrites/rules.yaml. allow,
// when not nil, may refuse the removal of the rule as the file holds it
// (a rule that stops approval needs a person): it is asked before the
// lock and again under it, on the file as it is then.
func RemoveRule(ctx context.Context, devrites string, timeout time.Duration, id string, allow func(Rule) error) (*Rule, error) {
	var removed *Rule
	find := func(r *Rules) (int, error) {
		i := slices.IndexFunc(r.List, func(x Rule) bool { return x.ID == id })
		if i < 0 {
			return i, mdstore.Errorf(ErrUnknownRule, "%s: no rule %q", r.Path, id)
		}
		if allow != nil {
			return i, allow(r.List[i])
		}
		return i, nil
	}
	_, err := EditRules(ctx, devrites, timeout, func(r *Rules) error {
		_, err := find(r)
		return err
	}, func(r *Rules) error {
		i, err := find(r)
		if err != nil {
			return err
		}
		rule := r.List[i]
		removed = &rule
		r.removeRule(i)
		return nil
	})
	return removed, err
}
