package gitdriver

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/internal/testtool"
	"github.com/devrites/devrites-engine/mdstore"
)

// The test binary is the driver git runs in these tests: with asDriver set
// in its environment, it runs Run on its arguments and exits.
const asDriver = "GITDRIVER_TEST_AS_DRIVER"

func TestMain(m *testing.M) {
	if os.Getenv(asDriver) == "1" {
		a := os.Args[2:] // merge-driver %O %A %B %P
		os.Exit(Run(context.Background(), a[0], a[1], a[2], a[3], os.Stderr))
	}
	os.Exit(m.Run())
}

// repo is a git repository of its own, with git's environment its own (no
// GIT_* or DEVRITES_* of the caller).
type repo struct {
	t   *testing.T
	dir string
	env []string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testtool.Missing(t, "git is not installed")
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	r := &repo{t: t, dir: filepath.Join(dir, "r"), env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE=2026-11-29T14:02:11Z", "GIT_COMMITTER_DATE=2026-11-29T14:02:11Z",
		"LC_ALL=C", asDriver + "=1",
	}}
	for _, d := range []string{home, r.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.git("init", "-q", "-b", "main")
	for _, kv := range [][2]string{{"user.name", "Test"}, {"user.email", "test@example.com"}, {"advice.detachedHead", "false"}} {
		r.git("config", kv[0], kv[1])
	}
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	out, err := r.try(args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (r *repo) try(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (r *repo) write(rel, data string) {
	r.t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) read(rel string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, rel))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// install installs the test binary as the driver.
func (r *repo) install() *Installed {
	r.t.Helper()
	exe, err := os.Executable()
	if err != nil {
		r.t.Fatal(err)
	}
	g, err := Install(context.Background(), r.dir, exe)
	if err != nil {
		r.t.Fatal(err)
	}
	return g
}

func TestInstall(t *testing.T) {
	r := newRepo(t)
	r.write(".gitattributes", "*.png binary\r\n")
	g := r.install()
	if len(g.Added) != 4 || !g.Configured || g.Attributes != ".gitattributes" {
		t.Errorf("first install: added %q, configured %v, attributes %q; want 4 lines, configured, .gitattributes", g.Added, g.Configured, g.Attributes)
	}
	want := "*.png binary\r\n# devrites-engine: merge the workspace files by question (devrites-engine git install)\r\n" +
		strings.Join(AttributeLines(), "\r\n") + "\r\n"
	if got := r.read(".gitattributes"); got != want {
		t.Errorf(".gitattributes:\n%q\nwant\n%q", got, want)
	}
	if got := strings.TrimSpace(r.git("config", "--get", "merge.devrites.driver")); got != g.Driver || !strings.HasSuffix(got, " merge-driver %O %A %B %P") {
		t.Errorf("merge.devrites.driver = %q, want %q", got, g.Driver)
	}
	again := r.install()
	if len(again.Added) != 0 || again.Configured {
		t.Errorf("second install: added %q, configured %v; want nothing", again.Added, again.Configured)
	}
	if got := r.read(".gitattributes"); got != want {
		t.Errorf("second install changed .gitattributes:\n%q", got)
	}

	outside := t.TempDir()
	if _, err := Install(context.Background(), outside, "/bin/true"); !errors.Is(err, ErrNotWorkTree) {
		t.Errorf("install outside git: %v, want ErrNotWorkTree", err)
	}
	if _, err := os.Stat(filepath.Join(outside, ".gitattributes")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("install outside git wrote .gitattributes: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/devrites-engine": "/usr/bin/devrites-engine",
		"/home/a b/bin/x":          "'/home/a b/bin/x'",
		"/tmp/it's":                `'/tmp/it'\''s'`,
		"":                         "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

const ws = ".devrites/work/pay/"

func question(id, text, status string) string {
	s := "## " + id + "\nstatus: " + status + "\ngate: blocking\nquestion: " + text + "\nraised_at: 2026-11-29T10:00:00Z\n"
	if status == "answered" {
		s += "answered_at: 2026-11-29T11:00:00Z\nanswer: yes\n"
	}
	return s
}

func state(status, awaited string) string {
	s := "# State\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | " + status + " |\n"
	if awaited != "" {
		s += "\n## Awaiting human\n| Key | Value |\n| --- | --- |\n| question_id | " + awaited + " |\n"
	}
	return s
}

// diverged is a repository where main answered its q-2026-11-29-001 ("A?")
// and the branch theirs paused on its own q-2026-11-29-001 ("B?"), a
// commit each on top of a base without questions. Merged, theirs' question
// becomes q-2026-11-29-002, and state.md must await it by that id: the
// state.md driver gets there only by finding theirs' questions.md in the
// right commit.
func diverged(t *testing.T) *repo {
	r := newRepo(t)
	r.install()
	r.write(ws+"questions.md", "# Questions\n")
	r.write(ws+"state.md", state("running", ""))
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "base")
	r.git("checkout", "-q", "-b", "theirs")
	r.write(ws+"questions.md", "# Questions\n\n"+question("q-2026-11-29-001", "B?", "open"))
	r.write(ws+"state.md", state("awaiting_human", "q-2026-11-29-001"))
	r.git("commit", "-q", "-a", "-m", "paused")
	r.git("checkout", "-q", "main")
	r.write(ws+"questions.md", "# Questions\n\n"+question("q-2026-11-29-001", "A?", "answered"))
	r.write(ws+"state.md", state("running", "")+"\n## Log\n- 2026-11-29T11:00:00Z answered\n")
	r.git("commit", "-q", "-a", "-m", "answered")
	return r
}

// TestRunFindsTheirs: each way git brings the two commits together names
// theirs differently (GITHEAD_* for a merge, the done list of an
// interactive-style rebase, rebase-apply's original-commit, nothing for a
// cherry-pick): in each, state.md awaits theirs' question by its new id,
// with no conflict.
func TestRunFindsTheirs(t *testing.T) {
	for _, c := range []struct {
		name   string
		branch string // checked out before
		args   []string
		await  string // the id state.md awaits after
	}{
		{"merge", "main", []string{"merge", "-q", "--no-edit", "theirs"}, "q-2026-11-29-002"},
		{"merge-recursive", "main", []string{"merge", "-q", "--no-edit", "-s", "recursive", "theirs"}, "q-2026-11-29-002"},
		{"cherry-pick", "main", []string{"cherry-pick", "theirs"}, "q-2026-11-29-002"},
		// A rebase of theirs onto main: main is ours, the replayed commit theirs.
		{"rebase-merge", "theirs", []string{"rebase", "-q", "--merge", "main"}, "q-2026-11-29-002"},
		{"rebase-apply", "theirs", []string{"rebase", "-q", "--apply", "main"}, "q-2026-11-29-002"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := diverged(t)
			r.git("checkout", "-q", c.branch)
			if out, err := r.try(c.args...); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(c.args, " "), err, out)
			}
			qs := mdstore.ParseQuestions([]byte(r.read(ws + "questions.md")))
			if b := qs.Find(c.await); b == nil || b.Value("question") != "B?" {
				t.Fatalf("questions.md has no %s for B?:\n%s", c.await, r.read(ws+"questions.md"))
			}
			st := mdstore.ParseState([]byte(r.read(ws + "state.md")))
			if got := st.AwaitingQID(); got != c.await {
				t.Errorf("state.md awaits %q, want %q:\n%s", got, c.await, r.read(ws+"state.md"))
			}
			if st := r.git("status", "--porcelain"); st != "" {
				t.Errorf("git status after it:\n%s", st)
			}
		})
	}
}

// TestRunOutsideItsRepository: state.md's driver run where no commit
// holds the versions it is given cannot read its questions.md, and leaves
// git's line merge with markers (exit 1), never a guess.
func TestRunOutsideItsRepository(t *testing.T) {
	r := newRepo(t)
	for name, data := range map[string]string{"o": state("running", ""), "a": state("blocked", ""), "b": state("awaiting_human", "q-2026-11-29-001")} {
		r.write(name, data)
	}
	var stderr bytes.Buffer
	cwd, _ := os.Getwd()
	if err := os.Chdir(r.dir); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chdir(cwd) }()
	code := Run(context.Background(), "o", "a", "b", ws+"state.md", &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "cannot tell which commit is ours") {
		t.Errorf("exit %d, stderr %q; want 1 and that ours cannot be told", code, stderr.String())
	}
	if got := r.read("a"); !strings.Contains(got, "<<<<<<< ours\n") || !strings.Contains(got, ">>>>>>> theirs\n") {
		t.Errorf("result has no markers:\n%s", got)
	}
}

// TestCatFile: an object that is there is read whole; one that is not, or
// a name that holds a newline (which would be two requests), is none.
func TestCatFile(t *testing.T) {
	r := newRepo(t)
	r.write("f", "one\ntwo\n")
	r.git("add", "f")
	r.git("commit", "-q", "-m", "f")
	cwd, _ := os.Getwd()
	if err := os.Chdir(r.dir); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chdir(cwd) }()
	g, err := newCatFile(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	for _, c := range []struct {
		rev  string
		want string
		ok   bool
	}{{"HEAD:f", "one\ntwo\n", true}, {"HEAD:missing", "", false}, {"HEAD:f\nHEAD:f", "", false}, {"HEAD:f", "one\ntwo\n", true}} {
		got, ok, err := g.blob(c.rev)
		if err != nil || ok != c.ok || string(got) != c.want {
			t.Errorf("blob(%q) = %q, %v, %v; want %q, %v", c.rev, got, ok, err, c.want, c.ok)
		}
	}
}
