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
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/mdstore"
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
	// ServeURL is where `devrites-engine serve` answers, as the person's
	// phone reaches it: the hook gets each open question's capability link
	// under it (DEVRITES_ANSWER_URL). Empty when not set or not a URL.
	ServeURL string `json:"serve_url,omitempty"`
	// OnOverdue is what happens, per gate, to questions nobody answers;
	// Channels are where `devrites-engine relay` sends pauses. Both are
	// notify keys: read from notify.yaml, else from the AFK file.
	OnOverdue map[string]OnOverdue `json:"on_overdue,omitempty"`
	Channels  []Channel            `json:"channels,omitempty"`
	// Broken is set when the body does not parse: nothing is auto-picked.
	Broken bool `json:"broken,omitempty"`
	// Untrusted says why the file does not take effect on this machine
	// ("not trusted", "changed since it was trusted"), "" when it does or
	// there is no file: its notify command does not run, and its
	// allow_gates and auto_approve_after auto-pick nothing (docs/trust.md).
	Untrusted string `json:"untrusted,omitempty"`
	// TrustCommand is the command that trusts the file, when Untrusted.
	TrustCommand string `json:"-"` // offered only to a person at a terminal
	data         []byte // the bytes the file was read as, which trust verifies
	// Warnings name the file and line of each problem: first those that are
	// ignored, then, when Broken, every one that makes the body fail.
	Warnings []string `json:"warnings,omitempty"`
	failed   int      // how many of the last Warnings make the body fail
	// policyKeys are the keys other than notify* the file set, with their
	// line ("allow_gates (line 2)"), for notify.yaml, which ignores them.
	policyKeys []string
	// hookKeys are the keys of the hook's command the file set (notify,
	// notify_timeout, notify_on, serve_url), with their line: the AFK
	// file's are not read when notify.yaml is there.
	hookKeys []string
}

// remindsOnOverdue reports whether on_overdue reminds or escalates a gate.
func (a AFK) remindsOnOverdue() bool {
	for _, o := range a.OnOverdue {
		if o.Remind > 0 || len(o.EscalateTo) > 0 {
			return true
		}
	}
	return false
}

// Failed reports whether the i-th warning is one that makes the body fail
// (a doctor error) rather than one that is ignored.
func (a AFK) Failed(i int) bool { return i >= len(a.Warnings)-a.failed && i < len(a.Warnings) }

