package app

// git: the merge driver for the workspace files, and its installation.
//
// git install writes, beside .devrites, the .gitattributes lines that send
// questions.md, state.md and decisions.md to the "devrites" merge driver,
// and sets the driver in the repository's own config (merge.devrites.name,
// merge.devrites.driver). The driver command is the absolute path of the
// running binary (os.Executable), so that git finds it when it is not on
// PATH; after moving or upgrading the binary, run git install again (doctor
// warns when the configured program is gone). Config is not versioned:
// every clone runs git install once, and doctor warns in a clone whose
// .gitattributes asks for the driver that its config does not define.
//
// merge-driver %O %A %B %P is what git runs: it merges the three versions
// with package merge, writes the result to %A and exits 0, or 1 on a real
// conflict, with conflict markers written. When it cannot do better (input
// that is not text, a version it cannot find, a merge that fails its own
// check, a panic), it writes what git's own line merge gives, conflict
// markers and all, and exits 1: a person looks, nothing is merged wrong in
// silence.
//
// The state.md and decisions.md drivers need the three versions of the
// questions.md beside them, to read ids the way the questions.md merge
// renumbers them (see package merge). Git has not written them anywhere
// yet when it runs a driver (the index still holds the commit merged
// into), so they are read from the commits: ours is HEAD; theirs is the
// commit named by GITHEAD_<oid> (merge, pull), by the rebase's done list
// or original-commit (rebase), by REBASE_HEAD, CHERRY_PICK_HEAD,
// MERGE_HEAD or REVERT_HEAD, else the newest of the last 200 commits that
// changed the file whose version of it is the one git gave (a cherry-pick);
// the base is the one of theirs' parents or of the merge bases whose
// version of the file is git's %O (else the first merge base). Each is
// checked: the commit's version of the driver's own file must be the one
// git handed over.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/merge"
)

// driverName is the merge driver's name in .gitattributes and git config.
const driverName = "devrites"

// workspaceFiles are the files the driver merges.
var workspaceFiles = []string{mdstore.QuestionsFile, mdstore.StateFile, mdstore.DecisionsFile}

// The examples the --help of these commands shows (see help.go).
func init() {
	examples["git"] = "devrites-engine git install"
	examples["git install"] = "devrites-engine git install --json"
	examples["merge-driver"] = "git config merge.devrites.driver \"$(command -v devrites-engine) merge-driver %O %A %B %P\""
}

// withGit adds git install and merge-driver to the command tree, and
// --git to init.
func withGit(cmds []*cli.Command) []*cli.Command {
	for _, c := range cmds {
		if c.Name == "init" {
			c.Flags = append(c.Flags, &cli.BoolFlag{Name: "git", Usage: "also run git install: git merges the workspace files with the devrites driver"})
			c.Action = initWithGit(c.Action)
		}
	}
	return append(cmds,
		&cli.Command{
			Name: "git", Usage: "merge the workspace files with git, across clones and branches",
			Subcommands: []*cli.Command{{
				Name:   "install",
				Usage:  "write the .gitattributes lines and this clone's merge.devrites config (once per clone)",
				Action: cmdGitInstall,
			}},
		},
		&cli.Command{
			Name:      "merge-driver",
			Usage:     "git's merge driver for questions.md, state.md and decisions.md (git install sets it up)",
			ArgsUsage: "%O %A %B %P",
			Action:    cmdMergeDriver,
		},
	)
}

// gitInstalled is what git install did.
type gitInstalled struct {
	Repository string   `json:"repository"`
	Attributes string   `json:"gitattributes"`
	Added      []string `json:"added"`  // lines added to .gitattributes
	Driver     string   `json:"driver"` // merge.devrites.driver
	Configured bool     `json:"configured"`
}

func (g *gitInstalled) text() string {
	var b strings.Builder
	if len(g.Added) == 0 {
		fmt.Fprintf(&b, "%s: already sends the workspace files to the %s merge driver\n", g.Attributes, driverName)
	} else {
		fmt.Fprintf(&b, "%s: added %s\n", g.Attributes, plural(len(g.Added), "line"))
	}
	state := "already set"
	if g.Configured {
		state = "set"
	}
	fmt.Fprintf(&b, "git config merge.%s.driver %s: %s\n", driverName, state, g.Driver)
	return b.String()
}

func cmdGitInstall(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	dir, err := gitProject(e.locator())
	if err != nil {
		return err
	}
	g, err := installGit(e.ctx, dir)
	if err != nil {
		return err
	}
	e.print(g, g.text())
	return nil
}

