package app

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/internal/testtool"
	"github.com/devrites/devrites-engine/mdstore"
)

// These tests run real git on real clones. Git runs the merge driver as
// configured by git install: the devrites-engine that TestMain puts on PATH
// (this test binary under that name), so nothing is built.

const gitNow = "2026-11-29T14:02:11Z"

// gitLab is a directory of repositories with their own git and engine
// environment: HOME and the global git config are its own, no DEVRITES_*
// or GIT_* variable of the caller reaches git or the engine.
type gitLab struct {
	t   *testing.T
	dir string
	env []string
}

func newGitLab(t *testing.T) *gitLab {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testtool.Missing(t, "git is not installed")
	}
	if _, err := exec.LookPath(engineName); err != nil {
		t.Fatalf("%s is not on PATH: %v", engineName, err)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	l := &gitLab{t: t, dir: dir, env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=" + gitNow,
		"GIT_COMMITTER_DATE=" + gitNow,
		"TMPDIR=" + os.TempDir(),
		"LC_ALL=C",
		"DEVRITES_NOW=" + gitNow,
		"NO_COLOR=1",
	}}
	for _, kv := range [][2]string{{"user.name", "Test"}, {"user.email", "test@example.com"},
		{"init.defaultBranch", "main"}, {"pull.rebase", "false"}, {"advice.detachedHead", "false"}} {
		l.run("", "git", "config", "--global", kv[0], kv[1])
	}
	return l
}

// exec runs a program in the lab directory sub and returns its exit code,
// stdout and stderr.
func (l *gitLab) exec(sub, prog string, args ...string) (int, string, string) {
	l.t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = filepath.Join(l.dir, sub)
	cmd.Env = l.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		l.t.Fatalf("%s %s: %v", prog, strings.Join(args, " "), err)
	}
	return code, out.String(), errb.String()
}

// run wants exit 0 (or 3, a pause, from the engine).
func (l *gitLab) run(sub, prog string, args ...string) string {
	l.t.Helper()
	code, out, errs := l.exec(sub, prog, args...)
	if code != 0 && !(prog == engineName && code == 3) {
		l.t.Fatalf("in %s: %s %s: exit %d\n%s%s", sub, prog, strings.Join(args, " "), code, out, errs)
	}
	return out
}

func (l *gitLab) write(rel, data string) {
	l.t.Helper()
	if err := os.WriteFile(filepath.Join(l.dir, rel), []byte(data), 0o644); err != nil {
		l.t.Fatal(err)
	}
}

func (l *gitLab) read(rel string) string {
	l.t.Helper()
	b, err := os.ReadFile(filepath.Join(l.dir, rel))
	if err != nil {
		l.t.Fatal(err)
	}
	return string(b)
}

// copy is a new lab holding a copy of this one's repositories.
func (l *gitLab) copy(t *testing.T) *gitLab {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(l.dir)); err != nil {
		t.Fatal(err)
	}
	env := make([]string, len(l.env))
	for i, kv := range l.env {
		env[i] = strings.ReplaceAll(kv, l.dir, dir)
	}
	return &gitLab{t: t, dir: dir, env: env}
}

const gitWS = ".devrites/work/pay/"

// clonedWorkspace is a lab with a bare origin and two clones of it, a and
// b, sharing the workspace pay that a created with init --git (then
// changed with edit) and pushed; b has run git install.
func clonedWorkspace(t *testing.T, edit func(*gitLab)) *gitLab {
	l := newGitLab(t)
	l.run("", "git", "init", "-q", "--bare", "origin.git")
	l.run("", "git", "clone", "-q", "origin.git", "a")
	l.run("a", engineName, "init", "--git", "pay")
	edit(l)
	l.run("a", "git", "add", "-A")
	l.run("a", "git", "commit", "-q", "-m", "init")
	l.run("a", "git", "push", "-q", "origin", "main")
	l.run("", "git", "clone", "-q", "origin.git", "b")
	l.run("b", engineName, "git", "install")
	return l
}

