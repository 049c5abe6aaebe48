package hook

import (
	"strings"
	"testing"
)

func TestAnalyzeShell(t *testing.T) {
	g := &guardPaths{cwd: "/p"}
	for _, tc := range []struct {
		cmd       string
		forbidden string // "" for none
		readOnly  bool
		write     string
	}{
		{"devrites-engine state resolve q-2026-11-29-001 1", "state resolve", false, ""},
		{"devrites-engine --slug pay --json state resolve --drop q-1 no", "state resolve", false, ""},
		{"devrites-engine --workspace state state show", "", true, ""}, // the flag's value is no command
		{"/usr/local/bin/devrites-engine answer", "answer", false, ""},
		{"./bin/devrites-engine sign q-1", "sign", false, ""},
		{"env DEVRITES_ACTOR=alice devrites-engine trust", "trust", false, ""},
		{"env -i PATH=/bin devrites-engine rules add --tag x --action always-approve", "rules add", false, ""},
		{"DEVRITES_ACTOR=x devrites-engine state resolve q-1 yes", "state resolve", false, ""},
		{"bash -c 'devrites-engine state resolve q-1 2'", "state resolve", false, ""},
		{`sh -c "cd /p && devrites-engine answer"`, "answer", false, ""},
		{`bash -lc 'sh -c "devrites-engine sign q-1"'`, "sign", false, ""},
		{"zsh -c 'eval devrites-engine trust'", "trust", false, ""},
		{"nohup timeout 5 sudo -u bob devrites-engine trust &", "trust", false, ""},
		{"command devrites-engine state resolve q-1 1", "state resolve", false, ""},
		{"echo $(devrites-engine state resolve q-1 1)", "state resolve", false, ""},
		{"true; devrites-engine state resolve q-1 1 || true", "state resolve", false, ""},
		{"devrites-engine state resolve --always q-1 1", "--always", false, ""},
		{"devrites-engine rules add --always", "--always", false, ""},
		{`d\evrites-engine answer`, "answer", false, ""},
		{`"devrites-engine" 'state' "resolve" q-1 1`, "state resolve", false, ""},
		{"$ENGINE state resolve q-1 1", "", false, ""},               // a program the guard cannot name: not a read
		{"x=devrites-engine; $x state resolve q-1 1", "", false, ""}, // the documented limit
		{"${DE:-devrites-engine} state resolve q-1", "an engine call the guard cannot read", false, ""},
		{"devrites-engine trust --list", "", true, ""},
		{"echo q-1 | xargs -I {} devrites-engine state resolve {} 1", "state resolve", false, ""},
		{"go run ./cmd/devrites-engine answer", "answer", false, ""},
		{"go run ./cmd/devrites-engine state show", "", true, ""},
		{"go test ./...", "", false, ""},
		{"devrites-engine hook uninstall claude-code", "hook uninstall", false, ""},
		{`echo '{"hook_event_name":"UserPromptSubmit","prompt":"answer 2"}' | devrites-engine hook`, "hook", false, ""},
		{"devrites-engine hook --harness codex < event.json", "hook", false, ""},
		{"devrites-engine hook status", "", true, ""},
		{"devrites-engine state show", "", true, ""},
		{"devrites-engine --json state check", "", true, ""},
		{"devrites-engine questions list --status all | head -5", "", true, ""},
		{"devrites-engine wait --timeout 10m", "", true, ""},
		{"devrites-engine qid next", "", true, ""},
		{"devrites-engine doctor", "", true, ""},
		{"devrites-engine doctor --fix", "", false, ""},
		{"devrites-engine question raise --gate blocking --question x --option y", "", false, ""},
		{"devrites-engine question raise --gate blocking --question x --option y --answered y", "question raise --answered", false, ""},
		{"devrites-engine question raise --question x --option y --choice=1", "question raise --answered", false, ""},
		{"devrites-engine state stop --status blocked --reason r --resume x", "", false, ""},
		{"grep -rn 'state resolve' docs", "", true, ""},
		{"cat .devrites/work/pay/questions.md", "", true, ""},
		{"git log --oneline", "", true, ""},
		{"git commit -m x", "", false, ""},
		{"find . -name '*.go' -delete", "", false, ""},
		{"sed -n 1,5p a.go", "", true, ""},
		{"sed -i s/open/answered/ .devrites/work/pay/questions.md", "", false, ".devrites/work/pay/questions.md"},
		{"echo x > .devrites/work/pay/state.md", "", false, ".devrites/work/pay/state.md"},
		{"echo x >> ~/.claude/settings.json", "", false, "~/.claude/settings.json"},
		{"tee .codex/hooks.json < x", "", false, ".codex/hooks.json"},
		{"cp /tmp/q.md .devrites/work/pay/questions.md", "", false, ".devrites/work/pay/questions.md"},
		{"echo x > out.txt", "", false, ""},
		{"go test ./...", "", false, ""},
		{"if then fi ((", "", false, ""}, // does not parse: not a read
		{"devrites-engine answer 'unclosed", "an engine call in a command line the guard cannot read", false, ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			v := analyzeShell(tc.cmd, g.protected)
			if v.forbidden != tc.forbidden || v.readOnly != tc.readOnly || v.write != tc.write {
				t.Errorf("got forbidden %q read %v write %q, want %q %v %q", v.forbidden, v.readOnly, v.write, tc.forbidden, tc.readOnly, tc.write)
			}
		})
	}
}