// Events are the events notify_on may list.
var Events = []string{"raised", "responded", "resolved", "dropped", "rejected", "reminder"}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line ([0-9]+):?`) })

// defaultNotifyTimeout is notify_timeout when the AFK file does not set it.
const defaultNotifyTimeout = 10 * time.Second

// LoadAFK reads .devrites/AFK. Its absence is AFK off. A body that does not
// parse fails closed: AFK stays on (so nothing is mistaken for a person being
// present) but Broken is set, no gate is allowed and auto_approve_after is
// off, so every question pauses. Every bad key or value is reported, not only
// the first; a YAML syntax error stops the parser, so only it is reported.
// Unknown keys and unknown notify_on events are warned about and ignored: an
// unknown event is not in NotifyOn. Every message names the file and line.
func LoadAFK(devrites string) AFK {
	if devrites == "" {
		return loadConfig("")
	}
	a := loadConfig(filepath.Join(devrites, "AFK"))
	a.policyKeys = nil // every key is the AFK file's
	a.verify()
	return a
}

// LoadHook reads the notify hook's configuration: .devrites/notify.yaml
// when it is there (so that a person is paged without handing decisions to
// the AFK policy), else the notify keys of the AFK file. notify.yaml takes
// the AFK file's notify, notify_timeout, notify_on, serve_url, on_overdue
// and channels, and fails closed in the same way (the hook does not fire until it is fixed); its
// other keys are ignored with a warning.
func LoadHook(devrites string, afk AFK) AFK {
	if devrites == "" {
		return afk
	}
	h := loadConfig(filepath.Join(devrites, "notify.yaml"))
	if h.Path == "" { // no notify.yaml
		return afk
	}
	path := h.Path
	for i, w := range h.Warnings {
		h.Warnings[i] = strings.TrimSuffix(w, "; nothing is auto-picked until it is fixed") + hookBroken(h.Failed(i))
	}
	for _, k := range h.policyKeys {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%s: %s is a key of the AFK file; notify.yaml reads only notify, notify_timeout, notify_on, serve_url, on_overdue and channels", path, k))
	}
	h.policyKeys = nil
	// One file configures the hook: the AFK file's hook keys are not read,
	// and every command that shows the configuration says so (afk status,
	// notify test, doctor), first, so that Failed still counts from the end.
	if len(afk.hookKeys) > 0 {
		say := fmt.Sprintf("%s: %s not read: %s configures the notify hook when it is there; move them there", afk.Path, strings.Join(afk.hookKeys, ", "), path)
		if len(afk.hookKeys) == 1 {
			say = strings.Replace(say, " not read:", " is not read:", 1)
			say = strings.Replace(say, "move them there", "move it there", 1)
		} else {
			say = strings.Replace(say, " not read:", " are not read:", 1)
		}
		h.Warnings = append([]string{say}, h.Warnings...)
	}
	h.verify()
	return h
}

func hookBroken(failed bool) string {
	if failed {
		return "; the notify hook does not fire until it is fixed"
	}
	return ""
}

// conflictWords say what a configuration file a merge left conflicted
// has, and the way out: a person settles it, as for a workspace file.
const conflictWords = "unresolved merge conflict (keep what each side meant between the <<<<<<< and >>>>>>> lines and delete the markers)"

// loadConfig reads a file of the AFK file's form at path ("" for none).
func loadConfig(path string) AFK {
	a := AFK{AllowGates: []string{"advisory"}, NotifyOn: []string{"raised"}, NotifyTimeout: defaultNotifyTimeout}
	if path == "" {
		return a
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return a
	}
	a.On, a.Path, a.data = true, path, b
	var failures []string
	fail := func(msg string) {
		failures = append(failures, msg+"; nothing is auto-picked until it is fixed")
	}
	// done applies the failures, when there are any: fail closed.
	done := func() AFK {
		// A reminder or an escalation on_overdue configures is asked for:
		// it needs no second switch in notify_on (docs/afk-and-notify.md).
		if a.remindsOnOverdue() && !slices.Contains(a.NotifyOn, "reminder") {
			a.NotifyOn = append(a.NotifyOn, "reminder")
		}
		if len(failures) > 0 {
			a.Broken = true
			a.AllowGates = []string{}
			a.AutoApproveAfter = 0
			a.Warnings = append(a.Warnings, failures...)
			a.failed = len(failures)
		}
		return a
	}
	if err == nil {
		err = symlinkRefused(path) // trust_files.go
	}
	if err != nil {
		fail(fmt.Sprintf("%s: %v", path, err))
		return done()
	}
	if line := mdstore.ConflictLine(b); line > 0 {
		fail(fmt.Sprintf("%s:%d: %s", path, line, conflictWords))
		return done()
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		fail(path + ":" + yamlMessage(err))
		return done()
	}
	if len(root.Content) == 0 {
		return a // an empty body, or only comments, is fine
	}
	doc := root.Content[0]
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return a
	}
	if doc.Kind != yaml.MappingNode {
		fail(fmt.Sprintf("%s:%d: want key: value lines", path, doc.Line))
		return done()
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		at := fmt.Sprintf("%s:%d", path, k.Line)
		if prev, dup := seen[k.Value]; dup {
			fail(fmt.Sprintf("%s: %s is also set on line %d", at, k.Value, prev))
			continue
		}
		seen[k.Value] = k.Line
		if !isNotifyKey(k.Value) {
			a.policyKeys = append(a.policyKeys, fmt.Sprintf("%s (line %d)", k.Value, k.Line))
		} else if k.Value != "channels" && k.Value != "on_overdue" {
			a.hookKeys = append(a.hookKeys, fmt.Sprintf("%s (line %d)", k.Value, k.Line))
		}
		var msg string
		switch k.Value {
		case "allow_gates":
			var gates []word
			if gates, msg = stringList(v); msg == "" {
				a.AllowGates = []string{}
				for _, g := range gates {
					switch {
					case !mdstore.ValidGate(g.text):
						fail(fmt.Sprintf("%s:%d: allow_gates: unknown gate %q (use advisory, validating, blocking)", path, g.line, g.text))
					case g.text == "escalating":
						a.Warnings = append(a.Warnings, fmt.Sprintf("%s:%d: allow_gates: escalating has no effect, escalating gates always pause", path, g.line))
					}
					a.AllowGates = append(a.AllowGates, g.text)
				}
			}
		case "notify":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" && v.Tag != "!!null" {
				msg = "notify: want a shell command as a string"
			} else {
				a.Notify = strings.TrimSpace(v.Value)
			}
		case "notify_timeout":
			d, err := time.ParseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				msg = fmt.Sprintf("notify_timeout: %q is not a duration such as 10s", v.Value)
			} else {
				a.NotifyTimeout = d
			}
		case "notify_on":
			var events []word
			if events, msg = stringList(v); msg == "" {
				a.NotifyOn = []string{}
				for _, ev := range events {
					if !slices.Contains(Events, ev.text) {
						a.Warnings = append(a.Warnings, fmt.Sprintf("%s:%d: notify_on: unknown event %q (ignored; events are %s)",
							path, ev.line, ev.text, strings.Join(Events, ", ")))
						continue
					}
					a.NotifyOn = append(a.NotifyOn, ev.text)
				}
			}
		case "serve_url":
			// A bad URL costs the hook its answer links, not the policy
			// or the hook: it is warned about and ignored.
			u := strings.TrimSpace(v.Value)
			var baseErr error
			if u != "" {
				baseErr = caplink.CheckBase(u)
			}
			switch {
			case v.Kind != yaml.ScalarNode || v.Tag != "!!str" && v.Tag != "!!null":
				a.Warnings = append(a.Warnings, fmt.Sprintf("%s: serve_url: want a URL such as http://127.0.0.1:7878 (ignored; the hook gets no answer link)", at))
			case u == "":
			case baseErr != nil:
				a.Warnings = append(a.Warnings, fmt.Sprintf("%s: serve_url: %v (ignored; the hook gets no answer link)", at, baseErr))
			default:
				a.ServeURL = u
			}
		case "on_overdue":
			var w []string
			a.OnOverdue, w = readOnOverdue(path, v)
			a.Warnings = append(a.Warnings, w...)
		case "channels":
			var w []string
			a.Channels, w = readChannels(path, v)
			a.Warnings = append(a.Warnings, w...)
		case "never_auto":
			var tags []word
			tags, msg = stringList(v)
			a.NeverAuto = texts(tags)
		case "auto_approve_after":
			a.AutoApproveAfter, msg = count(v, k.Value)
		case "max_slices":
			a.MaxSlices, msg = count(v, k.Value)
		default:
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s: unknown key %q (ignored)", at, k.Value))
		}
		if msg != "" {
			fail(at + ": " + msg)
		}
	}
	return done()
}

// isNotifyKey reports whether a key configures the hook and the relay,
// the keys notify.yaml reads.
func isNotifyKey(k string) bool {
	return strings.HasPrefix(k, "notify") || k == "serve_url" || k == "on_overdue" || k == "channels"
}

// word is an item of a YAML list and the line it is on.
type word struct {
	text string
	line int
}

func texts(ws []word) []string {
	if ws == nil {
		return nil
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}

// stringList reads a YAML list of strings; a single scalar is a list of one.
func stringList(n *yaml.Node) ([]word, string) {
	var nodes []*yaml.Node
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return []word{}, ""
		}
		nodes = []*yaml.Node{n}
	case yaml.SequenceNode:
		nodes = n.Content
	default:
		return nil, "want a list such as [a, b]"
	}
	out := []word{}
	for _, x := range nodes {
		if x.Kind != yaml.ScalarNode || strings.TrimSpace(x.Value) == "" {
			return nil, "want a list of words such as [a, b]"
		}
		out = append(out, word{strings.TrimSpace(x.Value), x.Line})
	}
	return out, ""
}

// count reads a whole number that is 0 or more.
func count(n *yaml.Node, key string) (int, string) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		return 0, fmt.Sprintf("%s: %q is not a whole number 0 or more", key, n.Value)
	}
	return v, ""
}

// yamlMessage turns a parser error into "LINE: what", without the package
// prefix, so that it reads "path:LINE: what". The YAML package counts lines
// from 1 for errors of its scanner but from 0 for errors of its parser (those
// read "did not find expected …"), and leaves the line out when it is the
// first: this puts every message on the 1-based line.
func yamlMessage(err error) string {
	msg := strings.TrimSpace(strings.TrimPrefix(err.Error(), "yaml: "))
	line := 1
	if m := yamlLine().FindStringSubmatchIndex(msg); m != nil && m[0] == 0 {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = strings.TrimSpace(msg[m[1]:])
		if strings.HasPrefix(msg, "did not find expected") {
			line++
		}
	}
	return strconv.Itoa(line) + ": " + strings.Join(strings.Fields(msg), " ")
}

// NotifyOnEvent reports whether the hook fires for an event.
func (a AFK) NotifyOnEvent(event string) bool {
	return a.On && !a.Broken && a.Untrusted == "" && a.Notify != "" && slices.Contains(a.NotifyOn, event)
}

// HeldBack reports whether the hook would fire for an event but does not,
// because the file is not trusted on this machine.
func (a AFK) HeldBack(event string) bool {
	b := a
	b.Untrusted = ""
	return a.Untrusted != "" && b.NotifyOnEvent(event)
}

// Templates are the next_action texts of .devrites/engine.yaml.
type Templates struct {
	Resume   string `yaml:"resume_command"`
	Continue string `yaml:"continue_command"`
	Rescope  string `yaml:"rescope_command"`
	// Warnings name keys of engine.yaml that are not known (and so ignored).
	Warnings []string `yaml:"-"`
	// Invalid name values that are not templates of the engine's own
	// commands, and a file that is a symbolic link: they are not used (the
	// default stays) and doctor reports each as an error (templates.go).
	Invalid []string `yaml:"-"`
}

// defaultTemplates match the DevRites skills.
var defaultTemplates = Templates{
	Resume:   `/rite-resolve {qid} "<answer>"`,
	Continue: "/rite-{phase}",
	Rescope:  "/rite-plan reslice --feedback {qid}",
}

// LoadTemplates reads .devrites/engine.yaml; missing keys keep the defaults.
func LoadTemplates(devrites string) (Templates, error) {
	t := defaultTemplates
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
	if err := symlinkRefused(path); err != nil {
		t.Invalid = append(t.Invalid, fmt.Sprintf("%s: %v: its texts are not used", path, err))
		return t, nil
	}
	if line := mdstore.ConflictLine(b); line > 0 {
		return t, fmt.Errorf("%s:%d: %s", path, line, conflictWords)
	}
	// Parsed once: the node gives the keys' lines, then the texts.
	var doc yaml.Node
	var f Templates
	err = yaml.Unmarshal(b, &doc)
	if err == nil && len(doc.Content) == 1 {
		err = doc.Content[0].Decode(&f)
	}
	if err != nil {
		return t, mdstore.Errorf(mdstore.ErrMalformed, "%s:%s", path, yamlMessage(err))
	}
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		kv := doc.Content[0].Content
		for i := 0; i+1 < len(kv); i += 2 {
			switch k := kv[i]; k.Value {
			case "resume_command", "continue_command", "rescope_command":
			default:
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s:%d: unknown key %q is ignored (known: resume_command, continue_command, rescope_command)", path, k.Line, k.Value))
			}
		}
	}
	for _, p := range []struct {
		key      string
		from, to *string
	}{{"resume_command", &f.Resume, &t.Resume}, {"continue_command", &f.Continue, &t.Continue}, {"rescope_command", &f.Rescope, &t.Rescope}} {
		v := strings.TrimSpace(*p.from)
		if v == "" {
			continue
		}
		if why := templateProblem(p.key, v); why != "" {
			t.Invalid = append(t.Invalid, fmt.Sprintf("%s: %s: %s; the default %q is used", path, p.key, why, *p.to))
			continue
		}
		*p.to = v
	}
	return t, nil
}

// Expand fills {qid}, {phase} and {slice}.
func Expand(tmpl, qid, phase, slice string) string {
	if phase == "" {
		phase = "build"
	}
	return strings.NewReplacer("{qid}", qid, "{phase}", phase, "{slice}", slice).Replace(tmpl)
}
