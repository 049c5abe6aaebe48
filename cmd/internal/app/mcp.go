package app

import (
	"errors"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mcp"
	"github.com/devrites/devrites-engine/mdstore"
)

func mcpCommands() []*cli.Command {
	return []*cli.Command{{
		Name:   "mcp",
		Usage:  "serve the workspace to an agent's harness over the Model Context Protocol (stdio)",
		Action: cmdMCP,
	}}
}

func cmdMCP(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	opts := mcp.Options{Open: e.openServing, Version: version(),
		Describe: func(cmd string, err error) mcp.Failure { return failure(&cmdError{cmd, err}) }}
	err = mcp.Serve(e.ctx, opts, io.NopCloser(e.stdin), nopCloser{e.stdout})
	if errors.Is(err, io.EOF) || errors.Is(err, e.ctx.Err()) {
		return nil // the client closed the connection, or the program was told to stop
	}
	return err
}

// openServing opens the engine for one request of a server: the workspace
// is found again, its files read as every command reads them but never
// mapped, and no memory budget is set (a server lives long).
func (e *env) openServing() (*engine.Engine, error) {
	ws, err := mdstore.Find(e.locator())
	if err != nil {
		return nil, err
	}
	return engine.Open(ws, e.now, e.c.Duration("lock-timeout"), os.Getenv("DEVRITES_ACTOR"))
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
