package mcp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/internal/loopback"
	"github.com/devrites/devrites-engine/mcp"
	"github.com/devrites/devrites-engine/mdstore"
)

// serveHTTP serves p's workspace over HTTP on a loopback port, with token,
// and returns the endpoint's URL.
func serveHTTP(t *testing.T, p *project, token string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- mcp.ServeHTTP(ctx, mcp.Options{
			Open: func() (*engine.Engine, error) {
				ws, err := mdstore.Find(mdstore.Locator{Root: p.dir})
				if err != nil {
					return nil, err
				}
				return engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "")
			},
			Describe: func(cmd string, err error) mcp.Failure { return mcp.Failure{Line: cmd + ": " + err.Error()} },
		}, ln, token)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + mcp.Path
}

// bearer adds headers to every request of a client.
type bearer struct {
	headers map[string]string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range b.headers {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTP: a client with the token raises and reads over Streamable
// HTTP; without it, with another token, another Host or another Origin,
// every request is refused with 401 or 403 and nothing is written.
func TestHTTP(t *testing.T) {
	p := newProject(t)
	token := mcp.NewToken()
	url := serveHTTP(t, p, token)

	c := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{map[string]string{"Authorization": "Bearer " + token}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := call[mcp.RaiseOutput](t, cs, "raise_question", rounding)
	if out.Outcome != "paused" {
		t.Fatalf("raise over HTTP: %+v", out)
	}

	before := p.files()
	raise := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"relay_answer","arguments":{"qid":"` + out.QID + `","choice":1}}}`
	for _, tc := range []struct {
		name    string
		headers map[string]string
		code    int
	}{
		{"no token", map[string]string{}, http.StatusUnauthorized},
		{"another token", map[string]string{"Authorization": "Bearer " + mcp.NewToken()}, http.StatusUnauthorized},
		{"the token without Bearer", map[string]string{"Authorization": token}, http.StatusUnauthorized},
		{"a rebound name", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example:80"}, http.StatusForbidden},
		{"another origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(raise))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		// The session's own id: without the guard the call would be served.
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
		res, err := (&http.Client{Transport: bearer{tc.headers}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.code {
			t.Errorf("%s: status %d (%s), want %d", tc.name, res.StatusCode, body, tc.code)
		}
	}
	after := p.files()
	for path, b := range before {
		if after[path] != b {
			t.Errorf("%s changed by a refused request", path)
		}
	}
	if got := call[mcp.CheckOutput](t, cs, "check", nil); got.Verdict != "stop" {
		t.Errorf("the question was answered by a refused request: %+v", got)
	}
}

// TestHTTPLoopbackOnly: a listener on another address is refused.
func TestHTTPLoopbackOnly(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "127.0.0.2": true, "::1": true, "[::1]": true, "localhost": true, "LocalHost": true,
		"0.0.0.0": false, "": false, "192.168.1.2": false, "example.com": false, "::": false} {
		if got := loopback.Is(host); got != want {
			t.Errorf("loopback.Is(%q) = %v, want %v", host, got, want)
		}
	}
	if a, b := mcp.NewToken(), mcp.NewToken(); a == b || len(a) != 64 {
		t.Error("tokens are not new 32-byte values")
	}
}
