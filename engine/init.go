package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Init creates .devrites/work/<slug>/ with state.md (table form, schema 3,
// status running), questions.md and decisions.md, and makes the slug active.
// It refuses to touch a workspace that exists. An empty slug takes the one in
// .devrites/ACTIVE, else the project directory's name.
func Init(loc mdstore.Locator, slug string, now time.Time) (*mdstore.Workspace, error) {
	var ws *mdstore.Workspace
	if loc.Workspace != "" {
		dir, err := filepath.Abs(loc.Workspace)
		if err != nil {
			return nil, err
		}
		ws = &mdstore.Workspace{Dir: dir, Project: dir, Slug: filepath.Base(dir)}
	} else {
		project, err := mdstore.ProjectDir(loc)
		if err != nil {
			return nil, err
		}
		devrites := filepath.Join(project, ".devrites")
		if slug == "" {
			slug = defaultSlug(devrites, project)
		}
		ws = &mdstore.Workspace{Devrites: devrites, Project: project, Slug: slug, Dir: filepath.Join(devrites, "work", slug)}
	}
	if err := mdstore.CheckSlug(ws.Slug); err != nil {
		return nil, err
	}
	if ws.Devrites != "" {
		if legacy := filepath.Join(ws.Devrites, "features", ws.Slug); dirExists(legacy) {
			return nil, mdstore.WithHint(fmt.Errorf("%s: %w", legacy, ErrExists), "the workspace exists under the older features/ name; use it as it is")
		}
	}
	if err := os.MkdirAll(filepath.Dir(ws.Dir), 0o755); err != nil {
		return nil, err
	}
	if err := os.Mkdir(ws.Dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, mdstore.WithHint(fmt.Errorf("%s: %w", ws.Dir, ErrExists), "init never overwrites; pick another slug, or use the workspace as it is")
		}
		return nil, err
	}
	ts := qid.Timestamp(now)
	state := strings.Join([]string{
		"# State",
		"",
		"## Cursor",
		"| Key | Value |",
		"| --- | --- |",
		"| phase | spec |",
		"| status | running |",
		"| active_slice |  |",
		"| next_action | /rite-spec |",
		fmt.Sprintf("| schema | %d |", SchemaVersion),
		"",
		"## Log",
		"- " + ts + " init: workspace " + ws.Slug + " created",
		"",
	}, "\n")
	files := []struct{ name, body string }{
		{mdstore.QuestionsFile, "# Questions\n"},
		{mdstore.DecisionsFile, "# Decisions\n"},
		{mdstore.StateFile, state},
		{mdstore.LockFile, ""},
	}
	for _, f := range files {
		if err := mdstore.WriteAtomic(ws.Path(f.name), []byte(f.body)); err != nil {
			return nil, err
		}
	}
	if ws.Devrites != "" {
		if err := mdstore.WriteAtomic(filepath.Join(ws.Devrites, "ACTIVE"), []byte(ws.Slug+"\n")); err != nil {
			return nil, err
		}
	}
	return ws, nil
}

func defaultSlug(devrites, project string) string {
	if b, err := os.ReadFile(filepath.Join(devrites, "ACTIVE")); err == nil {
		if s := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]); s != "" {
			return s
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(project)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-.")
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
