package serve

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// maxClients bounds the buckets kept; past it, buckets that have refilled
// are forgotten (a full bucket is what a new client gets anyway).
const maxClients = 4096

// limiter is a token bucket per client address: each request takes a
// token, and tokens come back at rate a second up to burst.
type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	clients map[string]*bucket
	now     func() time.Time // the wall clock; tests replace it
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst int) *limiter {
	return &limiter{rate: rate, burst: float64(burst), clients: map[string]*bucket{}, now: time.Now}
}

// allow takes a token for the client, or says how long until there is one.
func (l *limiter) allow(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.clients[client]
	if !ok {
		if len(l.clients) >= maxClients {
			l.forget(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.clients[client] = b
	}
	if d := now.Sub(b.last); d > 0 {
		b.tokens = math.Min(l.burst, b.tokens+d.Seconds()*l.rate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// forget drops the buckets that have refilled; when none has, all of them.
func (l *limiter) forget(now time.Time) {
	for c, b := range l.clients {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.clients, c)
		}
	}
	if len(l.clients) >= maxClients {
		clear(l.clients)
	}
}

// limited answers 429, with Retry-After, to a client past its rate. The
// client is the address the connection comes from: a proxy in front of the
// server makes every person one client.
func (s *Server) limited(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			client = r.RemoteAddr
		}
		if ok, wait := s.limit.allow(client); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
			s.fail(w, r, http.StatusTooManyRequests, "Too many requests", "Wait a moment, then try again.")
			return
		}
		h.ServeHTTP(w, r)
	})
}
