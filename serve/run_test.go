package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/gofrs/flock"
)

// The inbox token is made per run: after a restart the old inbox address,
// its cookie and its stream are refused, while a question's link (an HMAC
// under serve.key) keeps working until the question is final.
func TestInboxTokenPerRun(t *testing.T) {
	first := newFixture(t)
	w := first.get(first.s.InboxPath())
	if w.Code != http.StatusOK {
		t.Fatalf("got %d, want the inbox", w.Code)
	}
	cookie := w.Result().Cookies()[0]
	second := serveFixture(t, first.dir, Config{})
	if first.s.InboxPath() == second.s.InboxPath() {
		t.Fatalf("got the same inbox address %s twice, want one per run", first.s.InboxPath())
	}
	if w := second.get(first.s.InboxPath()); w.Code != http.StatusForbidden {
		t.Errorf("old inbox address after a restart: got %d, want 403", w.Code)
	}
	r := request(http.MethodGet, "/", nil)
	r.AddCookie(cookie)
	if w := second.serve(r); w.Code != http.StatusForbidden {
		t.Errorf("old inbox cookie after a restart: got %d, want 403", w.Code)
	}
	if w := second.get("/events?t=" + url.QueryEscape(first.s.inboxToken())); w.Code != http.StatusForbidden {
		t.Errorf("old inbox stream after a restart: got %d, want 403", w.Code)
	}
	if w := second.get(first.link("pay", q1)); w.Code != http.StatusOK {
		t.Errorf("question link after a restart: got %d, want 200", w.Code)
	}
	if w := second.get(second.s.InboxPath()); w.Code != http.StatusOK {
		t.Errorf("new inbox address: got %d, want 200", w.Code)
	}
	if w := second.post(first.link("pay", q1), answerForm(second.csrf("pay", q1), "answer", "1", "", "ann")); w.Code != http.StatusOK {
		t.Fatalf("answer: got %d, want 200:\n%s", w.Code, w.Body)
	}
	if w := second.get(first.link("pay", q1)); w.Code != http.StatusForbidden {
		t.Errorf("question link once answered: got %d, want 403", w.Code)
	}
}

// A form that gives a field twice is refused (which value was meant?), and
// nothing is recorded.
func TestFieldGivenTwice(t *testing.T) {
	f := newFixture(t)
	csrf := f.csrf("pay", q1)
	before := snapshot(t, f.dir)
	for name, second := range map[string]string{"choice": "2", "action": "drop", "by": "bob", "csrf": csrf} {
		t.Run(name, func(t *testing.T) {
			form := answerForm(csrf, "answer", "1", "", "ann")
			form.Add(name, second)
			w := f.post(f.link("pay", q1), form)
			if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "gives the field &#34;"+name+"&#34; 2 times") {
				t.Errorf("got %d, want 400 naming the field:\n%s", w.Code, w.Body)
			}
		})
	}
	unchanged(t, f.dir, before)
}

