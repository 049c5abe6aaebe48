package app

import (
	"encoding/json"
	"fmt"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/serve"
)

// serveCommands is `serve`: the inbox and answer pages for people away
// from the terminal (package serve).
func serveCommands() []*cli.Command {
	return []*cli.Command{{
		Name:  "serve",
		Usage: "serve the open questions of the project's workspaces to a browser, to be answered from anywhere",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: serve.DefaultListen, Usage: "host:port to listen on (loopback unless --allow-remote)"},
			&cli.StringSliceFlag{Name: "root", Usage: "a project to serve (repeatable; default: the project found as other commands find it)"},
			&cli.BoolFlag{Name: "allow-remote", Usage: "listen on an address other than loopback (with a warning)"},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with this PEM certificate (with --tls-key)"},
			&cli.StringFlag{Name: "tls-key", Usage: "the PEM private key of --tls-cert"},
		},
		Action: cmdServe,
	}}
}

// cmdServe serves until SIGINT or SIGTERM: requests in flight finish,
// live-update streams end, and the command exits 0.
func cmdServe(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	roots, err := serveRoots(c)
	if err != nil {
		return err
	}
	l := serve.Listen{Addr: c.String("listen"), AllowRemote: c.Bool("allow-remote"), TLSCert: c.String("tls-cert"), TLSKey: c.String("tls-key")}
	checked, err := l.Check()
	if err != nil {
		return err
	}
	var logMu sync.Mutex
	s, err := serve.New(serve.Config{Roots: roots, Now: e.now, LockTimeout: c.Duration("lock-timeout"),
		AllowRemote: l.AllowRemote, TLS: l.TLSCert != "",
		Logf: func(format string, args ...any) {
			logMu.Lock()
			defer logMu.Unlock()
			fmt.Fprintf(e.stderr, "devrites-engine: serve: %s %s\n", qid.Timestamp(e.now()), fmt.Sprintf(format, args...))
		}})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, stopSignals...)
	defer stop()
	return serve.ListenAndServe(ctx, s, checked, func(base string) {
		PrintWarnings(e.stderr, checked.Warnings)
		inbox := base + s.InboxPath()
		if e.json {
			_ = json.NewEncoder(e.stdout).Encode(map[string]any{"url": base, "inbox": inbox, "roots": roots})
			return
		}
		if !e.quiet {
			fmt.Fprintf(e.stdout, "serving the workspaces of %s\ninbox: %s\n", strings.Join(roots, ", "), inbox)
		}
	})
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
