package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// GitFindings reports what makes git merge the workspace files line by
// line although .gitattributes sends them to a merge driver: a driver that
// this clone's git config does not define (config is not versioned: a
// fresh clone has none), or one whose program is gone. Outside a git work
// tree, or without git, it finds nothing.
func GitFindings(ctx context.Context, ws *mdstore.Workspace) []Finding {
	if !inGitTree(ws.Dir) {
		return nil
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	files := []string{mdstore.QuestionsFile, mdstore.StateFile, mdstore.DecisionsFile}
	cmd := exec.CommandContext(ctx, git, append([]string{"check-attr", "merge", "--"}, files...)...)
	cmd.Dir = ws.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	// "questions.md: merge: devrites"; set, unset, text, binary and union
	// are git's own.
	drivers := map[string][]string{}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.SplitN(l, ": ", 3)
		if len(f) != 3 || f[1] != "merge" {
			continue
		}
		switch v := f[2]; v {
		case "unspecified", "set", "unset", "text", "binary", "union":
		default:
			if _, ok := drivers[v]; !ok {
				names = append(names, v)
			}
			drivers[v] = append(drivers[v], f[0])
		}
	}
	var found []Finding
	for _, name := range names {
		which := strings.Join(drivers[name], ", ")
		cmd := exec.CommandContext(ctx, git, "config", "--get", "merge."+name+".driver")
		cmd.Dir = ws.Dir
		out, _ := cmd.Output()
		driver := strings.TrimSpace(string(out))
		if driver == "" {
			found = append(found, Finding{Severity: SevWarning, Kind: "git", File: drivers[name][0],
				Problem: fmt.Sprintf(".gitattributes sends %s to the merge driver %q, which this clone's git config does not define: git merges them line by line", which, name),
				Mend:    "run: devrites-engine git install (once in every clone)"})
			continue
		}
		if missing := driverMissing(driver); missing != "" {
			found = append(found, Finding{Severity: SevWarning, Kind: "git", File: drivers[name][0],
				Problem: fmt.Sprintf("merge.%s.driver runs %s, which does not exist: git cannot merge %s", name, missing, which),
				Mend:    "run: devrites-engine git install (it records the path of the binary that runs it)"})
		}
	}
	return found
}

// inGitTree reports whether dir is inside a git work tree, by a .git
// above it (or GIT_DIR).
func inGitTree(dir string) bool {
	if os.Getenv("GIT_DIR") != "" {
		return true
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// driverMissing returns the program a driver command runs when it is an
// absolute path that does not exist, else "".
func driverMissing(driver string) string {
	prog := driver
	if strings.HasPrefix(prog, "'") {
		if end := strings.Index(prog[1:], "'"); end >= 0 && !strings.Contains(prog[1:end+1], `\`) {
			prog = prog[1 : end+1]
		} else {
			return "" // quoting too rich to judge
		}
	} else if f := strings.Fields(prog); len(f) > 0 {
		prog = f[0]
	}
	if !filepath.IsAbs(prog) {
		return ""
	}
	if _, err := os.Stat(prog); err != nil {
		return prog
	}
	return ""
}
