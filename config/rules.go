package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/devrites/devrites-engine/mdstore"
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
	// RequireSignature holds the agent until the resolution carries a
	// valid signature of an allowed signer (engine/signing.go, docs/signing.md).
	RequireSignature = "require-signature"
	// PersonOnly: the questions it selects are answered only through a
	// person's channel (engine/person.go); it only narrows what passes.
	PersonOnly = "person-only"
)

// ScopeProject is the scope of a rule that applies in every workspace of
// the project; without it, an always-approve rule applies only in the
// workspace its slug names.
const ScopeProject = "project"

// Rule is one approval rule. Slug is the workspace it applies in; Scope
// "project" makes it apply in every one (rules_scope.go).
type Rule struct {
	ID         string `json:"id" yaml:"id"`
	Breakpoint string `json:"breakpoint,omitempty" yaml:"breakpoint,omitempty"`
	Tag        string `json:"tag,omitempty" yaml:"tag,omitempty"`
	Gate       string `json:"gate,omitempty" yaml:"gate,omitempty"`
	Action     string `json:"action" yaml:"action"`
	Slug       string `json:"slug,omitempty" yaml:"slug,omitempty"`
	Scope      string `json:"scope,omitempty" yaml:"scope,omitempty"`
	CreatedBy  string `json:"created_by,omitempty" yaml:"created_by,omitempty"`
	CreatedAt  string `json:"created_at,omitempty" yaml:"created_at,omitempty"`
	Note       string `json:"note,omitempty" yaml:"note,omitempty"`
	Line       int    `json:"line,omitempty" yaml:"-"` // in rules.yaml
}

// Selector is "breakpoint X", "tag Y" or "gate Z".
func (r Rule) Selector() string {
	switch {
	case r.Breakpoint != "":
		return "breakpoint " + r.Breakpoint
	case r.Gate != "":
		return "gate " + r.Gate
	}
	return "tag " + r.Tag
}

func (r Rule) sameSelector(o Rule) bool {
	return r.Breakpoint != "" && r.Breakpoint == o.Breakpoint || r.Tag != "" && NormTag(r.Tag) == NormTag(o.Tag) ||
		r.Gate != "" && r.Gate == o.Gate
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
	// Untrusted says why its always-approve rules do not apply on this
	// machine, "" when they do (or there are none); TrustCommand trusts it.
	Untrusted    string `json:"untrusted,omitempty"`
	TrustCommand string `json:"-"` // offered only to a person at a terminal
	// Problems make the file fail; Ignored are warned about.
	Problems []RuleProblem `json:"-"`
	Ignored  []RuleProblem `json:"-"`
	// Workspace is the slug of the workspace the rules are applied in
	// (rules_scope.go), "" for none.
	Workspace string `json:"-"`
	data      []byte
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
	return mdstore.Errorf(mdstore.ErrMalformed, "%s: %s", r.where(p), p.Text).Fix(mdstore.RunDoctor, "").
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
	r.verify()
	return r
}

var ruleID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// ruleKeys are the keys a rule may have.
var ruleKeys = []string{"id", "breakpoint", "tag", "gate", "action", "slug", "scope", "created_by", "created_at", "note"}

// parse reads r.data into List, Problems and Ignored. Every bad rule is
// reported, not only the first; a YAML syntax error stops the parser.
func (r *Rules) parse() {
	r.List, r.Problems, r.Ignored, r.Broken = []Rule{}, nil, nil, false
	defer func() {
		if len(r.Problems) > 0 {
			r.Broken, r.List = true, []Rule{}
		}
	}()
	if line := mdstore.ConflictLine(r.data); line > 0 {
		r.Problems = append(r.Problems, RuleProblem{line, conflictWords})
		return
	}
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
		case "gate":
			rule.Gate = val
		case "slug":
			rule.Slug = val
		case "scope":
			rule.Scope = val
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
	case !ruleID().MatchString(rule.ID):
		bad(item.Line, "id %q: want letters, digits, '.', '_' and '-'", rule.ID)
	}
	if selectors(rule.Breakpoint, rule.Tag, rule.Gate) != 1 {
		bad(item.Line, "%s: want exactly one of breakpoint, tag and gate", orUnnamed(rule.ID))
	}
	if !slices.Contains(ruleActions, rule.Action) {
		bad(item.Line, "%s: action %q is not %s", orUnnamed(rule.ID), rule.Action, actionList())
	}
	probs = append(probs, rule.scopeProblems()...)
	return rule, probs
}

func orUnnamed(id string) string {
	if id == "" {
		return "rule"
	}
	return "rule " + id
}

// Match returns the first rule with action that covers the breakpoint or
// one of the tags, or nil. A broken file matches nothing.
func (r *Rules) Match(action, bp string, tags []string) *Rule {
	return r.MatchQuestion(action, bp, "", tags)
}

// rulesHeader starts a rules.yaml the engine creates.
const rulesHeader = "# Approval rules: always-approve or never-auto, by breakpoint or tag (see devrites-engine rules).\n"

// NormTag is a tag as rules and the AFK file compare it: trimmed, lower case.
func NormTag(t string) string { return strings.ToLower(strings.TrimSpace(t)) }
