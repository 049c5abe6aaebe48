package gitdriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/merge"
)

// Run merges the file git names: base o (%O), ours a (%A, where the result
// goes), theirs b (%B), for the repository path p (%P). What it did and
// why is said on stderr. It returns the exit code for git: 0 merged, 1
// conflict (markers written to a).
func Run(ctx context.Context, o, a, b, p string, stderr io.Writer) (code int) {
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
	// The versions are read when the merge asks, so that it never holds
	// all of them at once.
	var res merge.Result
	var err error
	switch path.Base(filepath.ToSlash(p)) {
	case mdstore.QuestionsFile:
		res, err = merge.QuestionsIn(merge.File(o), merge.File(a), merge.File(b), projectOf(ctx, p, o, a, b))
	case mdstore.StateFile, mdstore.DecisionsFile:
		var r *merge.Renumbering
		if r, err = siblingPlan(ctx, p, merge.File(o), merge.File(a), merge.File(b)); err != nil {
			return giveUp(err)
		}
		if path.Base(p) == mdstore.StateFile {
			res, err = merge.State(merge.File(o), merge.File(a), merge.File(b), r)
		} else {
			res, err = merge.Decisions(merge.File(o), merge.File(a), merge.File(b), r)
		}
	case ActiveFile:
		if path.Base(path.Dir(filepath.ToSlash(p))) != ".devrites" {
			return lineMerge(ctx, o, a, b, false)
		}
		// ACTIVE is each clone's own choice of feature (docs/git.md): the
		// clone's side stays and nothing conflicts. That is ours in a
		// merge, and theirs in a rebase, which replays the clone's own
		// commits onto the other side's.
		if !rebasing(ctx) {
			return 0 // a holds ours already
		}
		own, err := os.ReadFile(b)
		if err == nil {
			err = os.WriteFile(a, own, 0o644)
		}
		if err != nil {
			return giveUp(err)
		}
		return 0
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
	for _, rn := range res.Yielded {
		say("ours' %s is now %s (another feature of theirs has %s; renumbered_from: %s)", rn.From, rn.To, rn.From, rn.From)
	}
	if !res.Clean() {
		for _, c := range res.Conflicts {
			say("conflict: %s", c)
		}
		return 1
	}
	return 0
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

// rebasing reports whether git is replaying commits (rebase, either
// backend), where ours is the branch rebased onto and theirs the clone's
// own commit.
func rebasing(ctx context.Context) bool {
	out, err := output(ctx, "", "rev-parse", "--absolute-git-dir")
	if err != nil {
		return false
	}
	dir := strings.TrimSpace(string(out))
	for _, d := range []string{"rebase-merge", "rebase-apply"} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// projectOf is what the merge of the questions.md p knows of the rest of
// the project (see reserved); nothing when the commits cannot be found
// (a driver run by hand), and the file is then merged on its own.
func projectOf(ctx context.Context, p, o, a, b string) merge.Project {
	g, err := newCatFile(ctx)
	if err != nil {
		return merge.Project{}
	}
	defer g.close()
	revs, mergeBase, err := findRevs(ctx, g, p, merge.File(o), merge.File(a), merge.File(b))
	if err != nil {
		return merge.Project{}
	}
	return reserved(ctx, g, path.Dir(filepath.ToSlash(p)), revs[2], mergeBase)
}
