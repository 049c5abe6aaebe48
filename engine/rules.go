package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Approval rules live in .devrites/rules.yaml, a list a person reviews in
// git:
//
//	- id: r-3f2a9c1b
//	  breakpoint: pay.rounding      # or: tag: billing
//	  action: always-approve        # or: never-auto
//	  created_by: alice
//	  created_at: "2026-11-29T14:02:11Z"
//	  note: banker's rounding is settled
//
// Edits take .devrites/.rules.lock (an flock, as the workspace's .lock: the
// file is created empty and never written or deleted), read the file again,
// and replace it atomically. An added rule is appended and a removed one's
// lines are cut, so comments and the order a person gave are kept; when
// the file's shape does not allow that (a flow list such as "[]"), the list
// is written again in the canonical form.
//
// A file that does not parse fails closed: no rule of it applies, and,
// since a never-auto rule in it cannot be read, nothing is auto-picked at
// all (policy rule 3, "rules-broken"); every command that applies the
// policy warns, naming the line, and doctor reports it as an error.

// Rule file names in the .devrites directory.
const (
	RulesFile = "rules.yaml"
	RulesLock = ".rules.lock"
)

// Rule actions.
const (
	AlwaysApprove = "always-approve"
	NeverAuto     = "never-auto"
)

// Rule is one approval rule.
type Rule struct {
	ID         string `json:"id" yaml:"id"`
	Breakpoint string `json:"breakpoint,omitempty" yaml:"breakpoint,omitempty"`
	Tag        string `json:"tag,omitempty" yaml:"tag,omitempty"`
	Action     string `json:"action" yaml:"action"`
	CreatedBy  string `json:"created_by,omitempty" yaml:"created_by,omitempty"`
	CreatedAt  string `json:"created_at,omitempty" yaml:"created_at,omitempty"`
	Note       string `json:"note,omitempty" yaml:"note,omitempty"`
	Line       int    `json:"line,omitempty" yaml:"-"` // in rules.yaml
}

// Selector is "breakpoint X" or "tag Y".
func (r Rule) Selector() string {
	if r.Breakpoint != "" {
		return "breakpoint " + r.Breakpoint
	}
	return "tag " + r.Tag
}

func (r Rule) sameSelector(o Rule) bool {
	return r.Breakpoint != "" && r.Breakpoint == o.Breakpoint || r.Tag != "" && normTag(r.Tag) == normTag(o.Tag)
}

// RuleProblem is a line of rules.yaml that makes it fail, or (Ignored) a key
// that is warned about and ignored. Line 0 is the whole file.
type RuleProblem struct {
	Line int
	Text string
}

// Rules is rules.yaml as read.
type Rules struct {
	Path   string `json:"path,omitempty"`
	List   []Rule `json:"rules"`
	Broken bool   `json:"broken,omitempty"`
	// Problems make the file fail; Ignored are warned about.
	Problems []RuleProblem `json:"-"`
	Ignored  []RuleProblem `json:"-"`
	data     []byte
}

func (r *Rules) where(p RuleProblem) string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", r.Path, p.Line)
	}
	return r.Path
}

// Warnings are the lines to print on stderr: keys ignored, then, when the
// file is broken, every problem that makes it fail.
func (r *Rules) Warnings() []string {
	var out []string
	for _, p := range r.Ignored {
		out = append(out, r.where(p)+": "+p.Text+" (ignored)")
	}
	for _, p := range r.Problems {
		out = append(out, r.where(p)+": "+p.Text+"; no approval rule applies and nothing is auto-picked until it is fixed")
	}
	return out
}

// err is the error of a broken file: its first problem.
func (r *Rules) err() error {
	p := r.Problems[0]
	return mdstore.Errorf(ErrMalformed, "%s: %s", r.where(p), p.Text).Fix(mdstore.RunDoctor, "").
		Hint("until it is fixed no approval rule applies and nothing is auto-picked")
}

// LoadRules reads .devrites/rules.yaml. Its absence is no rules; a file that
// is not a regular file, or does not parse, is Broken.
func LoadRules(devrites string) Rules {
	if devrites == "" {
		return Rules{List: []Rule{}}
	}
	r := Rules{Path: filepath.Join(devrites, RulesFile), List: []Rule{}}
	fi, err := os.Lstat(r.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return r
	}
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err == nil {
		r.data, err = os.ReadFile(r.Path)
	}
	if err != nil {
		r.Broken, r.Problems = true, []RuleProblem{{0, strings.TrimPrefix(err.Error(), "open "+r.Path+": ")}}
		return r
	}
	r.parse()
	return r
}

var ruleID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ruleKeys are the keys a rule may have.
var ruleKeys = []string{"id", "breakpoint", "tag", "action", "created_by", "created_at", "note"}