func TestParseChat(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		ok     bool
		want   chatAnswer
	}{
		{"answer 2", true, chatAnswer{Kind: "answered", Text: "2"}},
		{"  Answer 2\n", true, chatAnswer{Kind: "answered", Text: "2"}},
		{"answer q-2026-11-29-001 3", true, chatAnswer{QID: "q-2026-11-29-001", Kind: "answered", Text: "3"}},
		{"answer: use the \"ledger\"\nrule", true, chatAnswer{Kind: "answered", Text: "use the \"ledger\"\nrule"}},
		{"answer q-2026-11-29-001: Banker's", true, chatAnswer{QID: "q-2026-11-29-001", Kind: "answered", Text: "Banker's"}},
		{"reject: split it", true, chatAnswer{Kind: "rejected", Text: "split it"}},
		{"DROP: not needed", true, chatAnswer{Kind: "dropped", Text: "not needed"}},
		{"drop q-2026-11-29-002: dup", true, chatAnswer{QID: "q-2026-11-29-002", Kind: "dropped", Text: "dup"}},
		{"answer:", false, chatAnswer{}},
		{"answer 2 because it is simpler", false, chatAnswer{}},
		{"answer the question please: now", false, chatAnswer{}},
		{"answer yes: now", false, chatAnswer{}}, // "yes" is no qid
		{"please answer 2", false, chatAnswer{}},
		{"what is the answer?", false, chatAnswer{}},
		{"answers: 2", false, chatAnswer{}},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			got, ok := parseChat(tc.prompt)
			if ok != tc.ok || got != tc.want {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestPatchPaths(t *testing.T) {
	p := "*** Begin Patch\n*** Update File: a.go\n*** Move to: .devrites/x\n*** Delete File: b.go\r\n*** Add File: c.go\n*** End Patch"
	if got := strings.Join(patchPaths(p), ","); got != "a.go,.devrites/x,b.go,c.go" {
		t.Errorf("got %s", got)
	}
}

func TestProtected(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	g := &guardPaths{cwd: "/p/src"}
	for p, want := range map[string]bool{
		"../.devrites/work/pay/questions.md":     true,
		"/p/.devrites/work/pay/decisions.md":     true,
		"/p/.devrites/work/pay/state.md":         true,
		"/p/.devrites/work/pay/.lock":            true,
		"/p/.devrites/work/pay":                  true,
		"/p/.devrites":                           true,
		"/p/.devrites/rules.yaml":                true,
		"/p/.devrites/AFK":                       true,
		"/p/.devrites/features/pay/questions.md": true,
		"/p/.devrites/work/pay/spec.md":          false, // the agent's work in DevRites
		"/p/.devrites/work/pay/tasks.md":         false,
		"/p/.devrites/work/pay/notes/a.md":       false,
		"/p/.DEVRITES/ACTIVE":                    true,
		"/p/.claude/settings.json":               true,
		"/p/.claude/settings.local.json":         true,
		"/p/.claude/agents/x.md":                 false,
		"/p/.codex/hooks.json":                   true,
		"/p/.codex/config.toml":                  true,
		cfg + "/devrites-engine/trust":           true,
		cfg + "/devrites-engine/config.yaml":     true,
		cfg + "/other/x":                         false,
		"round.go":                               false,
		"":                                       false,
	} {
		if got := g.protected(p); got != want {
			t.Errorf("%q: got %v, want %v", p, got, want)
		}
	}
}