// gitProject is the directory that holds (or will hold) .devrites: for a
// feature directory .devrites/work/<slug>, the one above .devrites.
func gitProject(loc mdstore.Locator) (string, error) {
	if loc.Workspace != "" {
		dir, err := filepath.Abs(loc.Workspace)
		if err != nil {
			return "", err
		}
		if p := filepath.Dir(filepath.Dir(dir)); filepath.Base(p) == ".devrites" {
			return filepath.Dir(p), nil
		}
		return dir, nil
	}
	return mdstore.ProjectDir(loc)
}

// initWithGit runs init, then git install when --git is given. The
// repository is checked first, so that init --git outside one creates
// nothing; with --json the two results are one object.
func initWithGit(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if !c.Bool("git") {
			return action(c)
		}
		e, err := envOf(c)
		if err != nil {
			return err
		}
		dir, err := gitProject(e.locator())
		if err != nil {
			return err
		}
		if _, err := gitTop(e.ctx, dir); err != nil {
			return err
		}
		out := c.App.Writer
		var buf bytes.Buffer
		c.App.Writer = &buf
		err = action(c)
		c.App.Writer = out
		if err != nil {
			_, _ = out.Write(buf.Bytes())
			return err
		}
		if dir, err = gitProject(e.locator()); err != nil {
			return err
		}
		g, err := installGit(e.ctx, dir)
		if err != nil {
			_, _ = out.Write(buf.Bytes())
			return err
		}
		if !e.json {
			_, _ = out.Write(buf.Bytes())
			e.print(g, g.text())
			return nil
		}
		var v map[string]any
		if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
			return err
		}
		v["git"] = g
		e.print(v, "")
		return nil
	}
}

// gitTop is the top of the work tree dir is in.
func gitTop(ctx context.Context, dir string) (string, error) {
	out, err := gitOutput(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", mdstore.Errorf(mdstore.ErrNoWorkspace, "%s is not in a git work tree", dir).Hint("create the repository first (git init), or pass --root")
		}
		return "", fmt.Errorf("running git: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func gitOutput(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	return cmd.Output()
}

// attributeLines are the .gitattributes lines git install writes, relative
// to the directory that holds .devrites.
func attributeLines() []string {
	var out []string
	for _, f := range workspaceFiles {
		out = append(out, ".devrites/**/"+f+" merge="+driverName)
	}
	return out
}

// installGit writes the attributes beside .devrites and the driver into
// the repository's config; what is already there is left as it is.
func installGit(ctx context.Context, dir string) (*gitInstalled, error) {
	top, err := gitTop(ctx, dir)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program's path for the driver: %w", err)
	}
	g := &gitInstalled{Repository: top, Attributes: filepath.Join(dir, ".gitattributes"), Added: []string{},
		Driver: shellQuote(exe) + " merge-driver %O %A %B %P"}
	if rel, err := filepath.Rel(top, g.Attributes); err == nil {
		g.Attributes = rel
	}
	path := filepath.Join(dir, ".gitattributes")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(old), "\n") {
		have[strings.Join(strings.Fields(l), " ")] = true
	}
	for _, l := range attributeLines() {
		if !have[l] {
			g.Added = append(g.Added, l)
		}
	}
	if len(g.Added) > 0 {
		nl := "\n"
		if i := bytes.IndexByte(old, '\n'); i > 0 && old[i-1] == '\r' {
			nl = "\r\n"
		}
		data := bytes.Clone(old)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, nl...)
		}
		if len(g.Added) == len(attributeLines()) {
			data = append(data, "# devrites-engine: merge the workspace files by question (devrites-engine git install)"+nl...)
		}
		for _, l := range g.Added {
			data = append(data, l+nl...)
		}
		if err := mdstore.WriteAtomic(path, data); err != nil {
			return nil, err
		}
	}
	for _, kv := range [][2]string{
		{"merge." + driverName + ".name", "devrites-engine: questions.md, state.md and decisions.md by question and field"},
		{"merge." + driverName + ".driver", g.Driver},
	} {
		cur, _ := gitOutput(ctx, dir, "config", "--local", "--get", kv[0])
		if strings.TrimSpace(string(cur)) == kv[1] {
			continue
		}
		if out, err := exec.CommandContext(ctx, "git", "-C", dir, "config", "--local", kv[0], kv[1]).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git config %s: %s", kv[0], strings.TrimSpace(string(out)))
		}
		g.Configured = true
	}
	return g, nil
}

