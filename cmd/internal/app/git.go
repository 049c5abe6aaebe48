package app

// git: the commands of the git merge driver (package merge/gitdriver):
// git install, init --git and merge-driver, which git runs.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/merge/gitdriver"
	"github.com/devrites/devrites-engine/question"
)

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

// gitText is what git install did, in words.
func gitText(g *gitdriver.Installed) string {
	var b strings.Builder
	if len(g.Added) == 0 {
		fmt.Fprintf(&b, "%s: already sends the workspace files to the %s merge driver\n", g.Attributes, gitdriver.Name)
	} else {
		fmt.Fprintf(&b, "%s: added %s\n", g.Attributes, question.Plural(len(g.Added), "line"))
	}
	state := "already set"
	if g.Configured {
		state = "set"
	}
	fmt.Fprintf(&b, "git config merge.%s.driver %s: %s\n", gitdriver.Name, state, g.Driver)
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
	e.print(g, gitText(g))
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
			e.print(g, gitText(g))
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
	top, err := gitdriver.Top(ctx, dir)
	return top, inWords(err, dir)
}

// installGit installs the driver, this program, for the project dir.
func installGit(ctx context.Context, dir string) (*gitdriver.Installed, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program's path for the driver: %w", err)
	}
	g, err := gitdriver.Install(ctx, dir, exe)
	return g, inWords(err, dir)
}

// inWords gives a directory outside git its kind and a hint.
func inWords(err error, dir string) error {
	if errors.Is(err, gitdriver.ErrNotWorkTree) {
		return mdstore.Errorf(mdstore.ErrNoWorkspace, "%s is not in a git work tree", dir).Hint("create the repository first (git init), or pass --root")
	}
	return err
}

func cmdMergeDriver(c *cli.Context) error {
	if c.NArg() != 4 {
		return mdstore.Errorf(engine.ErrBadArgs, "want the four arguments %%O %%A %%B %%P from git, got %s", question.Plural(c.NArg(), "argument")).
			Hint("git runs it: merge." + gitdriver.Name + ".driver = devrites-engine merge-driver %O %A %B %P (set by git install)")
	}
	a := c.Args().Slice()
	if code := gitdriver.Run(c.Context, a[0], a[1], a[2], a[3], c.App.ErrWriter); code != 0 {
		return status(code)
	}
	return nil
}