// parse reads r.data into List, Problems and Ignored. Every bad rule is
// reported, not only the first; a YAML syntax error stops the parser.
func (r *Rules) parse() {
	r.List, r.Problems, r.Ignored, r.Broken = []Rule{}, nil, nil, false
	defer func() {
		if len(r.Problems) > 0 {
			r.Broken, r.List = true, []Rule{}
		}
	}()
	seq, err := ruleSeq(r.data)
	if err != nil {
		r.Problems = append(r.Problems, ruleProblem(err))
		return
	}
	if seq == nil {
		return
	}
	ids := map[string]int{}
	for _, item := range seq.Content {
		if item.Kind != yaml.MappingNode {
			r.Problems = append(r.Problems, RuleProblem{item.Line, "want a rule: id, breakpoint or tag, action"})
			continue
		}
		rule, probs := r.readRule(item)
		r.Problems = append(r.Problems, probs...)
		if len(probs) > 0 {
			continue
		}
		if prev, dup := ids[rule.ID]; dup {
			r.Problems = append(r.Problems, RuleProblem{item.Line, fmt.Sprintf("id %s is also used on line %d", rule.ID, prev)})
			continue
		}
		ids[rule.ID] = rule.Line
		r.List = append(r.List, rule)
	}
}

func ruleProblem(err error) RuleProblem {
	msg := yamlMessage(err)
	line, text, _ := strings.Cut(msg, ": ")
	n, _ := strconv.Atoi(line)
	return RuleProblem{n, text}
}

// ruleSeq parses data: the list of rules, nil for an empty file (or one of
// comments only, or null), an error when it is not a list.
func ruleSeq(data []byte) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	doc := root.Content[0]
	switch {
	case doc.Kind == yaml.ScalarNode && doc.Tag == "!!null":
		return nil, nil
	case doc.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("line %d: want a list of rules, each starting \"- id: …\"", doc.Line)
	}
	return doc, nil
}

