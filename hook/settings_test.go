package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Settings files as people write them: install then uninstall gives back
// the same bytes, and install keeps every other byte in place.
var settingsFiles = map[string]string{
	"absent":      "",
	"empty":       "{}\n",
	"other keys":  "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(npm test)\"]}\n}\n",
	"tabs":        "{\n\t\"model\": \"opus\"\n}\n",
	"one line":    `{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh"}]}]}}`,
	"other hooks": "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [{\"type\": \"command\", \"command\": \"./lint.sh\", \"timeout\": 5}]\n      }\n    ],\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\n    ]\n  },\n  \"env\": {\"A\": \"b\"}\n}\n",
	"empty list":  "{\n  \"hooks\": {\n    \"SessionStart\": [],\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]\n  }\n}\n",
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, hn := range Names {
		h := Harnesses[hn]
		for name, before := range settingsFiles {
			t.Run(hn+"/"+name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "settings.json")
				if name != "absent" {
					if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				ch, err := Install(h, path, false)
				if err != nil || !ch.Changed {
					t.Fatalf("install: %v, changed %v", err, ch.Changed)
				}
				after, _ := os.ReadFile(path)
				st, err := Status(h, path)
				if err != nil || len(st.Missing) != 0 {
					t.Fatalf("status after install: %+v, %v\n%s", st, err, after)
				}
				// Every byte of the file before is still there, in order.
				if !subsequence(before, string(after)) {
					t.Errorf("install moved bytes:\nbefore:\n%s\nafter:\n%s", before, after)
				}
				if again, _ := Install(h, path, false); again.Changed {
					t.Errorf("second install changed the file")
				}
				if _, err := Uninstall(h, path, false); err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(path)
				want := before
				if name == "absent" {
					want = "{}\n"
				}
				if name == "empty list" { // an event list left empty goes, with the engine's group
					want = strings.Replace(before, "    \"SessionStart\": [],\n", "", 1)
				}
				if string(got) != want {
					t.Errorf("after uninstall:\n%s\nwant:\n%s", got, want)
				}
				if fi, err := os.Stat(path); err == nil && name != "absent" && fi.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want 0600", fi.Mode().Perm())
				}
			})
		}
	}
}

// subsequence reports whether every byte of a appears in b in order.
func subsequence(a, b string) bool {
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

func TestSettingsRefused(t *testing.T) {
	for name, text := range map[string]string{
		"not json":         "{\n  \"model\": \"opus\",\n}\n",
		"conflict":         "<<<<<<< HEAD\n{}\n=======\n{\"a\":1}\n>>>>>>> b\n",
		"array":            "[]\n",
		"hooks not object": "{\"hooks\": []}\n",
		"event not list":   "{\"hooks\": {\"PreToolUse\": {}}}\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, f := range []func(Harness, string, bool) (Change, error){Install, Uninstall} {
				if _, err := f(claude{}, path, false); err == nil || !strings.Contains(err.Error(), path) {
					t.Errorf("got %v, want an error naming the file", err)
				}
			}
			if got, _ := os.ReadFile(path); string(got) != text {
				t.Errorf("file changed:\n%s", got)
			}
		})
	}
}

// TestDocSettingsLines: the Claude Code lines docs/harness.md shows are
// what install writes.
func TestDocSettingsLines(t *testing.T) {
	doc, err := os.ReadFile("../docs/harness.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## The settings lines")
	_, block, ok2 := strings.Cut(rest, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/harness.md: no settings block")
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if _, err := Install(claude{}, path, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	var a, b any
	if err := json.Unmarshal([]byte(block), &a); err != nil {
		t.Fatalf("docs/harness.md: %v", err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("docs/harness.md shows:\n%s\ninstall writes:\n%s", block, got)
	}
}
