package app

import (
	"errors"
	"io"
	"net"
	"os"
	"os/signal"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/internal/loopback"
	"github.com/devrites/devrites-engine/mcp"
	"github.com/devrites/devrites-engine/mdstore"
)

func mcpCommands() []*cli.Command {
	return []*cli.Command{{
		Name:  "mcp",
		Usage: "serve the workspace to an agent's harness over the Model Context Protocol (stdio, or HTTP on loopback)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "serve Streamable HTTP on this loopback address, e.g. 127.0.0.1:7879, instead of stdio"},
		},
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
	if c.IsSet("listen") {
		return serveMCPHTTP(e, opts, c.String("listen"))
	}
	err = mcp.Serve(e.ctx, opts, io.NopCloser(e.stdin), nopCloser{e.stdout})
	if errors.Is(err, io.EOF) || errors.Is(err, e.ctx.Err()) {
		return nil // the client closed the connection, or the program was told to stop
	}
	return err
}

// serveMCPHTTP serves MCP over HTTP on a loopback address until SIGINT or
// SIGTERM, with a token made for this run, printed first.
func serveMCPHTTP(e *env, opts mcp.Options, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !loopback.Is(host) {
		return mdstore.Errorf(engine.ErrBadArgs, "--listen %s: only a loopback address is served", addr).
			Hint("give 127.0.0.1:PORT, [::1]:PORT or localhost:PORT")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, stopSignals...)
	defer stop()
	url, token := "http://"+ln.Addr().String()+mcp.Path, mcp.NewToken()
	e.quiet = false // the token is what the client needs: printed whatever --quiet says
	e.print(map[string]string{"url": url, "token": token},
		"serving MCP on "+url+"\ntoken: "+token+"\nevery request carries it: Authorization: Bearer <token>; it changes at each start")
	return mcp.ServeHTTP(ctx, opts, ln, token)
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
