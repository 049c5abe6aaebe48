package trust

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestVerdicts(t *testing.T) {
	dir := t.TempDir()
	s := At(filepath.Join(dir, "config", "trust"))
	afk := filepath.Join(dir, "AFK")
	write(t, afk, "notify: touch PWNED\n")

	if v, err := s.Check(afk); err != nil || v != Untrusted {
		t.Fatalf("before trust: got %v, %v, want %v", v, err, Untrusted)
	}
	e, err := s.Trust(afk)
	if err != nil {
		t.Fatal(err)
	}
	if e.Path != afk || e.SHA256 != Sum([]byte("notify: touch PWNED\n")) {
		t.Fatalf("got entry %+v", e)
	}
	if v, _ := s.Check(afk); v != Trusted {
		t.Fatalf("after trust: got %v, want %v", v, Trusted)
	}
	write(t, afk, "notify: touch PWNED2\n")
	if v, _ := s.Check(afk); v != Changed {
		t.Fatalf("after an edit: got %v, want %v", v, Changed)
	}
	if _, err := s.Revoke(afk); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Check(afk); v != Untrusted {
		t.Fatalf("after revoke: got %v, want %v", v, Untrusted)
	}
	if _, err := s.Revoke(afk); !errors.Is(err, ErrNotTrusted) {
		t.Fatalf("second revoke: got %v, want ErrNotTrusted", err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store mode: got %v, %v, want 0600", fi.Mode(), err)
	}
}

func TestSymlinkIsTheSameEntry(t *testing.T) {
	dir := t.TempDir()
	s := At(filepath.Join(dir, "trust"))
	real := filepath.Join(dir, "real")
	write(t, real, "x")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trust(link); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Check(real); v != Trusted {
		t.Fatalf("got %v, want %v", v, Trusted)
	}
}

func TestBadLinesGrantNothing(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "AFK")
	write(t, f, "x")
	store := filepath.Join(dir, "trust")
	sum := Sum([]byte("x"))
	write(t, store, strings.Join([]string{sum + " " + f, "zz" + sum[2:] + "  " + f, sum + "  relative/AFK", ""}, "\n"))
	if v, _ := At(store).Check(f); v != Untrusted {
		t.Fatalf("got %v, want %v", v, Untrusted)
	}
}

func TestConcurrentTrustKeepsEveryEntry(t *testing.T) {
	dir := t.TempDir()
	s := At(filepath.Join(dir, "trust"))
	var wg sync.WaitGroup
	for i := range 20 {
		p := filepath.Join(dir, "f"+string(rune('a'+i)))
		write(t, p, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := At(s.Path()).Trust(p); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	l, err := s.List()
	if err != nil || len(l) != 20 {
		t.Fatalf("got %d entries, %v, want 20", len(l), err)
	}
}

func TestOpen(t *testing.T) {
	for _, c := range []struct{ xdg, home, want string }{
		{"/x", "/h", "/x/devrites-engine/trust"},
		{"", "/h", "/h/.config/devrites-engine/trust"},
		{"rel", "/h", "/h/.config/devrites-engine/trust"},
		{"", "", ""},
	} {
		t.Run(c.xdg+","+c.home, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", c.xdg)
			t.Setenv("HOME", c.home)
			s, err := Open()
			if c.want == "" {
				if err == nil {
					t.Fatalf("got %s, want an error", s.Path())
				}
				return
			}
			if err != nil || s.Path() != c.want {
				t.Fatalf("got %v, %v, want %s", s, err, c.want)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	for in, want := range map[string]string{
		"/p/.devrites/AFK":    "devrites-engine trust /p/.devrites/AFK",
		"/my project/AFK":     "devrites-engine trust '/my project/AFK'",
		"/it's/.devrites/AFK": `devrites-engine trust '/it'\''s/.devrites/AFK'`,
	} {
		if got := Command(in); got != want {
			t.Errorf("Command(%q): got %s, want %s", in, got, want)
		}
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkVerify is the check every command makes of each config file:
// one read of a store of 100 entries, one hash, one path resolution.
func BenchmarkVerify(b *testing.B) {
	dir := b.TempDir()
	s := At(filepath.Join(dir, "trust"))
	afk := filepath.Join(dir, "AFK")
	content := []byte("allow_gates: [advisory]\nnotify: sh ./examples/notify/ntfy.sh\n")
	if err := os.WriteFile(afk, content, 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 99 {
		if _, err := s.Add(filepath.Join(dir, "other", strconv.Itoa(i)), content); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Add(afk, content); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if v, err := s.Verify(afk, content); err != nil || v != Trusted {
			b.Fatal(v, err)
		}
	}
}
