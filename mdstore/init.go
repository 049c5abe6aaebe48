package mdstore

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/qid"
)

// gitignore keeps the files of one machine out of git: the lock, the hook's
// log, what the relay sent, and the temporary files of an interrupted
// atomic write.
const gitignore = `# written by devrites-engine: files that belong to one machine
.lock
notify.log
notify.log.1
relay.json
.*.md[0-9]*
`

// initWrite writes one file of a new workspace, and .devrites/ACTIVE; tests
// replace it to make a write fail.
var initWrite = WriteAtomic

// Init creates .devrites/work/<slug>/ with state.md (table form, the current
// schema, status running), questions.md and decisions.md, and makes the slug
// active. It refuses to touch a workspace that exists. An empty slug takes
// the one in .devrites/ACTIVE, else the project directory's name.
//
// It is all or nothing: the workspace is built in a temporary directory
// beside its final place (.devrites/work/.init-<slug>-<n>) and renamed into
// place, then ACTIVE is replaced atomically. When any step fails, the
// temporary directory, the workspace and the directories init created above
// it are removed, and ACTIVE keeps what it held, so a retry starts afresh.
// Of two inits of the same slug at once, one wins and the other gets
// ErrExists: each renames a directory that is not empty, and rename(2) does
// not replace a directory that is not empty.
func Init(loc Locator, slug string, now time.Time) (*Workspace, error) {
	var ws *Workspace
	if loc.Workspace != "" {
		dir, err := filepath.Abs(loc.Workspace)
		if err != nil {
			return nil, err
		}
		ws = &Workspace{Dir: dir, Project: dir, Slug: filepath.Base(dir)}
	} else {
		project, err := ProjectDir(loc)
		if err != nil {
			return nil, err
		}
		devrites := filepath.Join(project, ".devrites")
		if slug == "" {
			slug = defaultSlug(devrites, project)
		}
		ws = &Workspace{Devrites: devrites, Project: project, Slug: slug, Dir: filepath.Join(devrites, "work", slug)}
	}
	if err := CheckSlug(ws.Slug); err != nil {
		return nil, err
	}
	if ws.Devrites != "" {
		if legacy := filepath.Join(ws.Devrites, "features", ws.Slug); isDir(legacy) {
			return nil, WithHint(Errorf(ErrExists, "%s already exists", legacy), "the workspace exists under the older features/ name; use it as it is")
		}
	}
	exists := func() error {
		return WithHint(Errorf(ErrExists, "%s already exists", ws.Dir), "init never overwrites; pick another slug, or use the workspace as it is")
	}
	// An empty directory is refused too: rename would replace it.
	if _, err := os.Lstat(ws.Dir); err == nil {
		return nil, exists()
	}
	tmp, made, err := initTemp(ws.Dir)
	if err != nil {
		return nil, err
	}
	placed := false
	defer func() {
		if placed {
			return
		}
		_ = os.RemoveAll(tmp)
		removeEmpty(made)
	}()
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
		{QuestionsFile, "# Questions\n"},
		{DecisionsFile, "# Decisions\n"},
		{StateFile, state},
		{LockFile, ""},
		{".gitignore", gitignore},
	}
	for _, f := range files {
		if err := initWrite(filepath.Join(tmp, f.name), []byte(f.body)); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(tmp, ws.Dir); err != nil {
		if _, lerr := os.Lstat(ws.Dir); lerr == nil {
			return nil, exists()
		}
		return nil, err
	}
	// From here a failure takes the workspace back out of place: renamed to
	// the temporary name, which is free again, and removed with it.
	err = syncDirs(append([]string{filepath.Dir(ws.Dir)}, parents(made)...))
	if err == nil && ws.Devrites != "" {
		err = initWrite(filepath.Join(ws.Devrites, "ACTIVE"), []byte(ws.Slug+"\n"))
	}
	if err != nil {
		if rerr := os.Rename(ws.Dir, tmp); rerr != nil {
			placed = true // not ours to remove any more
		}
		return nil, err
	}
	placed = true
	return ws, nil
}

// initTempPrefix starts the name of the directory a workspace is built in.
func initTempPrefix(slug string) string { return ".init-" + slug + "-" }

// initTemp creates the directory in which the workspace dir is built, beside
// it so that the rename into place stays on one file system, and creates the
// missing directories above it. It returns those it created, so that a
// failed init can remove them. A name already taken, or a parent that a
// failed init removed in the meantime, is tried again.
func initTemp(dir string) (string, []string, error) {
	parent := filepath.Dir(dir)
	var made []string
	for attempt := 0; ; attempt++ {
		for _, m := range missingDirs(parent) {
			if !slices.Contains(made, m) {
				made = append(made, m)
			}
		}
		if err := os.MkdirAll(parent, 0o755); err != nil {
			removeEmpty(made)
			return "", nil, err
		}
		tmp := filepath.Join(parent, initTempPrefix(filepath.Base(dir))+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := os.Mkdir(tmp, 0o755)
		if err == nil {
			return tmp, made, nil
		}
		if attempt >= 20 || !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) {
			removeEmpty(made)
			return "", nil, err
		}
	}
}

// missingDirs returns dir and those above it that do not exist, the top first.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// removeEmpty removes the directories init created, the deepest first, as
// long as they are empty: another init may have put its own in them.
func removeEmpty(made []string) {
	dirs := slices.Clone(made)
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	for _, d := range dirs {
		_ = os.Remove(d)
	}
}

// parents are the directories that hold the ones init created: syncing them
// makes the new entries durable.
func parents(made []string) []string {
	out := make([]string, 0, len(made))
	for _, m := range made {
		out = append(out, filepath.Dir(m))
	}
	return out
}

func syncDirs(dirs []string) error {
	for _, dir := range dirs {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		err = d.Sync()
		d.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// InitTemps returns the paths of the directories that inits of ws's slug
// left beside it when they were killed before renaming them into place.
func InitTemps(ws *Workspace) ([]string, error) {
	parent := filepath.Dir(ws.Dir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, en := range ents {
		rest, ok := strings.CutPrefix(en.Name(), initTempPrefix(ws.Slug))
		if !ok || !en.IsDir() {
			continue
		}
		if _, err := strconv.ParseUint(rest, 10, 32); err == nil {
			out = append(out, filepath.Join(parent, en.Name()))
		}
	}
	return out, nil
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
