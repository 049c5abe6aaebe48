package mdstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree creates directories (names ending in "/") and files under root.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFind(t *testing.T) {
	project := map[string]string{
		"proj/.devrites/ACTIVE":          "pay\n",
		"proj/.devrites/work/pay/":       "",
		"proj/.devrites/work/other/":     "",
		"proj/src/deep/":                 "",
		"proj/.git/":                     "",
		"legacy/.devrites/ACTIVE":        "old\n",
		"legacy/.devrites/features/old/": "",
		"both/.devrites/ACTIVE":          "x",
		"both/.devrites/work/x/":         "",
		"both/.devrites/features/x/":     "",
		"outer/.devrites/ACTIVE":         "pay\n",
		"outer/.devrites/work/pay/":      "",
		"outer/repo/.git/":               "",
		"outer/repo/sub/":                "",
		"outer/wt/.git":                  "gitdir: elsewhere\n",
		"outer/plain/sub/":               "",
		"noactive/.devrites/work/a/":     "",
		"spaced/.devrites/ACTIVE":        "  pay  \nsecond line\n",
		"spaced/.devrites/work/pay/":     "",
		"bad/.devrites/ACTIVE":           "../escape\n",
		"bad/.devrites/work/":            "",
		"bare/":                          "",
	}
	root := t.TempDir()
	tree(t, root, project)
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	tests := []struct {
		name    string
		loc     Locator
		wantDir string // relative to root
		slug    string
		err     error
	}{
		{"workspace flag", Locator{Workspace: p("proj/.devrites/work/other"), Dir: p("bare")}, "proj/.devrites/work/other", "other", nil},
		{"workspace flag wins over root", Locator{Workspace: p("proj/.devrites/work/other"), Root: p("legacy")}, "proj/.devrites/work/other", "other", nil},
		{"workspace flag missing dir", Locator{Workspace: p("proj/.devrites/work/nope")}, "", "", ErrNoWorkspace},
		{"root project dir", Locator{Root: p("proj"), Dir: p("bare")}, "proj/.devrites/work/pay", "pay", nil},
		{"root is .devrites", Locator{Root: p("proj/.devrites"), Dir: p("bare")}, "proj/.devrites/work/pay", "pay", nil},
		{"root with slug flag", Locator{Root: p("proj"), Slug: "other"}, "proj/.devrites/work/other", "other", nil},
		{"root without .devrites", Locator{Root: p("bare")}, "", "", ErrNoWorkspace},
		{"slug from ACTIVE trimmed, first line", Locator{Root: p("spaced")}, "spaced/.devrites/work/pay", "pay", nil},
		{"no ACTIVE and no slug", Locator{Root: p("noactive")}, "", "", ErrNoWorkspace},
		{"slug without workspace dir", Locator{Root: p("proj"), Slug: "nope"}, "", "", ErrNoWorkspace},
		{"walk up from subdirectory", Locator{Dir: p("proj/src/deep")}, "proj/.devrites/work/pay", "pay", nil},
		{"walk up from project dir", Locator{Dir: p("proj")}, "proj/.devrites/work/pay", "pay", nil},
		{"walk up stops at git top", Locator{Dir: p("outer/repo/sub")}, "", "", ErrNoWorkspace},
		{"walk up stops at git worktree file", Locator{Dir: p("outer/wt")}, "", "", ErrNoWorkspace},
		{"walk up outside git", Locator{Dir: p("outer/plain/sub")}, "outer/.devrites/work/pay", "pay", nil},
		{"legacy features dir", Locator{Root: p("legacy")}, "legacy/.devrites/features/old", "old", nil},
		{"work preferred over features", Locator{Root: p("both")}, "both/.devrites/work/x", "x", nil},
		{"ACTIVE with dot-dot refused", Locator{Root: p("bad")}, "", "", ErrNoWorkspace},
		{"slug flag dot-dot", Locator{Root: p("proj"), Slug: ".."}, "", "", ErrBadSlug},
		{"slug flag with slash", Locator{Root: p("proj"), Slug: "work/pay"}, "", "", ErrBadSlug},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := Find(tt.loc)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got, want := ws.Dir, p(tt.wantDir); got != want {
				t.Errorf("Dir: got %s, want %s", got, want)
			}
			if ws.Slug != tt.slug {
				t.Errorf("Slug: got %q, want %q", ws.Slug, tt.slug)
			}
		})
	}
}

func TestFindWorkspaceFlagProject(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"proj/.devrites/work/pay/": "", "loose/": ""})
	tests := []struct{ dir, devrites, project string }{
		{"proj/.devrites/work/pay", "proj/.devrites", "proj"},
		{"loose", "", "loose"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			ws, err := Find(Locator{Workspace: filepath.Join(root, tt.dir)})
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.devrites != "" {
				want = filepath.Join(root, tt.devrites)
			}
			if ws.Devrites != want {
				t.Errorf("Devrites: got %q, want %q", ws.Devrites, want)
			}
			if got, want := ws.Project, filepath.Join(root, tt.project); got != want {
				t.Errorf("Project: got %q, want %q", got, want)
			}
		})
	}
}

func TestFindWalkUpToRoot(t *testing.T) {
	if _, err := os.Stat("/.devrites"); err == nil {
		t.Skip("/.devrites exists on this machine")
	}
	dir := t.TempDir()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".devrites")); err == nil {
			t.Skipf("%s has a .devrites above the temporary directory", d)
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("%s is in a git repository", d)
		}
	}
	_, err := Find(Locator{Dir: dir})
	if !errors.Is(err, ErrNoWorkspace) {
		t.Fatalf("got %v, want %v", err, ErrNoWorkspace)
	}
}

func TestCheckSlug(t *testing.T) {
	tests := []struct {
		slug string
		ok   bool
	}{
		{"pay", true},
		{"a", true},
		{"0day", true},
		{"v1.2_beta-3", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"..", false},
		{"a..b", false},
		{".hidden", false},
		{"-flag", false},
		{"_x", false},
		{"a/b", false},
		{"/abs", false},
		{"a b", false},
		{" pay", false},
		{"Pay", false},
		{"PAY", false},
		{"pay\n", false},
		{"café", false},
		{`a\b`, false},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			err := CheckSlug(tt.slug)
			if got := err == nil; got != tt.ok {
				t.Fatalf("got ok %v (%v), want %v", got, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrBadSlug) {
				t.Fatalf("got %v, want %v", err, ErrBadSlug)
			}
		})
	}
}
