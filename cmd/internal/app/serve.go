package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/mdstore"
)

// ServeProgram is the program that runs `serve`: the web server is kept out
// of devrites-engine, whose every command would otherwise start slower and
// larger with net/http, TLS and the page templates linked in.
const ServeProgram = "devrites-engine-serve"

// ServeRequest is `serve` with its options read and its projects found.
type ServeRequest struct {
	Roots           []string // project directories
	Listen          string   // host:port
	AllowRemote     bool
	TLSCert, TLSKey string
	LockTimeout     time.Duration
	Now             func() time.Time
	JSON, Quiet     bool
	Stdout, Stderr  io.Writer
}

// serving is what Run was given for `serve`: the function that serves, or
// nil, and the command line to hand over when it is nil.
type serving struct {
	serve func(context.Context, *ServeRequest) error
	args  []string
}

// serveCommands is `serve`: the inbox and answer pages for people away
// from the terminal (package serve, in the devrites-engine-serve program).
func serveCommands() []*cli.Command {
	return []*cli.Command{{
		Name:  "serve",
		Usage: "serve the open questions of the project's workspaces to a browser, to be answered from anywhere",
		Description: "The server is the program " + ServeProgram + ", found beside devrites-engine (symbolic links\n" +
			"followed), else on PATH: go install ./cmd/devrites-engine-serve installs it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7878", Usage: "host:port to listen on (loopback unless --allow-remote)"},
			&cli.StringSliceFlag{Name: "root", Usage: "a project to serve (repeatable; default: the project found as other commands find it)"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "listen on an address other than loopback (with a warning)"},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with this PEM certificate (with --tls-key)"},
			&cli.StringFlag{Name: "tls-key", Usage: "the PEM private key of --tls-cert"},
		},
		Action: cmdServe,
	}}
}

func cmdServe(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	roots, err := serveRoots(c)
	if err != nil {
		return err
	}
	s := c.App.Metadata["serve"].(serving)
	if s.serve == nil {
		return handOver(s.args)
	}
	return s.serve(e.ctx, &ServeRequest{Roots: roots, Listen: c.String("listen"), AllowRemote: c.Bool("allow-remote"),
		TLSCert: c.String("tls-cert"), TLSKey: c.String("tls-key"), LockTimeout: c.Duration("lock-timeout"),
		Now: e.now, JSON: e.json, Quiet: e.quiet, Stdout: e.stdout, Stderr: e.stderr})
}

// handOver replaces this process with the serve program, given the same
// command line, once the options have been checked here. The program is
// started under its own name: a devrites-engine started under that name has
// no web server, and refuses rather than hand over to itself forever.
func handOver(args []string) error {
	const install = "install it: go install github.com/devrites/devrites-engine/cmd/devrites-engine-serve@latest"
	if filepath.Base(args[0]) == ServeProgram {
		return mdstore.WithHint(fmt.Errorf("%s is a copy of devrites-engine, not the serve program", args[0]), install)
	}
	path, where := servePath()
	if path == "" {
		return mdstore.WithHint(fmt.Errorf("the serve program %s is %s", ServeProgram, where), install)
	}
	argv := append([]string{ServeProgram}, args[1:]...)
	return fmt.Errorf("%s: %w", path, syscall.Exec(path, argv, os.Environ())) // Exec returns only on failure
}

// servePath finds the serve program beside this binary (symbolic links
// followed), else on PATH. When it is not found, where says where it was
// looked for.
func servePath() (path, where string) {
	where = "not on PATH"
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), ServeProgram)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return p, ""
			}
			where = "neither beside " + self + " nor on PATH"
		}
	}
	if p, err := exec.LookPath(ServeProgram); err == nil {
		return p, ""
	}
	return "", where
}

// serveRoots are the projects to serve: serve's own --root flags, else the
// project the global options (or the walk up) find.
func serveRoots(c *cli.Context) ([]string, error) {
	if roots := c.StringSlice("root"); len(roots) > 0 {
		return roots, nil
	}
	// serve's --root is its own (a global --root given to serve is that
	// one): the project is found from --workspace, else as other commands
	// find it.
	loc := locate(c.String("workspace"), "", c.String("slug"))
	devrites, err := devritesOf(loc, "serve serves projects: pass --root with the directory holding .devrites")
	if err != nil {
		return nil, err
	}
	return []string{filepath.Dir(devrites)}, nil
}