// readRule reads one rule, or says every way in which it is wrong.
func (r *Rules) readRule(item *yaml.Node) (Rule, []RuleProblem) {
	rule := Rule{Line: item.Line}
	var probs []RuleProblem
	bad := func(line int, format string, args ...any) {
		probs = append(probs, RuleProblem{line, fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		if seen[k.Value] {
			bad(k.Line, "%s is set twice", k.Value)
			continue
		}
		seen[k.Value] = true
		if !slices.Contains(ruleKeys, k.Value) {
			r.Ignored = append(r.Ignored, RuleProblem{k.Line, fmt.Sprintf("unknown key %q", k.Value)})
			continue
		}
		if v.Kind != yaml.ScalarNode {
			bad(v.Line, "%s: want one line of text", k.Value)
			continue
		}
		val := strings.TrimSpace(v.Value)
		if v.Tag == "!!null" {
			val = ""
		}
		if k.Value != "note" && strings.ContainsAny(val, "\r\n") {
			bad(v.Line, "%s: want one line of text", k.Value)
			continue
		}
		switch k.Value {
		case "id":
			rule.ID = val
		case "breakpoint":
			rule.Breakpoint = val
		case "tag":
			rule.Tag = val
		case "action":
			rule.Action = val
		case "created_by":
			rule.CreatedBy = val
		case "created_at":
			rule.CreatedAt = val
		case "note":
			rule.Note = val
		}
	}
	switch {
	case rule.ID == "":
		bad(item.Line, "a rule without an id")
	case !ruleID.MatchString(rule.ID):
		bad(item.Line, "id %q: want letters, digits, '.', '_' and '-'", rule.ID)
	}
	if (rule.Breakpoint == "") == (rule.Tag == "") {
		bad(item.Line, "%s: want exactly one of breakpoint and tag", orUnnamed(rule.ID))
	}
	if rule.Action != AlwaysApprove && rule.Action != NeverAuto {
		bad(item.Line, "%s: action %q is not always-approve or never-auto", orUnnamed(rule.ID), rule.Action)
	}
	return rule, probs
}

func orUnnamed(id string) string {
	if id == "" {
		return "rule"
	}
	return "rule " + id
}

// match returns the first rule with action that covers the breakpoint or
// one of the tags, or nil. A broken file matches nothing.
func (r *Rules) match(action, bp string, tags []string) *Rule {
	if r == nil || r.Broken {
		return nil
	}
	for i, rule := range r.List {
		if rule.Action != action {
			continue
		}
		if rule.Breakpoint != "" && rule.Breakpoint == bp {
			return &r.List[i]
		}
		for _, t := range tags {
			if rule.Tag != "" && normTag(rule.Tag) == normTag(t) {
				return &r.List[i]
			}
		}
	}
	return nil
}

// rulesHeader starts a rules.yaml the engine creates.
const rulesHeader = "# Approval rules: always-approve or never-auto, by breakpoint or tag (see devrites-engine rules).\n"

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

// newline is the line ending of data: CRLF when its first line has one.
func newline(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
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
		nl := newline(data)
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
		sum := sha256.Sum256([]byte(strings.Join([]string{rule.Breakpoint, rule.Tag, rule.Action, rule.CreatedBy, rule.CreatedAt, rule.Note, strconv.Itoa(n)}, "\x00")))
		if id := "r-" + hex.EncodeToString(sum[:4]); !taken(id) {
			return id
		}
	}
}

// RuleRequest is a rule as `rules add` (or state resolve --always) asks it.
type RuleRequest struct {
	Breakpoint string
	Tag        string
	Action     string
	Note       string
	By         string
}

// RuleChange reports an added rule.
type RuleChange struct {
	Rule  Rule `json:"rule"`
	Added bool `json:"added"` // false: the same rule was already there
}

// check refuses a rule that is not one line of text with one selector and
// a known action, and an always-approve rule that could never apply.
func (q *RuleRequest) check() error {
	for _, t := range []struct {
		name string
		v    *string
	}{{"--breakpoint", &q.Breakpoint}, {"--tag", &q.Tag}, {"--note", &q.Note}, {"--by", &q.By}, {"--action", &q.Action}} {
		v, err := cleanText(t.name, *t.v)
		if err != nil {
			return err
		}
		if strings.Contains(v, "\n") {
			return mdstore.Errorf(ErrBadArgs, "%s has a line break", t.name)
		}
		*t.v = strings.TrimSpace(v)
	}
	if (q.Breakpoint == "") == (q.Tag == "") {
		return mdstore.Errorf(ErrBadArgs, "give one of --breakpoint and --tag").Hint("a rule covers one breakpoint id, or every question with one tag")
	}
	if strings.Contains(q.Tag, ",") {
		return mdstore.Errorf(ErrBadArgs, "tag %q has a comma", q.Tag)
	}
	switch q.Action {
	case AlwaysApprove, NeverAuto:
	case "":
		return mdstore.Errorf(ErrBadArgs, "--action is required").Hint("use always-approve or never-auto")
	default:
		return mdstore.Errorf(ErrBadArgs, "--action %q", q.Action).Hint("use always-approve or never-auto")
	}
	if t := normTag(q.Tag); q.Action == AlwaysApprove && (slices.Contains(alwaysStop, t) || t == "scope" || t == "acceptance") {
		return mdstore.Errorf(ErrBadArgs, "an always-approve rule for tag %q would never apply: questions with it always pause", t)
	}
	if q.By == "" {
		q.By = "human"
	}
	return nil
}

// add adds the rule a request asks for, or finds the same one already
// there. A rule with the other action for the same breakpoint or tag is a
// conflict: a person removes it first.
func (r *Rules) add(q RuleRequest, now string) (*RuleChange, error) {
	rule := Rule{Breakpoint: q.Breakpoint, Tag: q.Tag, Action: q.Action, CreatedBy: q.By, CreatedAt: now, Note: q.Note}
	for _, old := range r.List {
		if !old.sameSelector(rule) {
			continue
		}
		if old.Action == rule.Action {
			return &RuleChange{Rule: old}, nil
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

// withRules runs fn on rules.yaml under the rules lock and writes what it
// changed atomically. A broken file is refused: an edit could only make it
// worse, and a person reads it first. check, when given, runs first on the
// file read without the lock and must not change anything: what it refuses
// is refused without waiting for the lock or creating the lock file, so
// that a failing command leaves every file as it was. fn checks again under
// the lock.
func withRules(ctx context.Context, devrites string, timeout time.Duration, check, fn func(*Rules) error) error {
	if devrites == "" {
		return mdstore.Errorf(mdstore.ErrNoWorkspace, "no .devrites directory: approval rules live in .devrites/%s", RulesFile)
	}
	if r := LoadRules(devrites); r.Broken {
		return r.err()
	} else if check != nil {
		if err := check(&r); err != nil {
			return err
		}
	}
	unlock, err := mdstore.Lock(ctx, filepath.Join(devrites, RulesLock), "the rules file", timeout)
	if err != nil {
		return err
	}
	defer unlock()
	r := LoadRules(devrites)
	if r.Broken {
		return r.err()
	}
	orig := r.data
	if err := fn(&r); err != nil {
		return err
	}
	if bytes.Equal(orig, r.data) {
		return nil
	}
	return mdstore.WriteAtomic(r.Path, r.data)
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
func AddRule(ctx context.Context, devrites string, timeout time.Duration, now time.Time, q RuleRequest) (*RuleChange, error) {
	if err := q.check(); err != nil {
		return nil, err
	}
	var res *RuleChange
	add := func(r *Rules) error {
		var err error
		res, err = r.add(q, qid.Timestamp(now))
		return err
	}
	err := withRules(ctx, devrites, timeout, func(r *Rules) error {
		dry := *r // add replaces what it changes: r stays as read
		return add(&dry)
	}, add)
	return res, err
}

// ErrUnknownRule is the kind of a rule id that is not in rules.yaml.
var ErrUnknownRule = errors.New("unknown rule")

// RemoveRule removes the rule with id from .devrites/rules.yaml.
func RemoveRule(ctx context.Context, devrites string, timeout time.Duration, id string) (*Rule, error) {
	var removed *Rule
	find := func(r *Rules) (int, error) {
		i := slices.IndexFunc(r.List, func(x Rule) bool { return x.ID == id })
		if i < 0 {
			return i, mdstore.Errorf(ErrUnknownRule, "%s: no rule %q", r.Path, id)
		}
		return i, nil
	}
	err := withRules(ctx, devrites, timeout, func(r *Rules) error {
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
