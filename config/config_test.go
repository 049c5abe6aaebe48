package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

func writeAFK(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AFK"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadAFKAbsentIsOff(t *testing.T) {
	a := LoadAFK(t.TempDir())
	if a.On || a.Broken || len(a.Warnings) != 0 {
		t.Errorf("got on=%v broken=%v warnings=%q, want off with no warnings", a.On, a.Broken, a.Warnings)
	}
}

func TestLoadAFKDefaults(t *testing.T) {
	for _, body := range []string{"", "\n", "# only a comment\n", "---\n"} {
		t.Run(strings.TrimSpace(body), func(t *testing.T) {
			a := LoadAFK(writeAFK(t, body))
			if !a.On || a.Broken {
				t.Fatalf("got on=%v broken=%v, want on and not broken", a.On, a.Broken)
			}
			if !reflect.DeepEqual(a.AllowGates, []string{"advisory"}) || !reflect.DeepEqual(a.NotifyOn, []string{"raised"}) ||
				a.NotifyTimeout != 10*time.Second || a.Notify != "" || a.AutoApproveAfter != 0 {
				t.Errorf("got %+v, want the defaults", a)
			}
			if len(a.Warnings) != 0 {
				t.Errorf("got warnings %q, want none", a.Warnings)
			}
		})
	}
}

func TestLoadAFKFull(t *testing.T) {
	a := LoadAFK(writeAFK(t, `allow_gates: [advisory, validating]   # default [advisory]
notify: ./scripts/page-me.sh
notify_timeout: 3s
notify_on: [raised, reminder]
never_auto: [billing]
auto_approve_after: 3
max_slices: 5
`))
	want := AFK{On: true, Path: a.Path, AllowGates: []string{"advisory", "validating"}, Notify: "./scripts/page-me.sh",
		NotifyTimeout: 3 * time.Second, NotifyOn: []string{"raised", "reminder"}, NeverAuto: []string{"billing"},
		AutoApproveAfter: 3, MaxSlices: 5,
		// Nobody trusted it on this machine (docs/trust.md).
		Untrusted: "not trusted", TrustCommand: "devrites-engine trust " + a.Path, data: a.data,
		hookKeys: []string{"notify (line 2)", "notify_timeout (line 3)", "notify_on (line 4)"}}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("got %+v, want %+v", a, want)
	}
}

func TestLoadAFKScalarLists(t *testing.T) {
	a := LoadAFK(writeAFK(t, "allow_gates: blocking\nnotify_on: reminder\n"))
	if !reflect.DeepEqual(a.AllowGates, []string{"blocking"}) || !reflect.DeepEqual(a.NotifyOn, []string{"reminder"}) {
		t.Errorf("got allow_gates %q notify_on %q, want [blocking] [reminder]", a.AllowGates, a.NotifyOn)
	}
}

func TestLoadAFKWarnings(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"unknown key", "allow_gates: [advisory]\nnotfy: ./page.sh\n", []string{`AFK:2: unknown key "notfy" (ignored)`}},
		{"unknown event", "notify: x\nnotify_on: [raised, paused]\n", []string{`AFK:2: notify_on: unknown event "paused"`}},
		{"escalating allowed", "allow_gates: [escalating]\n", []string{"AFK:1: allow_gates: escalating has no effect"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := LoadAFK(writeAFK(t, tt.body))
			if a.Broken {
				t.Fatalf("got broken, want a warning only: %q", a.Warnings)
			}
			if len(a.Warnings) != len(tt.want) {
				t.Fatalf("got warnings %q, want %d", a.Warnings, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(a.Warnings[i], w) {
					t.Errorf("got warning %q, want it to contain %q", a.Warnings[i], w)
				}
			}
		})
	}
}

// A syntax error names the line the parser stopped at.
func TestLoadAFKSyntaxErrorNamesLine(t *testing.T) {
	a := LoadAFK(writeAFK(t, "allow_gates: [advisory]\nnotify: ./page.sh\nnotify_on: raised: now\n"))
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "/AFK:3: ") {
		t.Errorf("got %q, want one warning naming AFK:3", a.Warnings)
	}
}

func TestNotifyOnEvent(t *testing.T) {
	a := AFK{On: true, Notify: "x", NotifyOn: []string{"raised", "reminder"}}
	for ev, want := range map[string]bool{"raised": true, "reminder": true, "resolved": false} {
		if got := a.NotifyOnEvent(ev); got != want {
			t.Errorf("event %s: got %v, want %v", ev, got, want)
		}
	}
	a.Notify = ""
	if a.NotifyOnEvent("raised") {
		t.Errorf("got true without a notify command, want false")
	}
}

// An unknown notify_on event is warned about and is not active: it is not in
// NotifyOn, whatever else the list holds.
func TestLoadAFKUnknownEventIsNotActive(t *testing.T) {
	tests := []struct {
		body string
		want []string
	}{
		{"notify: x\nnotify_on: [raised, paused]\n", []string{"raised"}},
		{"notify: x\nnotify_on: [paused]\n", []string{}},
		{"notify: x\nnotify_on:\n  - resolved\n  - answered\n  - reminder\n", []string{"resolved", "reminder"}},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.body, "\n", " "), func(t *testing.T) {
			a := LoadAFK(writeAFK(t, tt.body))
			if !reflect.DeepEqual(a.NotifyOn, tt.want) {
				t.Errorf("got notify_on %q, want %q", a.NotifyOn, tt.want)
			}
			if a.NotifyOnEvent("paused") || a.NotifyOnEvent("answered") {
				t.Errorf("got an unknown event enabled, want it ignored")
			}
			if a.Broken || len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "unknown event") {
				t.Errorf("got broken=%v warnings %q, want one warning about the unknown event", a.Broken, a.Warnings)
			}
		})
	}
}

func TestLoadTemplates(t *testing.T) {
	tests := []struct {
		name, body string
		want       Templates
		warnings   int
		broken     bool
	}{
		{"absent", "", Templates{Resume: `/rite-resolve {qid} "<answer>"`, Continue: "/rite-{phase}", Rescope: "/rite-plan reslice --feedback {qid}"}, 0, false},
		{"one key", "rescope_command: ' /replan {qid} '\n", Templates{Resume: `/rite-resolve {qid} "<answer>"`, Continue: "/rite-{phase}", Rescope: "/replan {qid}"}, 0, false},
		{"unknown key", "continue_command: /go\nfoo: bar\n", Templates{Resume: `/rite-resolve {qid} "<answer>"`, Continue: "/go", Rescope: "/rite-plan reslice --feedback {qid}"}, 1, false},
		{"not YAML", "continue_command: [\n", Templates{}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.body != "" {
				if err := os.WriteFile(filepath.Join(dir, "engine.yaml"), []byte(tt.body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := LoadTemplates(dir)
			if tt.broken {
				if !errors.Is(err, mdstore.ErrMalformed) {
					t.Fatalf("got %v, want %v", err, mdstore.ErrMalformed)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Warnings) != tt.warnings {
				t.Errorf("warnings: got %q, want %d", got.Warnings, tt.warnings)
			}
			got.Warnings = nil
			if got.Resume != tt.want.Resume || got.Continue != tt.want.Continue || got.Rescope != tt.want.Rescope {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
