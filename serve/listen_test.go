package serve

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
)

// Only loopback is served unless AllowRemote, and then the warning names
// the address; a certificate needs its key. Nothing is bound to check.
func TestListenCheck(t *testing.T) {
	for _, tc := range []struct {
		l    Listen
		err  string
		warn string
	}{
		{l: Listen{}},
		{l: Listen{Addr: "127.0.0.1:7878"}},
		{l: Listen{Addr: "127.0.0.2:0"}},
		{l: Listen{Addr: "localhost:7878"}},
		{l: Listen{Addr: "[::1]:7878"}},
		{l: Listen{Addr: ":7878"}, err: "--listen :7878 (every interface of this machine) is not a loopback address"},
		{l: Listen{Addr: "0.0.0.0:7878"}, err: "--listen 0.0.0.0:7878 (every interface of this machine) is not a loopback address"},
		{l: Listen{Addr: "192.0.2.7:7878"}, err: "--listen 192.0.2.7:7878 is not a loopback address"},
		{l: Listen{Addr: "7878"}, err: `--listen "7878": want host:port`},
		{l: Listen{Addr: "192.0.2.7:7878", AllowRemote: true}, warn: "serving 192.0.2.7:7878 beyond this machine"},
		{l: Listen{Addr: "0.0.0.0:7878", AllowRemote: true}, warn: "serving 0.0.0.0:7878 (every interface of this machine) beyond this machine"},
		{l: Listen{TLSCert: "c.pem"}, err: "--tls-cert and --tls-key go together"},
	} {
		var warnings []string
		c, err := tc.l.Check()
		if c != nil {
			warnings = c.Warnings
		}
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, engine.ErrBadArgs)):
			t.Errorf("%+v: got %v, want a bad-arguments error %q", tc.l, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%+v: got %v", tc.l, err)
		case tc.warn == "" && len(warnings) > 0:
			t.Errorf("%+v: got warnings %q", tc.l, warnings)
		case tc.warn != "" && (len(warnings) == 0 || !strings.HasPrefix(warnings[0], tc.warn)):
			t.Errorf("%+v: got warnings %q, want one naming the address: %q", tc.l, warnings, tc.warn)
		}
	}
	if c, _ := (Listen{Addr: "192.0.2.7:1", AllowRemote: true}).Check(); c == nil || len(c.Warnings) != 2 || !strings.Contains(c.Warnings[1], "unencrypted") {
		t.Errorf("got %+v, want a warning about plain HTTP", c)
	}
}

// certificate writes a self-signed certificate for 127.0.0.1 and returns
// the files and a pool that trusts it.
func certificate(t *testing.T) (cert, key string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return cert, key, pool
}

// run starts ListenAndServe on 127.0.0.1:0 and returns its base URL, the
// way to stop it and the error it returned once it has.
func run(t *testing.T, s *Server, l Listen) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	l.Addr = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	c, err := l.Check()
	if err != nil {
		t.Fatal(err)
	}
	go func() { errc <- ListenAndServe(ctx, s, c, func(base string) { ready <- base }) }()
	select {
	case base := <-ready:
		t.Cleanup(cancel)
		return base, cancel, errc
	case err := <-errc:
		cancel()
		t.Fatalf("ListenAndServe: %v", err)
	}
	return "", nil, nil
}

// With a certificate and its key the server speaks TLS only, and stops
// cleanly when its context ends.
func TestListenTLS(t *testing.T) {
	f := newFixture(t)
	cert, key, pool := certificate(t)
	base, stop, errc := run(t, f.s, Listen{TLSCert: cert, TLSKey: key})
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("got base %s, want https on 127.0.0.1", base)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	resp, err := client.Get(base + f.s.InboxPath())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Errorf("got %d over TLS %v, want 200 over TLS", resp.StatusCode, resp.TLS != nil)
	}
	plain, err := http.Get(strings.Replace(base, "https://", "http://", 1) + f.s.InboxPath())
	if err == nil {
		if plain.StatusCode == 200 {
			t.Errorf("plain HTTP got 200 from the TLS server")
		}
		plain.Body.Close()
	}
	stop()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("got %v, want a clean stop", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not stop")
	}
}

// A certificate that does not load is refused before anything is bound.
func TestListenBadCertificate(t *testing.T) {
	f := newFixture(t)
	bad := filepath.Join(t.TempDir(), "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Listen{Addr: "127.0.0.1:0", TLSCert: bad, TLSKey: bad}.Check()
	if err == nil {
		err = ListenAndServe(context.Background(), f.s, c, func(string) {
			t.Error("the server listened")
		})
	}
	if !errors.Is(err, engine.ErrBadArgs) {
		t.Errorf("got %v, want bad arguments", err)
	}
}

// A shutdown does not wait for open live-update streams: it ends them.
func TestShutdownEndsStreams(t *testing.T) {
	f := newFixture(t)
	base, stop, errc := run(t, f.s, Listen{})
	resp, err := http.Get(base + f.s.inboxEventsURL(""))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	stop()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("got %v, want a clean stop", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the server waited for the stream")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the shutdown took %s", d)
	}
}