// No page or error shows where the files are: the schema that is too new,
// the missing state.md, the duplicated block and the held lock name the
// files relative to the project.
func TestPagesShowNoAbsolutePath(t *testing.T) {
	f := newFixture(t)
	ws := filepath.Join(f.dir, ".devrites", "work", "pay")
	state, _ := os.ReadFile(filepath.Join(ws, mdstore.StateFile))
	questions, _ := os.ReadFile(filepath.Join(ws, mdstore.QuestionsFile))
	restore := func() {
		_ = os.WriteFile(filepath.Join(ws, mdstore.StateFile), state, 0o644)
		_ = os.WriteFile(filepath.Join(ws, mdstore.QuestionsFile), questions, 0o644)
	}
	csrf := f.csrf("pay", q1)
	link := f.link("pay", q1) // made while the question reads: the cases spoil the files
	resolved, _ := filepath.EvalSymlinks(f.dir)
	for _, tc := range []struct {
		name, want string
		status     int
		spoil      func() (release func())
		post       bool
	}{
		{"schema-too-new", ".devrites/work/pay/state.md: schema 99", http.StatusConflict, func() func() {
			_ = os.WriteFile(filepath.Join(ws, mdstore.StateFile), []byte("| schema | 99 |\n"), 0o644)
			return restore
		}, false},
		{"missing-state", ".devrites/work/pay/state.md: missing", http.StatusNotFound, func() func() {
			_ = os.Remove(filepath.Join(ws, mdstore.StateFile))
			return restore
		}, false},
		{"duplicated-block", ".devrites/work/pay/questions.md", http.StatusConflict, func() func() {
			_ = os.WriteFile(filepath.Join(ws, mdstore.QuestionsFile), append(append([]byte{}, questions...), questions[strings.Index(string(questions), "## q-"):]...), 0o644)
			return restore
		}, false},
		{"lock-held", ".devrites/work/pay/", http.StatusServiceUnavailable, func() func() {
			lock := flock.New(filepath.Join(ws, mdstore.LockFile))
			if err := lock.Lock(); err != nil {
				t.Fatal(err)
			}
			return func() { _ = lock.Unlock() }
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := tc.spoil()
			defer release()
			var body string
			var code int
			if tc.post {
				w := f.post(link, answerForm(csrf, "answer", "1", "", "ann"))
				body, code = w.Body.String(), w.Code
			} else {
				w := f.get(link)
				body, code = w.Body.String(), w.Code
			}
			if code != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("got %d, want %d naming %q:\n%s", code, tc.status, tc.want, body)
			}
			if strings.Contains(body, f.dir) || strings.Contains(body, resolved) {
				t.Errorf("the page shows the project's absolute path %s:\n%s", f.dir, body)
			}
			inbox := f.get(f.s.InboxPath()).Body.String()
			if strings.Contains(inbox, f.dir) || strings.Contains(inbox, resolved) {
				t.Errorf("the inbox shows the project's absolute path %s:\n%s", f.dir, inbox)
			}
		})
	}
}

// serve stays available while one client is slow: a form sent one byte at
// a time is read outside the single request slot, so the inbox and a
// question page are answered meanwhile; and once the slow form is whole,
// it is recorded.
func TestSlowClientHoldsNobody(t *testing.T) {
	f := newFixture(t)
	base := startServer(t, f.s)
	form := answerForm(f.csrf("pay", q1), "answer", "1", "", "slow").Encode()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s",
		f.link("pay", q1), u.Host, len(form), form[:1])
	// The slow client has sent its headers and one byte. Others are served.
	client := &http.Client{Timeout: 10 * time.Second} // a bound, not a measure: without the fix they wait for good
	for _, target := range []string{f.s.InboxPath(), f.link("pay", q1)} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+target, nil)
		resp, err := client.Do(req)
		cancel()
		if err != nil {
			t.Fatalf("GET %s while a form is sent slowly: %v", target, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: got %d, want 200", target, resp.StatusCode)
		}
	}
	if _, err := conn.Write([]byte(form[1:])); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the slow form: got %d, want 200 (recorded)", resp.StatusCode)
	}
}

// A client that asks for a page and does not read it holds nobody up: the
// page is written after the request slot is released. The server's socket
// buffers are made small, as a congested network makes them, so the page
// does not fit in them.
func TestUnreadPageHoldsNobody(t *testing.T) {
	dir := newProject(t, "pay")
	raise(t, dir, "pay", rounding)
	for i := range 60 {
		provisional(t, dir, "pay", fmt.Sprintf("Question %d, long enough to make a page of some size? %s", i, strings.Repeat("words ", 60)))
	}
	f := serveFixture(t, dir, Config{})
	srv := httptest.NewUnstartedServer(f.s)
	srv.Listener.Close()
	srv.Listener = smallBuffers{listen(t)}
	srv.Start()
	t.Cleanup(func() { f.s.Close(); srv.Close() })
	u, _ := url.Parse(srv.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(2048)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", f.s.InboxPath(), u.Host)
	// The first bytes say its page is being written; nobody reads the rest.
	first := make([]byte, 12)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(conn, first); err != nil || string(first) != "HTTP/1.1 200" {
		t.Fatalf("got %q, %v, want the start of the inbox", first, err)
	}
	client := &http.Client{Timeout: 10 * time.Second} // a bound, not a measure: without the fix it waits for good
	resp, err := client.Get(srv.URL + f.link("pay", q1))
	if err != nil {
		t.Fatalf("GET a question while another client does not read its page: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("got %d, want 200", resp.StatusCode)
	}
}

// smallBuffers gives each accepted connection a small send buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(2048)
	}
	return c, err
}