// shellQuote quotes a path for sh, which git runs the driver with.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func cmdMergeDriver(c *cli.Context) error {
	if c.NArg() != 4 {
		return mdstore.Errorf(engine.ErrBadArgs, "want the four arguments %%O %%A %%B %%P from git, got %s", plural(c.NArg(), "argument")).
			Hint("git runs it: merge." + driverName + ".driver = devrites-engine merge-driver %O %A %B %P (set by git install)")
	}
	a := c.Args().Slice()
	if code := mergeDriver(c.Context, a[0], a[1], a[2], a[3], c.App.ErrWriter); code != 0 {
		return status(code)
	}
	return nil
}

// mergeDriver merges the file git names: base %O, ours %A (where the result
// goes), theirs %B, for the repository path %P. It returns the exit code
// for git: 0 merged, 1 conflict.
func mergeDriver(ctx context.Context, o, a, b, p string, stderr io.Writer) (code int) {
	say := func(format string, args ...any) {
		fmt.Fprintf(stderr, "devrites-engine: merge-driver: %s: %s\n", p, fmt.Sprintf(format, args...))
	}
	giveUp := func(why any) int {
		say("%v; git's line merge is left with its conflict markers for a person", why)
		return lineMerge(ctx, o, a, b, true)
	}
	defer func() {
		if r := recover(); r != nil {
			code = giveUp(fmt.Sprintf("internal error: %v", r))
		}
	}()
	budgetMemory(mergeBudget(o, a, b))
	// The versions are read when the merge asks, so that it never holds
	// all of them at once.
	file := func(name string) merge.Source { return func() ([]byte, error) { return os.ReadFile(name) } }
	var res merge.Result
	var err error
	switch path.Base(filepath.ToSlash(p)) {
	case mdstore.QuestionsFile:
		res, err = merge.Questions(file(o), file(a), file(b))
	case mdstore.StateFile, mdstore.DecisionsFile:
		var r *merge.Renumbering
		if r, err = siblingPlan(ctx, p, file(o), file(a), file(b)); err != nil {
			return giveUp(err)
		}
		var data [3][]byte
		for i, f := range []string{o, a, b} {
			if data[i], err = os.ReadFile(f); err != nil {
				return giveUp(err)
			}
		}
		base, ours, theirs := data[0], data[1], data[2]
		if path.Base(p) == mdstore.StateFile {
			res, err = merge.State(base, ours, theirs, r)
		} else {
			res, err = merge.Decisions(base, ours, theirs, r)
		}
	default:
		// Not a workspace file: merged as git would without the driver.
		return lineMerge(ctx, o, a, b, false)
	}
	if err != nil {
		return giveUp(err)
	}
	if err := os.WriteFile(a, res.Data, 0o644); err != nil {
		return giveUp(err)
	}
	for _, rn := range res.Renamed {
		say("theirs' %s is now %s (ours has %s for another question; renumbered_from: %s)", rn.From, rn.To, rn.From, rn.From)
	}
	if !res.Clean() {
		for _, c := range res.Conflicts {
			say("conflict: %s", c)
		}
		return 1
	}
	return 0
}

// mergeBudget is the memory budget of a merge (budgetMemory): 22 MiB, or
// four times the largest version when that is more. A merge reads one
// version at a time and keeps a summary of each (see merge.Source); at
// 10,000 questions (5 MB a version) it stays under 30 MB.
func mergeBudget(files ...string) int64 {
	var largest int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			largest = max(largest, fi.Size())
		}
	}
	return max(22<<20, 4*largest)
}

// lineMerge writes git's own three-way line merge of the files to a and
// returns its exit code, or 1 whenever always is set. When git cannot do
// it either, the whole of both sides goes between conflict markers.
func lineMerge(ctx context.Context, o, a, b string, always bool) int {
	out, err := exec.CommandContext(ctx, "git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", a, o, b).Output()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128:
		always = true
	default:
		read := func(f string) []byte { d, _ := os.ReadFile(f); return d }
		out, always = merge.Markers(read(o), read(a), read(b)), true
	}
	if err := os.WriteFile(a, out, 0o644); err != nil {
		return 1
	}
	if always {
		return 1
	}
	return 0
}

