package serve

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxClients bounds the buckets kept; past it, buckets that have refilled
// are forgotten (a full bucket is what a new client gets anyway).
const maxClients = 4096

// limiter is a token bucket (golang.org/x/time/rate) per client address:
// each request takes a token, and tokens come back at rate a second up to
// burst.
type limiter struct {
	mu      sync.Mutex
	rate    rate.Limit
	burst   int
	clients map[string]*rate.Limiter
	now     func() time.Time // the wall clock; tests replace it
}

func newLimiter(r float64, burst int) *limiter {
	return &limiter{rate: rate.Limit(r), burst: burst, clients: map[string]*rate.Limiter{}, now: time.Now}
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
		b = rate.NewLimiter(l.rate, l.burst)
		l.clients[client] = b
	}
	res := b.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now) // a refused request takes no token
		return false, d
	}
	return true, 0
}

// forget drops the buckets that have refilled; when none has, all of them.
func (l *limiter) forget(now time.Time) {
	for c, b := range l.clients {
		if b.TokensAt(now) >= float64(l.burst) {
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
