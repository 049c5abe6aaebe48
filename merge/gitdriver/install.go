package gitdriver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// Name is the merge driver's name in .gitattributes and git config.
const Name = "devrites"

// Files are the workspace files the driver merges.
var Files = []string{mdstore.QuestionsFile, mdstore.StateFile, mdstore.DecisionsFile}

// ErrNotWorkTree is returned when a directory is not in a git work tree.
var ErrNotWorkTree = errors.New("not in a git work tree")

// Installed is what Install did.
type Installed struct {
	Repository string   `json:"repository"`
	Attributes string   `json:"gitattributes"`
	Added      []string `json:"added"`  // lines added to .gitattributes
	Driver     string   `json:"driver"` // merge.devrites.driver
	Configured bool     `json:"configured"`
}

// Top is the top of the work tree dir is in; an error wrapping
// ErrNotWorkTree when there is none.
func Top(ctx context.Context, dir string) (string, error) {
	out, err := output(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s is %w", dir, ErrNotWorkTree)
		}
		return "", fmt.Errorf("running git: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func output(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	return cmd.Output()
}

// ActiveFile is the .devrites file naming the clone's active feature,
// which the driver never merges: each clone keeps its own.
const ActiveFile = "ACTIVE"

// AttributeLines are the .gitattributes lines Install writes, relative to
// the directory that holds .devrites.
func AttributeLines() []string {
	var out []string
	for _, f := range Files {
		out = append(out, ".devrites/**/"+f+" merge="+Name)
	}
	return append(out, ".devrites/"+ActiveFile+" merge="+Name)
}

// Install writes the attributes into dir/.gitattributes and the driver,
// the program exe, into the repository's config; what is already there is
// left as it is, so that running it again changes nothing.
func Install(ctx context.Context, dir, exe string) (*Installed, error) {
	top, err := Top(ctx, dir)
	if err != nil {
		return nil, err
	}
	g := &Installed{Repository: top, Attributes: filepath.Join(dir, ".gitattributes"), Added: []string{},
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
	for _, l := range AttributeLines() {
		if !have[l] {
			g.Added = append(g.Added, l)
		}
	}
	if len(g.Added) > 0 {
		_, _, nl := mdstore.Form(string(old)) // the file's own line ending
		data := bytes.Clone(old)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, nl...)
		}
		if len(g.Added) == len(AttributeLines()) {
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
		{"merge." + Name + ".name", "devrites-engine: questions.md, state.md and decisions.md by question and field"},
		{"merge." + Name + ".driver", g.Driver},
	} {
		cur, _ := output(ctx, dir, "config", "--local", "--get", kv[0])
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