// Two clones of one workspace, a and b, raise a question each at the same
// instant, so both get q-2026-11-29-001: a answers its question ("Which
// rounding rule?", option 2 "Half up") and pushes to main; b stays paused
// on its own ("Which currency?") and pushes to the branch paused.
func twoClones(t *testing.T, form string) *gitLab {
	l := clonedWorkspace(t, func(l *gitLab) {
		if form == "bullets-crlf" {
			l.write("a/"+gitWS+"state.md", strings.ReplaceAll("# State: pay\n\n- Phase: build\n- Status: running\n- Active slice: 1 — setup\n- Slice mode: AFK\n- Next step: /rite-build\n\n## Notes\nhand-written\n\n## Log\n- 2026-11-29T14:00:00Z build: started\n", "\n", "\r\n"))
			l.write("a/"+gitWS+"questions.md", "# Questions\r\n")
			l.write("a/"+gitWS+"decisions.md", "# Decisions\r\n")
		}
	})

	l.run("a", engineName, "question", "raise", "--gate", "blocking", "--question", "Which rounding rule?",
		"--option", "Banker's", "--option", "Half up", "--slice", "3 — payments")
	l.run("a", engineName, "state", "resolve", "q-2026-11-29-001", "2")
	l.run("a", "git", "commit", "-q", "-a", "-m", "answered")
	l.run("a", "git", "push", "-q", "origin", "main")

	l.run("b", engineName, "question", "raise", "--gate", "blocking", "--question", "Which currency?",
		"--option", "EUR", "--option", "USD", "--slice", "4 — fx")
	l.run("b", "git", "commit", "-q", "-a", "-m", "paused")
	l.run("b", "git", "push", "-q", "origin", "main:paused")
	l.run("a", "git", "fetch", "-q")
	l.run("b", "git", "fetch", "-q")
	return l
}

// TestGitMergeRenumbers: the two clones' histories brought together by
// merge, pull, rebase and pull --rebase, in both directions, with
// merge-ort and merge-recursive (which run the drivers in opposite
// orders), in both forms of state.md: no conflict, two distinct ids (ours
// keeps 001, theirs' question becomes 002 with renumbered_from), the
// answer kept, the pause kept under its id in the result, the form and
// line endings of state.md kept, doctor clean.
func TestGitMergeRenumbers(t *testing.T) {
	for _, form := range []string{"table", "bullets-crlf"} {
		t.Run(form, func(t *testing.T) {
			lab := twoClones(t, form)
			for _, c := range []struct {
				name  string
				clone string // where it runs; ours is that clone's question
				args  []string
			}{
				{"merge-paused-ours", "b", []string{"merge", "--no-edit", "origin/main"}},
				{"merge-answered-ours", "a", []string{"merge", "--no-edit", "origin/paused"}},
				{"pull-paused-ours", "b", []string{"pull", "--no-edit"}},
				{"pull-answered-ours", "a", []string{"pull", "--no-edit", "origin", "paused"}},
				{"rebase-answered-ours", "b", []string{"rebase", "origin/main"}},
				{"rebase-paused-ours", "a", []string{"rebase", "origin/paused"}},
				{"pull-rebase-answered-ours", "b", []string{"pull", "--rebase"}},
				{"pull-rebase-paused-ours", "a", []string{"pull", "--rebase", "origin", "paused"}},
				{"recursive-paused-ours", "b", []string{"merge", "--no-edit", "-s", "recursive", "origin/main"}},
				{"recursive-answered-ours", "a", []string{"merge", "--no-edit", "-s", "recursive", "origin/paused"}},
			} {
				if form != "table" && !bulletCases[c.name] {
					continue // one of each kind is enough for the other form
				}
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					l := lab.copy(t)
					code, out, errs := l.exec(c.clone, "git", c.args...)
					if code != 0 {
						t.Fatalf("git %s: exit %d\n%s%s", strings.Join(c.args, " "), code, out, errs)
					}
					// In a rebase, ours is the branch rebased onto.
					answeredOurs := (c.clone == "a") != strings.Contains(c.name, "rebase")
					checkMerged(t, l, c.clone, form, answeredOurs)
				})
			}
		})
	}
}

