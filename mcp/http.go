package mcp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/internal/loopback"
)

// Path is where the HTTP server answers MCP requests.
const Path = "/mcp"

// NewToken is a bearer token for one run of the HTTP server: 32 random
// bytes, in hex.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ServeHTTP serves MCP's Streamable HTTP transport on ln, which must listen
// on loopback, at Path, until ctx ends. A request is served only when its
// Host header names a loopback address, its Origin (if any) is the
// server's own, and it carries token as a bearer token: else 403 or 401,
// before any tool is reached.
func ServeHTTP(ctx context.Context, opts Options, ln net.Listener, token string) error {
	if host, _, err := net.SplitHostPort(ln.Addr().String()); err != nil || !loopback.Is(host) {
		return errors.New("mcp: " + ln.Addr().String() + " is not a loopback address")
	}
	server := New(opts)
	mux := http.NewServeMux()
	mux.Handle(Path, guard(token, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// guard lets through only the requests ServeHTTP serves. The Host check
// defeats DNS rebinding (a page on evil.example whose name now points at
// 127.0.0.1 sends Host: evil.example); the Origin check, a page of
// another origin posting with a browser; the token, every other program
// of this machine and every page.
func guard(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopback.Is(loopback.HostOf(r.Host)) {
			http.Error(w, "forbidden: the Host header must name a loopback address", http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && origin != "http://"+r.Host {
			http.Error(w, "forbidden: requests from another origin are refused", http.StatusForbidden)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="devrites-engine mcp"`)
			http.Error(w, "unauthorized: send the token devrites-engine mcp printed at start: Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
