package standin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// maxBody bounds what a stand-in reads of a request.
const maxBody = 1 << 20

// service is what every stand-in is built on: an HTTP server on
// loopback, the Down and Delay switches, and a wake channel closed and
// replaced on every change, so that a waiter sees each one.
type service struct {
	URL   string
	Down  atomic.Bool  // answer every request as the service does when down
	Delay atomic.Int64 // nanoseconds to wait before each answer

	name string // in the errors of its waits
	srv  *httptest.Server
	mu   sync.Mutex    // guards the stand-in's state and wake
	wake chan struct{} // closed and replaced by changed
	quit chan struct{} // closed by Close: every wait and paused request ends
}

// start serves on loopback: each request waits Delay, is answered by
// down while Down is set, and by serve otherwise.
func (s *service) start(name string, serve, down http.HandlerFunc) {
	s.name, s.wake, s.quit = name, make(chan struct{}), make(chan struct{})
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.pause(r) {
			return
		}
		if s.Down.Load() {
			down(w, r)
			return
		}
		serve(w, r)
	}))
	s.URL = s.srv.URL
}

// Close stops the server; every wait ends.
func (s *service) Close() { close(s.quit); s.srv.Close() }

// changed wakes every waiter; called under mu.
func (s *service) changed() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// until waits up to timeout for ok, which is called under mu.
func (s *service) until(timeout time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		s.mu.Lock()
		done, wake := ok(), s.wake
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-wake:
		case <-s.quit:
			return fmt.Errorf("%s: closed while waiting for %s", s.name, what)
		case <-time.After(time.Until(deadline)):
			return fmt.Errorf("%s: no %s after %s", s.name, what, timeout)
		}
	}
}

// pause waits Delay before a request is answered, and reports whether it
// is to be answered: not when the client went or the stand-in is closing.
// The body is read first, so that the server notices a client that goes.
func (s *service) pause(r *http.Request) bool {
	d := time.Duration(s.Delay.Load())
	if d <= 0 {
		return true
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	r.Body = io.NopCloser(bytes.NewReader(b))
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
	case <-s.quit:
	}
	return false
}

// decode reads the request's JSON body into v.
func decode(r *http.Request, v any) error {
	return json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(v)
}

// writeJSON answers v as JSON with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}