// bulletCases are the cases run on the bullet form too.
var bulletCases = map[string]bool{"pull-paused-ours": true, "pull-answered-ours": true,
	"pull-rebase-answered-ours": true, "recursive-answered-ours": true}

func checkMerged(t *testing.T, l *gitLab, clone, form string, answeredOurs bool) {
	t.Helper()
	if st := l.run(clone, "git", "status", "--porcelain"); st != "" {
		t.Errorf("git status after the merge:\n%s", st)
	}
	files := map[string]string{}
	for _, f := range []string{mdstore.QuestionsFile, mdstore.StateFile, mdstore.DecisionsFile} {
		files[f] = l.read(clone + "/" + gitWS + f)
		for _, m := range []string{"<<<<<<<", ">>>>>>>", "\n=======\n"} {
			if strings.Contains(files[f], m) {
				t.Errorf("%s has a conflict marker %q:\n%s", f, m, files[f])
			}
		}
		if form == "bullets-crlf" && strings.Count(files[f], "\n") != strings.Count(files[f], "\r\n") {
			t.Errorf("%s: not CRLF throughout:\n%q", f, files[f])
		}
	}
	answered, paused := "q-2026-11-29-002", "q-2026-11-29-001"
	if answeredOurs {
		answered, paused = paused, answered
	}
	qs := mdstore.ParseQuestions([]byte(files[mdstore.QuestionsFile]))
	if n := len(qs.Blocks()); n != 2 {
		t.Fatalf("questions.md has %d blocks, want 2:\n%s", n, files[mdstore.QuestionsFile])
	}
	for id, want := range map[string][3]string{
		answered: {"Which rounding rule?", "answered", "Half up"},
		paused:   {"Which currency?", "open", ""},
	} {
		b := qs.Find(id)
		if b == nil {
			t.Fatalf("no %s in questions.md:\n%s", id, files[mdstore.QuestionsFile])
		}
		got := [3]string{b.Value("question"), b.Value("status"), b.Value("answer")}
		if got != want {
			t.Errorf("%s: question, status, answer = %q, want %q", id, got, want)
		}
		from, renamed := b.Get("renumbered_from")
		if theirs := id == "q-2026-11-29-002"; theirs != renamed || renamed && from != "q-2026-11-29-001" {
			t.Errorf("%s: renumbered_from = %q (%v), want it on theirs' block only", id, from, renamed)
		}
	}
	st := mdstore.ParseState([]byte(files[mdstore.StateFile]))
	if got := st.AwaitingQID(); got != paused {
		t.Errorf("state.md awaits %q, want %q:\n%s", got, paused, files[mdstore.StateFile])
	}
	if v, _ := st.Get("status"); v != "awaiting_human" {
		t.Errorf("state.md status %q, want awaiting_human", v)
	}
	if v, _ := st.Get("next_action"); !strings.Contains(v, paused) {
		t.Errorf("state.md next_action %q, want it to name %s", v, paused)
	}
	wantForm := mdstore.Table
	if form == "bullets-crlf" {
		wantForm = mdstore.Bullets
		if !strings.Contains(files[mdstore.StateFile], "## Notes\r\nhand-written\r\n") {
			t.Errorf("state.md lost its Notes section:\n%s", files[mdstore.StateFile])
		}
	}
	if st.Encoding() != wantForm {
		t.Errorf("state.md is in %s form, want %s", st.Encoding(), wantForm)
	}
	if !strings.Contains(files[mdstore.DecisionsFile], "answer: Half up") {
		t.Errorf("decisions.md lost the answer:\n%s", files[mdstore.DecisionsFile])
	}
	code, out, errs := l.exec(clone, engineName, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Findings) != 0 {
		t.Errorf("doctor: exit %d, %v, findings %+v, want exit 0 and none\n%s", code, err, rep.Findings, errs)
	}
}