// siblingPlan computes the renumbering of the questions.md beside p from
// its three versions in the commits being merged, which it finds by the
// versions of p that git gave the driver: each is read once, and a commit's
// p is compared with it by SHA-256.
func siblingPlan(ctx context.Context, p string, base, ours, theirs merge.Source) (*merge.Renumbering, error) {
	type version struct {
		sum   [32]byte
		empty bool
	}
	var vs [3]version
	for i, src := range []merge.Source{base, ours, theirs} {
		b, err := src()
		if err != nil {
			return nil, err
		}
		vs[i] = version{sha256.Sum256(b), len(b) == 0}
	}
	g, err := newCatFile(ctx)
	if err != nil {
		return nil, err
	}
	defer g.close()
	sib := path.Join(path.Dir(filepath.ToSlash(p)), mdstore.QuestionsFile)
	is := func(rev string, v version) bool {
		got, ok, err := g.blob(rev + ":" + p)
		return err == nil && (ok && sha256.Sum256(got) == v.sum || !ok && v.empty)
	}
	oursRev, found := "", false
	for _, rev := range []string{"HEAD", ""} { // "" is the index: ":path"
		if is(rev, vs[1]) {
			oursRev, found = rev, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("cannot tell which commit is ours: HEAD's %s is not the one git merges", p)
	}
	theirsRev := ""
	for _, stage := range []func(context.Context, string) []string{namedTheirs, searchTheirs} {
		for _, rev := range stage(ctx, p) {
			if is(rev, vs[2]) {
				theirsRev = rev
				break
			}
		}
		if theirsRev != "" {
			break
		}
	}
	if theirsRev == "" {
		return nil, fmt.Errorf("cannot tell which commit is theirs, to read its %s", sib)
	}
	var bases []string
	for i := 1; i <= 8; i++ {
		bases = append(bases, theirsRev+"^"+strconv.Itoa(i))
	}
	mergeBases := []string(nil)
	if out, err := gitOutput(ctx, "", "merge-base", "--all", "HEAD", theirsRev); err == nil {
		mergeBases = strings.Fields(string(out))
	}
	baseRev := ""
	for _, rev := range append(bases, mergeBases...) {
		if !vs[0].empty && is(rev, vs[0]) {
			baseRev = rev
			break
		}
	}
	if baseRev == "" && len(mergeBases) > 0 {
		baseRev = mergeBases[0] // a virtual base: the first real one stands for it
	}
	var qs [3]merge.Source
	for i, rev := range []string{baseRev, oursRev, theirsRev} {
		if i == 0 && rev == "" {
			continue // no common history: no base
		}
		qs[i] = func() ([]byte, error) {
			b, _, err := g.blob(rev + ":" + sib)
			return b, err
		}
	}
	return merge.Plan(qs[0], qs[1], qs[2])
}

// namedTheirs are the commits that git names as the one merged in, most
// likely first.
func namedTheirs(ctx context.Context, p string) []string {
	var revs []string
	for _, kv := range os.Environ() {
		if name, _, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(name, "GITHEAD_") {
			revs = append(revs, strings.TrimPrefix(name, "GITHEAD_"))
		}
	}
	if out, err := gitOutput(ctx, "", "rev-parse", "--absolute-git-dir"); err == nil {
		dir := strings.TrimSpace(string(out))
		// The rebase's current step is the last line of its done list.
		if b, err := os.ReadFile(filepath.Join(dir, "rebase-merge", "done")); err == nil {
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			for i := len(lines) - 1; i >= 0 && i >= len(lines)-2; i-- {
				for _, f := range strings.Fields(lines[i]) {
					if isOID(f) {
						revs = append(revs, f)
					}
				}
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, "rebase-apply", "original-commit")); err == nil {
			revs = append(revs, strings.TrimSpace(string(b)))
		}
	}
	return append(revs, "REBASE_HEAD", "CHERRY_PICK_HEAD", "MERGE_HEAD", "REVERT_HEAD")
}

// searchTheirs are the newest commits that changed the file (a
// cherry-pick names none).
func searchTheirs(ctx context.Context, p string) []string {
	out, err := gitOutput(ctx, "", "rev-list", "--all", "--max-count=200", "--", p)
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// isOID: an object id, full or abbreviated.
func isOID(s string) bool {
	return len(s) >= 7 && len(s) <= 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// catFile reads objects through one git cat-file --batch.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newCatFile(ctx context.Context) (*catFile, error) {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running git cat-file: %w", err)
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// blob returns the object named rev, and false when there is none.
func (g *catFile) blob(rev string) ([]byte, bool, error) {
	if strings.ContainsAny(rev, "\n") {
		return nil, false, nil
	}
	if _, err := io.WriteString(g.in, rev+"\n"); err != nil {
		return nil, false, err
	}
	head, err := g.out.ReadString('\n')
	if err != nil {
		return nil, false, err
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return nil, false, nil // "<rev> missing", "<rev> ambiguous"
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file: %q", head)
	}
	data := make([]byte, n+1)
	if _, err := io.ReadFull(g.out, data); err != nil {
		return nil, false, err
	}
	if f[1] != "blob" {
		return nil, false, nil
	}
	return data[:n], true, nil
}

func (g *catFile) close() {
	_ = g.in.Close()
	_ = g.cmd.Wait()
}
