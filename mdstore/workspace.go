package mdstore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File names inside a feature directory.
const (
	StateFile     = "state.md"
	QuestionsFile = "questions.md"
	DecisionsFile = "decisions.md"
	TasksFile     = "tasks.md"
	LockFile      = ".lock"
	NotifyLog     = "notify.log"
	RecoveryFile  = "recovery.md" // the recovery ledger (package recovery)
)

// Locator says where to look for a workspace, in the order of precedence of
// the specification: an explicit feature directory, then a project root with
// a slug (or .devrites/ACTIVE), then a walk up from Dir.
type Locator struct {
	Workspace string // a feature directory (--workspace, DEVRITES_WORKSPACE)
	Root      string // a project directory or its .devrites (--root, DEVRITES_ROOT)
	Slug      string // --slug; else .devrites/ACTIVE
	Dir       string // where the walk up starts; the current directory
}

// Workspace is a feature directory and the project around it.
type Workspace struct {
	Dir      string // the feature directory: .devrites/work/<slug>
	Devrites string // the .devrites directory, or "" when unknown
	Project  string // the directory holding .devrites (else Dir)
	Slug     string
}

// slugShaped reports whether s is 1 to 64 bytes of lower-case ASCII
// letters, digits, '.', '_' and '-', the first a letter or digit.
func slugShaped(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// CheckSlug refuses slugs that could escape the work directory or are not
// portable file names.
func CheckSlug(slug string) error {
	if !slugShaped(slug) || strings.Contains(slug, "..") {
		return WithHint(Errorf(ErrBadSlug, "invalid slug %q", slug),
			"a slug is 1 to 64 characters: lower-case letters, digits, '.', '_' and '-', starting with a letter or digit")
	}
	return nil
}

// Find locates an existing workspace.
func Find(loc Locator) (*Workspace, error) {
	if loc.Workspace != "" {
		dir, err := filepath.Abs(loc.Workspace)
		if err != nil {
			return nil, err
		}
		if !isDir(dir) {
			return nil, WithHint(Errorf(ErrNoWorkspace, "%s: no such feature directory", loc.Workspace),
				"--workspace and DEVRITES_WORKSPACE name a feature directory such as .devrites/work/<slug>")
		}
		if isDir(filepath.Join(dir, ".devrites")) || filepath.Base(dir) == ".devrites" {
			return nil, WithHint(Errorf(ErrNoWorkspace, "%s is a project, not a feature directory", loc.Workspace),
				"pass --root "+loc.Workspace+" (the slug comes from --slug or .devrites/ACTIVE), or --workspace .devrites/work/<slug>")
		}
		ws := &Workspace{Dir: dir, Slug: filepath.Base(dir), Project: dir}
		if p := filepath.Dir(filepath.Dir(dir)); filepath.Base(p) == ".devrites" {
			ws.Devrites, ws.Project = p, filepath.Dir(p)
		}
		return ws, nil
	}
	devrites, err := devritesDir(loc)
	if err != nil {
		return nil, err
	}
	slug := loc.Slug
	if slug == "" {
		active := filepath.Join(devrites, "ACTIVE")
		b, err := os.ReadFile(active)
		if err == nil {
			// A merge that left ACTIVE conflicted is said as such: its first
			// line is a marker, not a bad slug (docs/git.md, ACTIVE).
			if line := ConflictLine(b); line > 0 {
				return nil, Errorf(ErrNoWorkspace, "%s:%d: unresolved merge conflict", active, line).
					Hint("ACTIVE is this clone's own: keep its side with git checkout --ours -- " + active + " and git add it (or write one slug there)").
					Hint("or name the feature with --slug")
			}
			slug = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
		}
		if slug == "" { // absent, unreadable or empty: no feature is active
			return nil, Errorf(ErrNoWorkspace, "%s: no active feature", active).
				Hint("name the feature with --slug, or create one").Fix(RunInit, "")
		}
		if err := CheckSlug(slug); err != nil {
			return nil, Errorf(ErrNoWorkspace, "%s: %q is not a slug", active, slug).
				Hint("write the active feature's slug there (a-z, 0-9, '.', '_', '-'), or pass --slug")
		}
	} else if err := CheckSlug(slug); err != nil {
		return nil, err
	}
	ws := &Workspace{Devrites: devrites, Project: filepath.Dir(devrites), Slug: slug}
	ws.Dir = filepath.Join(devrites, "work", slug)
	if !isDir(ws.Dir) {
		if legacy := filepath.Join(devrites, "features", slug); isDir(legacy) {
			ws.Dir = legacy
		} else {
			err := Errorf(ErrNoWorkspace, "%s: no such workspace", ws.Dir)
			var slugs []string
			for _, w := range Workspaces(devrites) {
				slugs = append(slugs, w.Slug)
			}
			if near := Closest(slug, slugs); near != "" {
				err = err.Hint("did you mean --slug " + near + "?")
			}
			return nil, err.Fix(RunInit, slug)
		}
	}
	return ws, nil
}

// Workspaces lists the feature directories of the project whose
// .devrites directory is devrites: each valid slug under work/, and under
// features/ (the older name) those work/ does not have.
func Workspaces(devrites string) []*Workspace {
	var out []*Workspace
	seen := map[string]bool{}
	for _, sub := range []string{"work", "features"} {
		ents, err := os.ReadDir(filepath.Join(devrites, sub))
		if err != nil {
			continue
		}
		for _, e := range ents {
			slug := e.Name()
			if !e.IsDir() || seen[slug] || CheckSlug(slug) != nil {
				continue
			}
			seen[slug] = true
			out = append(out, &Workspace{Dir: filepath.Join(devrites, sub, slug), Devrites: devrites,
				Project: filepath.Dir(devrites), Slug: slug})
		}
	}
	return out
}

// DevritesDir finds the .devrites directory as Find does, without picking
// a feature: Root, else a walk up from Dir (Workspace and Slug are not
// read).
func DevritesDir(loc Locator) (string, error) { return devritesDir(loc) }

// devritesDir finds the .devrites directory from --root or by walking up.
func devritesDir(loc Locator) (string, error) {
	if loc.Root != "" {
		root, err := filepath.Abs(loc.Root)
		if err != nil {
			return "", err
		}
		if filepath.Base(root) != ".devrites" {
			root = filepath.Join(root, ".devrites")
		}
		if !isDir(root) {
			return "", Errorf(ErrNoWorkspace, "no .devrites directory in %s", filepath.Dir(root)).
				Hint("--root names the project directory (the one holding .devrites), or .devrites itself").Fix(RunInit, "")
		}
		return root, nil
	}
	dir, err := filepath.Abs(loc.Dir)
	if err != nil {
		return "", err
	}
	start := dir
	for {
		if cand := filepath.Join(dir, ".devrites"); isDir(cand) {
			return cand, nil
		}
		if exists(filepath.Join(dir, ".git")) {
			break // not past the top of the enclosing git repository
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", Errorf(ErrNoWorkspace, "no .devrites directory in %s or above it", start).
		Hint("point at one with --root or --workspace, or create one").Fix(RunInit, "")
}

// ProjectDir returns where init creates .devrites: the --root given, the
// directory of an existing .devrites above Dir, else the top of the enclosing
// git repository, else Dir itself.
func ProjectDir(loc Locator) (string, error) {
	if loc.Root != "" {
		root, err := filepath.Abs(loc.Root)
		if err != nil {
			return "", err
		}
		if filepath.Base(root) == ".devrites" {
			root = filepath.Dir(root)
		}
		return root, nil
	}
	if d, err := devritesDir(loc); err == nil {
		return filepath.Dir(d), nil
	}
	dir, err := filepath.Abs(loc.Dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if exists(filepath.Join(d, ".git")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir, nil
		}
		d = parent
	}
}

// Path returns the path of a file in the feature directory.
func (ws *Workspace) Path(name string) string { return filepath.Join(ws.Dir, name) }

// ReadFile reads a workspace file without the lock. Writes are atomic
// renames, so each file read is whole; two files read this way may come from
// different transactions. Files that must be regular and are not are refused.
// What is returned has room after it for a record appended (AppendRecord)
// without a copy.
func (ws *Workspace) ReadFile(name string) ([]byte, error) {
	p := ws.Path(name)
	fh, err := OpenRegular(p, os.O_RDONLY, 0)
	var nr *NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, Errorf(ErrMissing, "%s: missing", p).Fix(RunDoctor, "")
	case errors.As(err, &nr):
		return nil, notRegular(p)
	case err != nil:
		return nil, err
	}
	defer fh.Close()
	// One allocation of the file's size: memory fresh from the system is
	// not cleared first, as a buffer grown from nothing would be.
	size := 0
	if fi, err := fh.Stat(); err == nil {
		size = int(fi.Size())
	}
	b := bytes.NewBuffer(make([]byte, 0, size+4096))
	if _, err := b.ReadFrom(fh); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// NotRegularError is OpenRegular's error for a path that holds something
// other than a regular file.
type NotRegularError struct {
	Path string
	Type string // what is there (FileType)
}

func (e *NotRegularError) Error() string { return e.Path + ": not a regular file (" + e.Type + ")" }

// OpenRegular opens path with flag (and perm, for a file it creates) only
// when it is a regular file: it never follows a symbolic link at the end
// of path and never waits on a named pipe, by each system's means (see the
// package doc, Systems). Anything else there is a *NotRegularError.
func OpenRegular(path string, flag int, perm fs.FileMode) (*os.File, error) {
	fh, err := openNoFollow(path, flag, perm)
	if err != nil {
		// A link (ELOOP), a pipe without a reader (ENXIO), a directory
		// (EISDIR): lstat says which.
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Type: FileType(fi.Mode())}
		}
		return nil, err
	}
	fi, err := fh.Stat()
	if err != nil {
		_ = fh.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = fh.Close()
		return nil, &NotRegularError{Path: path, Type: FileType(fi.Mode())}
	}
	return fh, nil
}

func notRegular(p string) error {
	return WithHint(Errorf(ErrMalformed, "%s: not a regular file", p),
		"state.md, questions.md and decisions.md must be plain files, not links or devices")
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// FileType names the kind of a file that is not regular, for messages:
// "a symbolic link", "a directory", "a named pipe", "a device", "a socket".
func FileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "an irregular file"
}