// TestGitRebaseReplaysEachCommit: a clone raises a question and answers it
// in two commits, the other records an answered question under the same
// id; rebased either way, each replayed commit merges on its own, the
// answer of the second commit reaches the block the first one's replay
// renumbered, and decisions.md names each decision by the id its block
// has in the result.
func TestGitRebaseReplaysEachCommit(t *testing.T) {
	l := clonedWorkspace(t, func(*gitLab) {})

	l.run("a", engineName, "question", "raise", "--gate", "blocking", "--question", "Which rounding rule?",
		"--option", "Banker's", "--option", "Half up")
	l.run("a", "git", "commit", "-q", "-a", "-m", "raised")
	l.run("a", engineName, "state", "resolve", "q-2026-11-29-001", "2")
	l.run("a", "git", "commit", "-q", "-a", "-m", "answered")
	l.run("a", "git", "push", "-q", "origin", "main")

	l.run("b", engineName, "question", "raise", "--gate", "advisory", "--question", "Log level?",
		"--option", "info", "--answered", "debug")
	l.run("b", "git", "commit", "-q", "-a", "-m", "recorded")
	l.run("b", "git", "push", "-q", "origin", "main:recorded")
	l.run("a", "git", "fetch", "-q")
	l.run("b", "git", "fetch", "-q")

	for _, c := range []struct {
		name, clone, onto string
		ours              string // the question that keeps q-2026-11-29-001
	}{
		{"two-commits-replayed", "a", "origin/recorded", "Log level?"},
		{"one-commit-replayed", "b", "origin/main", "Which rounding rule?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := l.copy(t)
			if code, out, errs := l.exec(c.clone, "git", "rebase", c.onto); code != 0 {
				t.Fatalf("git rebase %s: exit %d\n%s%s", c.onto, code, out, errs)
			}
			qs := mdstore.ParseQuestions([]byte(l.read(c.clone + "/" + gitWS + mdstore.QuestionsFile)))
			want := map[string]string{"Log level?": "debug", "Which rounding rule?": "Half up"}
			decisions := l.read(c.clone + "/" + gitWS + mdstore.DecisionsFile)
			for _, b := range qs.Blocks() {
				question := b.Value("question")
				if b.Value("status") != "answered" || b.Value("answer") != want[question] {
					t.Errorf("%s (%s): status %q, answer %q, want answered %q", b.QID, question, b.Value("status"), b.Value("answer"), want[question])
				}
				if (b.QID == "q-2026-11-29-001") != (question == c.ours) {
					t.Errorf("%s is %q, want ours' question %q under q-2026-11-29-001", b.QID, question, c.ours)
				}
				at := strings.Index(decisions, "## "+b.QID+" answered\n")
				if at < 0 {
					t.Errorf("decisions.md has no entry for %s:\n%s", b.QID, decisions)
					continue
				}
				entry := decisions[at:]
				if next := strings.Index(entry[3:], "\n## "); next >= 0 {
					entry = entry[:next+3]
				}
				if !strings.Contains(entry, "question: "+question+"\n") {
					t.Errorf("decisions.md's entry for %s is another question's:\n%s", b.QID, entry)
				}
			}
			if n := len(qs.Blocks()); n != 2 {
				t.Errorf("questions.md has %d blocks, want 2", n)
			}
			st := mdstore.ParseState([]byte(l.read(c.clone + "/" + gitWS + mdstore.StateFile)))
			if v, _ := st.Get("status"); v != "running" || st.AwaitingQID() != "" {
				t.Errorf("state.md: status %q, awaiting %q, want running and nothing", v, st.AwaitingQID())
			}
			code, out, errs := l.exec(c.clone, engineName, "doctor", "--json")
			var rep doctor.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Findings) != 0 {
				t.Errorf("doctor: exit %d, %v, findings %+v, want exit 0 and none\n%s", code, err, rep.Findings, errs)
			}
		})
	}
}
