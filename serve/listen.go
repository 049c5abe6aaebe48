package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/internal/loopback"
	"github.com/devrites/devrites-engine/mdstore"
)

// DefaultListen is the address served when none is given.
const DefaultListen = "127.0.0.1:7878"

// Listen says where and how to listen.
type Listen struct {
	Addr            string // host:port; DefaultListen when empty
	AllowRemote     bool   // serve an address other than loopback
	TLSCert, TLSKey string // PEM files; both or neither
}

// Checked is a Listen that Check accepted: the address, the TLS
// configuration (nil without a certificate), and the warnings a person
// must read.
type Checked struct {
	addr     string
	tls      *tls.Config
	Warnings []string
}

// Check refuses an address beyond this machine unless AllowRemote, and a
// certificate without its key or that does not load. For an address it
// allows beyond this machine it gives the warnings a person must read.
func (l Listen) Check() (*Checked, error) {
	if (l.TLSCert == "") != (l.TLSKey == "") {
		return nil, mdstore.Errorf(engine.ErrBadArgs, "--tls-cert and --tls-key go together")
	}
	c := &Checked{addr: l.Addr}
	if c.addr == "" {
		c.addr = DefaultListen
	}
	if l.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(l.TLSCert, l.TLSKey)
		if err != nil {
			return nil, mdstore.Errorf(engine.ErrBadArgs, "--tls-cert %s, --tls-key %s: %v", l.TLSCert, l.TLSKey, err)
		}
		c.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	host, port, err := net.SplitHostPort(c.addr)
	if err != nil || port == "" {
		return nil, mdstore.Errorf(engine.ErrBadArgs, "--listen %q: want host:port, such as %s", l.Addr, DefaultListen)
	}
	if loopback.Is(host) {
		return c, nil
	}
	where := c.addr
	if host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified() {
		where = c.addr + " (every interface of this machine)"
	}
	if !l.AllowRemote {
		return nil, mdstore.WithHint(mdstore.Errorf(engine.ErrBadArgs, "--listen %s is not a loopback address", where),
			"only 127.0.0.1, ::1 and localhost are served unless --allow-remote is given")
	}
	c.Warnings = append(c.Warnings, "serving "+where+" beyond this machine: whoever reaches it with a question's link can answer that question")
	if c.tls == nil {
		c.Warnings = append(c.Warnings, "without --tls-cert and --tls-key the links and answers cross the network unencrypted")
	}
	return c, nil
}

// ListenAndServe serves s where c says until ctx is done, then shuts down:
// live-update streams end at once, other requests get up to five seconds to
// finish. ready is called with the base URL once the address is bound. It
// returns nil after a clean shutdown.
func ListenAndServe(ctx context.Context, s *Server, c *Checked, ready func(base string)) error {
	addr, tlsConfig := c.addr, c.tls
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		TLSConfig:         tlsConfig,
		// The server's own complaints (a TLS handshake that failed, a
		// handler that panicked) go where the answers are logged.
		ErrorLog: log.New(logWriter(s.logf), "", 0),
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			errc <- srv.ServeTLS(ln, "", "")
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	if ready != nil {
		ready(scheme + "://" + ln.Addr().String())
	}
	select {
	case err := <-errc:
		s.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.Close()
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// logWriter makes a log.Logger write through a Logf.
type logWriter func(format string, args ...any)

func (w logWriter) Write(p []byte) (int, error) {
	w("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
