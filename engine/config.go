package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// AFK is the effective configuration of .devrites/AFK.
type AFK struct {
	On               bool          `json:"on"`
	Path             string        `json:"path,omitempty"`
	AllowGates       []string      `json:"allow_gates"`
	Notify           string        `json:"notify,omitempty"`
	NotifyTimeout    time.Duration `json:"-"`
	NotifyOn         []string      `json:"notify_on"`
	NeverAuto        []string      `json:"never_auto,omitempty"`
	AutoApproveAfter int           `json:"auto_approve_after,omitempty"`
	MaxSlices        int           `json:"max_slices,omitempty"`
	// Broken is set when the body does not parse: nothing is auto-picked.
	Broken   bool     `json:"broken,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

type afkFile struct {
	AllowGates       []string `yaml:"allow_gates"`
	Notify           string   `yaml:"notify"`
	NotifyTimeout    string   `yaml:"notify_timeout"`
	NotifyOn         []string `yaml:"notify_on"`
	NeverAuto        []string `yaml:"never_auto"`
	AutoApproveAfter int      `yaml:"auto_approve_after"`
	MaxSlices        int      `yaml:"max_slices"`
}

var afkKeys = map[string]bool{"allow_gates": true, "notify": true, "notify_timeout": true,
	"notify_on": true, "never_auto": true, "auto_approve_after": true, "max_slices": true}

// NotifyEvents are the events notify_on may list.
var NotifyEvents = []string{"raised", "resolved", "dropped", "rejected", "reminder"}

var yamlLine = regexp.MustCompile(`line ([0-9]+)`)

// LoadAFK reads .devrites/AFK. Its absence is AFK off. A body that does not
// parse fails closed: AFK stays on (so nothing is mistaken for a person being
// present) but Broken is set and no gate is allowed.
func LoadAFK(devrites string) AFK {
	a := AFK{AllowGates: []string{"advisory"}, NotifyOn: []string{"raised"}, NotifyTimeout: 10 * time.Second}
	if devrites == "" {
		return a
	}
	path := filepath.Join(devrites, "AFK")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return a
	}
	a.On, a.Path = true, path
	fail := func(msg string) AFK {
		a.Broken = true
		a.AllowGates = nil
		a.AutoApproveAfter = 0
		a.Warnings = append(a.Warnings, msg+"; nothing is auto-picked until it is fixed")
		return a
	}
	if err != nil {
		return fail(fmt.Sprintf("%s: %v", path, err))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return fail(fmt.Sprintf("%s: %s", path, yamlMessage(err)))
	}
	if len(root.Content) == 0 {
		return a // an empty body is fine
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return fail(fmt.Sprintf("%s:%d: want key: value lines", path, doc.Line))
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k := doc.Content[i]
		if !afkKeys[k.Value] {
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s:%d: unknown key %q (ignored)", path, k.Line, k.Value))
		}
	}
	var f afkFile
	if err := doc.Decode(&f); err != nil {
		return fail(fmt.Sprintf("%s: %s", path, yamlMessage(err)))
	}
	if f.AllowGates != nil {
		for _, g := range f.AllowGates {
			if !validGate(g) {
				return fail(fmt.Sprintf("%s: allow_gates: unknown gate %q", path, g))
			}
		}
		a.AllowGates = f.AllowGates
	}
	a.Notify = strings.TrimSpace(f.Notify)
	if f.NotifyTimeout != "" {
		d, err := time.ParseDuration(f.NotifyTimeout)
		if err != nil || d <= 0 {
			return fail(fmt.Sprintf("%s: notify_timeout: %q is not a duration such as 10s", path, f.NotifyTimeout))
		}
		a.NotifyTimeout = d
	}
	if f.NotifyOn != nil {
		for _, e := range f.NotifyOn {
			if !contains(NotifyEvents, e) {
				a.Warnings = append(a.Warnings, fmt.Sprintf("%s: notify_on: unknown event %q (ignored)", path, e))
			}
		}
		a.NotifyOn = f.NotifyOn
	}
	a.NeverAuto = f.NeverAuto
	a.AutoApproveAfter = f.AutoApproveAfter
	a.MaxSlices = f.MaxSlices
	return a
}

func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return "line " + m[1] + ": " + strings.TrimSpace(yamlLine.ReplaceAllString(msg, ""))
	}
	return msg
}

// NotifyOnEvent reports whether the hook fires for an event.
func (a AFK) NotifyOnEvent(event string) bool {
	return a.On && !a.Broken && a.Notify != "" && contains(a.NotifyOn, event)
}

// Templates are the next_action texts of .devrites/engine.yaml.
type Templates struct {
	Resume   string `yaml:"resume_command"`
	Continue string `yaml:"continue_command"`
	Rescope  string `yaml:"rescope_command"`
}

// DefaultTemplates match the DevRites skills.
var DefaultTemplates = Templates{
	Resume:   `/rite-resolve {qid} "<answer>"`,
	Continue: "/rite-{phase}",
	Rescope:  "/rite-plan reslice --feedback {qid}",
}

// LoadTemplates reads .devrites/engine.yaml; missing keys keep the defaults.
func LoadTemplates(devrites string) (Templates, error) {
	t := DefaultTemplates
	if devrites == "" {
		return t, nil
	}
	path := filepath.Join(devrites, "engine.yaml")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, err
	}
	var f Templates
	if err := yaml.Unmarshal(b, &f); err != nil {
		return t, fmt.Errorf("%s: %s: %w", path, yamlMessage(err), ErrMalformed)
	}
	for _, p := range []struct{ from, to *string }{{&f.Resume, &t.Resume}, {&f.Continue, &t.Continue}, {&f.Rescope, &t.Rescope}} {
		if strings.TrimSpace(*p.from) != "" {
			*p.to = strings.TrimSpace(*p.from)
		}
	}
	return t, nil
}

// expand fills {qid}, {phase} and {slice}.
func expand(tmpl, qid, phase, slice string) string {
	if phase == "" {
		phase = "build"
	}
	return strings.NewReplacer("{qid}", qid, "{phase}", phase, "{slice}", slice).Replace(tmpl)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
