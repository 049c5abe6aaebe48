//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// With -rss, the bench also measures the git merge driver on each file of
// the workspace, at each size: in a git repository of three commits (the
// awaiting form; ours answers the awaited question; theirs records an
// answered question of its own), it runs `merge-driver %O %A %B %P` as git
// would, in the repository with ours checked out and GITHEAD_<theirs> set,
// on the three versions of the file, and checks that it merged (exit 0).
// The 32 MB target is not the driver's: it may use more for simpler code.
func measureMergeRSS(engineBin string, runs int, ns []int, root string, env []string, out *os.File) error {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\nmerge-driver on\tquestions\tmedian\thighest\t\t")
	for _, n := range ns {
		repo := filepath.Join(root, fmt.Sprintf("merge-%d", n))
		theirs, err := mergeRepo(engineBin, repo, template(root, n, false), n, env, out)
		if err != nil {
			return err
		}
		for _, name := range []string{"questions.md", "state.md", "decisions.md"} {
			p := ".devrites/f/" + name
			for v, rev := range map[string]string{"O": "HEAD~1", "B": theirs, "ours": "HEAD"} {
				if err := gitShow(repo, env, rev+":"+p, filepath.Join(root, v)); err != nil {
					return err
				}
			}
			var rss []int64
			for range runs {
				if err := copyFile(filepath.Join(root, "ours"), filepath.Join(root, "A")); err != nil {
					return err
				}
				args := []string{engineBin, "merge-driver", filepath.Join(root, "O"), filepath.Join(root, "A"), filepath.Join(root, "B"), p}
				_, r, err := timedIn(repo, args, append(env, "GITHEAD_"+theirs+"=theirs"), out, 0)
				if err != nil {
					return err
				}
				rss = append(rss, r)
			}
			rssRow(tw, name, n, rss, false)
		}
	}
	return tw.Flush()
}

// mergeRepo makes the repository of the merge: the workspace of the
// template tmpl as the base, ours on main (checked out), theirs on the
// branch theirs, whose commit it returns.
func mergeRepo(engineBin, repo, tmpl string, n int, env []string, out *os.File) (string, error) {
	ws := filepath.Join(repo, ".devrites", "f")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return "", err
	}
	if err := copyForm(tmpl, ws); err != nil {
		return "", err
	}
	engine := func(args ...string) error {
		_, _, err := timedIn(repo, append([]string{engineBin, "--workspace", ws}, args...), env, out, 0)
		return err
	}
	steps := []func() error{
		func() error { return git(repo, env, nil, "init", "-q", "-b", "main") },
		func() error { return git(repo, env, nil, "add", "-A") },
		func() error { return git(repo, env, nil, "commit", "-qm", "base") },
		func() error { return git(repo, env, nil, "checkout", "-qb", "theirs") },
		func() error {
			return engine("question", "raise", "--slice", "3 — payments", "--gate", "advisory",
				"--question", "Which log level?", "--option", "info", "--option", "debug", "--answered", "info")
		},
		func() error { return git(repo, env, nil, "commit", "-qam", "theirs") },
		func() error { return git(repo, env, nil, "checkout", "-q", "main") },
		func() error { return engine("state", "resolve", qid(n), "1") },
		func() error { return git(repo, env, nil, "commit", "-qam", "ours") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return "", err
		}
	}
	var theirs strings.Builder
	err := git(repo, env, &theirs, "rev-parse", "theirs")
	return strings.TrimSpace(theirs.String()), err
}

// git runs git in repo, its output written to out (nil: discarded).
func git(repo string, env []string, out io.Writer, args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost"}, args...)...)
	var errb strings.Builder
	cmd.Env, cmd.Stdout, cmd.Stderr = env, out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return nil
}

// gitShow writes the blob spec names to the file to.
func gitShow(repo string, env []string, spec, to string) error {
	f, err := os.Create(to)
	if err != nil {
		return err
	}
	defer f.Close()
	return git(repo, env, f, "show", spec)
}
