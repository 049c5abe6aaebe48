// Command devrites-engine-serve is `devrites-engine serve`: the inbox and
// answer pages for people away from the terminal (package serve). It is
// devrites-engine with the web server linked in; devrites-engine hands a
// `serve` command line over to it, so that its other commands start without
// net/http, TLS and the page templates. It takes every devrites-engine
// command, with the same output rules and exit codes.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/devrites/devrites-engine/cmd/internal/app"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/serve"
)

func main() {
	app.Main(app.Options{Serve: serveRequest})
}

// serveRequest serves until SIGINT or SIGTERM: requests in flight finish,
// live-update streams end, and the command exits 0.
func serveRequest(ctx context.Context, r *app.ServeRequest) error {
	l := serve.Listen{Addr: r.Listen, AllowRemote: r.AllowRemote, TLSCert: r.TLSCert, TLSKey: r.TLSKey}
	checked, err := l.Check()
	if err != nil {
		return err
	}
	var logMu sync.Mutex
	s, err := serve.New(serve.Config{Roots: r.Roots, Now: r.Now, LockTimeout: r.LockTimeout,
		AllowRemote: l.AllowRemote, TLS: l.TLSCert != "",
		Logf: func(format string, args ...any) {
			logMu.Lock()
			defer logMu.Unlock()
			fmt.Fprintf(r.Stderr, "devrites-engine: serve: %s %s\n", qid.Timestamp(r.Now()), fmt.Sprintf(format, args...))
		}})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve.ListenAndServe(ctx, s, checked, func(base string) {
		app.PrintWarnings(r.Stderr, checked.Warnings)
		inbox := base + s.InboxPath()
		if r.JSON {
			_ = json.NewEncoder(r.Stdout).Encode(map[string]any{"url": base, "inbox": inbox, "roots": r.Roots})
			return
		}
		if !r.Quiet {
			fmt.Fprintf(r.Stdout, "serving the workspaces of %s\ninbox: %s\n", strings.Join(r.Roots, ", "), inbox)
		}
	})
}
