package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/devrites/devrites-engine/mdstore"
)

// ErrSettings is a settings file the engine will not change: it does not
// parse as JSON, or its "hooks" is not the documented shape.
var ErrSettings = errors.New("settings file refused")

// SettingsError names the file and why it was refused.
type SettingsError struct {
	Path, Why string
}

func (e *SettingsError) Error() string { return e.Path + ": " + e.Why }
func (e *SettingsError) Unwrap() error { return ErrSettings }

// group is one matcher group of the "hooks" shape both harnesses share.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

func groupOf(h Harness, e Entry) group {
	return group{Matcher: e.Matcher, Hooks: []handler{{Type: "command", Command: Command(h), Timeout: e.Timeout}}}
}

// State is what a settings file holds of the engine's hooks.
type State struct {
	Harness   string   `json:"harness"`
	Scope     string   `json:"scope,omitempty"`
	Path      string   `json:"path"`
	Exists    bool     `json:"exists"`
	Installed []string `json:"installed"` // events with the engine's hook
	Missing   []string `json:"missing"`   // events install would add
}

// Change is what install or uninstall did, or would do with dry run.
type Change struct {
	Path    string   `json:"path"`
	Events  []string `json:"events"` // events added or removed
	Changed bool     `json:"changed"`
	Text    string   `json:"-"` // the file's new content
}

// read loads a settings file: "" when it does not exist.
func read(path string) (string, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// hooksOf parses s and finds its "hooks" object (nil when absent),
// refusing a file that is not the documented shape.
func hooksOf(path, s string) (*jnode, *jnode, error) {
	if !json.Valid([]byte(s)) {
		var v any
		err := json.Unmarshal([]byte(s), &v)
		return nil, nil, &SettingsError{path, fmt.Sprintf("not valid JSON (%v)", err)}
	}
	root := parseSpans(s)
	if root.kind != '{' {
		return nil, nil, &SettingsError{path, "not a JSON object"}
	}
	_, hooks := root.member("hooks")
	if hooks != nil && hooks.kind != '{' {
		return nil, nil, &SettingsError{path, `"hooks" is not an object`}
	}
	if hooks != nil {
		for _, m := range hooks.members {
			if m.val.kind != '[' {
				return nil, nil, &SettingsError{path, fmt.Sprintf(`"hooks"."%s" is not a list`, m.key)}
			}
		}
	}
	return root, hooks, nil
}

// ours returns the index of the engine's group in an event's list, or -1: a
// group whose every command is the engine's hook command.
func ours(s string, list *jnode, command string) int {
	for i, el := range list.elems {
		var g group
		if json.Unmarshal([]byte(s[el.start:el.end]), &g) != nil || len(g.Hooks) == 0 {
			continue
		}
		all := true
		for _, h := range g.Hooks {
			all = all && h.Command == command
		}
		if all {
			return i
		}
	}
	return -1
}

// Status reads what path holds of h's hooks.
func Status(h Harness, path string) (State, error) {
	st := State{Harness: h.Name(), Path: path, Installed: []string{}, Missing: []string{}}
	s, exists, err := read(path)
	if err != nil {
		return st, err
	}
	st.Exists = exists
	if !exists {
		for _, e := range h.Entries() {
			st.Missing = append(st.Missing, e.Event)
		}
		return st, nil
	}
	_, hooks, err := hooksOf(path, s)
	if err != nil {
		return st, err
	}
	for _, e := range h.Entries() {
		if hooks != nil {
			if _, list := hooks.member(e.Event); list != nil && ours(s, list, Command(h)) >= 0 {
				st.Installed = append(st.Installed, e.Event)
				continue
			}
		}
		st.Missing = append(st.Missing, e.Event)
	}
	return st, nil
}

// Install adds h's hooks to path, keeping every other byte; a hook already
// there is left as it is. With dryRun nothing is written.
func Install(h Harness, path string, dryRun bool) (Change, error) {
	s, exists, err := read(path)
	if err != nil {
		return Change{}, err
	}
	if !exists {
		s = "{}\n"
	}
	ch := Change{Path: path, Events: []string{}}
	for _, e := range h.Entries() {
		root, hooks, err := hooksOf(path, s)
		if err != nil {
			return Change{}, err
		}
		g := groupOf(h, e)
		if hooks == nil {
			s = insertMember(s, root, "hooks", map[string][]group{e.Event: {g}})
		} else if _, list := hooks.member(e.Event); list == nil {
			s = insertMember(s, hooks, e.Event, []group{g})
		} else if ours(s, list, Command(h)) < 0 {
			s = insertElem(s, list, g)
		} else {
			continue
		}
		ch.Events = append(ch.Events, e.Event)
	}
	ch.Changed, ch.Text = len(ch.Events) > 0, s
	if ch.Changed && !dryRun {
		return ch, write(path, s)
	}
	return ch, nil
}

// Uninstall removes exactly h's hooks from path: its groups, and an event's
// list or the "hooks" object left empty by that.
func Uninstall(h Harness, path string, dryRun bool) (Change, error) {
	ch := Change{Path: path, Events: []string{}}
	s, exists, err := read(path)
	if err != nil || !exists {
		return ch, err
	}
	for _, e := range h.Entries() {
		for {
			root, hooks, err := hooksOf(path, s)
			if err != nil {
				return Change{}, err
			}
			if hooks == nil {
				break
			}
			at, list := hooks.member(e.Event)
			if list == nil {
				break
			}
			i := ours(s, list, Command(h))
			if i < 0 {
				break
			}
			switch {
			case len(list.elems) > 1:
				s = cutElem(s, list, i)
			case len(hooks.members) > 1:
				s = cutMember(s, hooks, at)
			default:
				hi, _ := root.member("hooks")
				s = cutMember(s, root, hi)
			}
			if len(ch.Events) == 0 || ch.Events[len(ch.Events)-1] != e.Event {
				ch.Events = append(ch.Events, e.Event)
			}
		}
	}
	ch.Changed, ch.Text = len(ch.Events) > 0, s
	if ch.Changed && !dryRun {
		return ch, write(path, s)
	}
	return ch, nil
}

// write replaces path atomically (mdstore.WriteAtomic: renameio's
// temporary file in the same directory, synced, renamed), keeping its mode;
// a symbolic link is followed, so the file it names is the one replaced.
func write(path, s string) error {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return mdstore.WriteAtomic(path, []byte(s))
}

// Installed reports whether a settings file of either harness, in the
// project or the user's home, holds the engine's prompt hook: the chat
// answer forms are then recorded, and the raise prints them.
func Installed(project, home string, getenv func(string) string) bool {
	for _, name := range Names {
		h := Harnesses[name]
		for _, scope := range []string{"project", "user"} {
			if scope == "user" && home == "" {
				continue
			}
			st, err := Status(h, h.Settings(scope, project, home, getenv))
			if err == nil && slices.Contains(st.Installed, UserPromptSubmit) {
				return true
			}
		}
	}
	return false
}
