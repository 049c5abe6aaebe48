package gitdriver

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/merge"
)

// siblingPlan computes the renumbering of the questions.md beside p from
// its three versions in the commits being merged, which it finds by the
// versions of p that git gave the driver: each is read once, and a commit's
// p is compared with it by SHA-256. The ids of the project's other
// workspaces are reserved (see reserved).
func siblingPlan(ctx context.Context, p string, base, ours, theirs merge.Source) (*merge.Renumbering, error) {
	g, err := newCatFile(ctx)
	if err != nil {
		return nil, err
	}
	defer g.close()
	revs, mergeBase, err := findRevs(ctx, g, p, base, ours, theirs)
	if err != nil {
		return nil, err
	}
	sib := path.Join(path.Dir(filepath.ToSlash(p)), mdstore.QuestionsFile)
	var qs [3]merge.Source
	for i, rev := range revs {
		if i == 0 && rev == "" {
			continue // no common history: no base
		}
		qs[i] = merge.Reader(func() ([]byte, error) {
			b, _, err := g.blob(rev + ":" + sib)
			return b, err
		})
	}
	return merge.PlanIn(qs[0], qs[1], qs[2], reserved(ctx, g, path.Dir(filepath.ToSlash(p)), revs[2], mergeBase))
}

// findRevs finds the commits (base, ours, theirs) whose versions of p are
// the ones git gave the driver; ours is "" for the index, and the base ""
// when there is no common history. mergeBase is the first merge base of
// HEAD and theirs, "" when there is none.
func findRevs(ctx context.Context, g *catFile, p string, base, ours, theirs merge.Source) (revs [3]string, mergeBase string, err error) {
	type version struct {
		sum   [32]byte
		empty bool
	}
	var vs [3]version
	for i, src := range []merge.Source{base, ours, theirs} {
		b, err := src.Bytes()
		if err != nil {
			return revs, "", err
		}
		vs[i] = version{sha256.Sum256(b), len(b) == 0}
	}
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
		return revs, "", fmt.Errorf("cannot tell which commit is ours: HEAD's %s is not the one git merges", p)
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
		return revs, "", fmt.Errorf("cannot tell which commit is theirs, to read its %s", sib)
	}
	var bases []string
	for i := 1; i <= 8; i++ {
		bases = append(bases, theirsRev+"^"+strconv.Itoa(i))
	}
	mergeBases := []string(nil)
	if out, err := output(ctx, "", "merge-base", "--all", "HEAD", theirsRev); err == nil {
		mergeBases = strings.Fields(string(out))
	}
	baseRev := ""
	for _, rev := range append(bases, mergeBases...) {
		if !vs[0].empty && is(rev, vs[0]) {
			baseRev = rev
			break
		}
	}
	if len(mergeBases) > 0 {
		mergeBase = mergeBases[0]
	}
	if baseRev == "" {
		baseRev = mergeBase // a virtual base: the first real one stands for it
	}
	return [3]string{baseRev, oursRev, theirsRev}, mergeBase, nil
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
	if out, err := output(ctx, "", "rev-parse", "--absolute-git-dir"); err == nil {
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
	out, err := output(ctx, "", "rev-list", "--all", "--max-count=200", "--", p)
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
