package caplink

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestEnsureCreatesPrivateKeyAndIgnoresIt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("AFK"), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := Ensure(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("got mode %04o, want 0600", perm)
	}
	if len(k) != keyLen {
		t.Errorf("got a key of %d bytes, want %d", len(k), keyLen)
	}
	again, err := Ensure(dir)
	if err != nil || string(again) != string(k) {
		t.Errorf("got another key (%v) on the second use, want the same", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if got := strings.Count(string(b), "\nserve.key\n"); got != 1 || !strings.HasPrefix(string(b), "AFK\n") {
		t.Errorf("got .gitignore %q, want AFK kept and serve.key listed once", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("got %d files, want serve.key and .gitignore only (no temporary file left)", len(ents))
	}
}

func TestEnsureConcurrentAgree(t *testing.T) {
	dir := t.TempDir()
	keys := make([]Key, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := Ensure(dir)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for i, k := range keys {
		if string(k) != string(keys[0]) {
			t.Fatalf("key %d differs from key 0: two keys were made", i)
		}
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		mode       os.FileMode
		want       string
	}{
		{"readable by others", strings.Repeat("ab", 32), 0o644, "readable by others"},
		{"short", "abcd", 0o600, "not a key"},
		{"not hex", strings.Repeat("zz", 32), 0o600, "not a key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, KeyFile)
			if err := os.WriteFile(p, []byte(tc.body), tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			_, err := Ensure(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
			if b, _ := os.ReadFile(p); string(b) != tc.body {
				t.Errorf("the key file was changed")
			}
		})
	}
}

func TestTokens(t *testing.T) {
	k := Key(strings.Repeat("k", 32))
	fp := strings.Repeat("ab", 32)
	tok := k.Token("/p", "pay", "q-2026-11-29-001", fp)
	if got, ok := k.Opens(tok, "/p", "pay", "q-2026-11-29-001"); !ok || got != fp {
		t.Fatalf("got %q, %v; want the token to open the question of %s", got, ok, fp)
	}
	_, mac, _ := strings.Cut(tok, ".")
	for _, tc := range []struct {
		name  string
		token string
		parts []string
	}{
		{"other qid", tok, []string{"/p", "pay", "q-2026-11-29-002"}},
		{"other slug", tok, []string{"/p", "pay2", "q-2026-11-29-001"}},
		{"other project", tok, []string{"/q", "pay", "q-2026-11-29-001"}},
		{"parts shifted", tok, []string{"/p", "pa", "yq-2026-11-29-001"}},
		// A token names the fingerprint it was made for: another
		// question's, put in its place, does not open anything.
		{"other fingerprint", strings.Repeat("cd", 32) + "." + mac, []string{"/p", "pay", "q-2026-11-29-001"}},
		{"no fingerprint", mac, []string{"/p", "pay", "q-2026-11-29-001"}},
		{"the MAC alone", "." + mac, []string{"/p", "pay", "q-2026-11-29-001"}},
	} {
		if _, ok := k.Opens(tc.token, tc.parts[0], tc.parts[1], tc.parts[2]); ok {
			t.Errorf("%s: the token opens the question, want it refused", tc.name)
		}
	}
	if k.Valid(mac, "inbox", "/p", "pay", "q-2026-11-29-001", fp) {
		t.Error("other purpose: the token is valid, want it refused")
	}
	if _, ok := Key(strings.Repeat("j", 32)).Opens(tok, "/p", "pay", "q-2026-11-29-001"); ok {
		t.Error("a token is valid under another key")
	}
	if (Key(nil)).Valid(Key(nil).MAC("answer"), "answer") {
		t.Error("an empty key validates tokens")
	}
	if got := URL("http://127.0.0.1:7878/", "pay", "q-2026-11-29-001", tok); got != "http://127.0.0.1:7878/q/pay/q-2026-11-29-001?t="+tok {
		t.Errorf("got %s", got)
	}
}

func TestCheckBase(t *testing.T) {
	for s, ok := range map[string]bool{
		"http://127.0.0.1:7878":           true,
		"https://laptop.example.ts.net/d": true,
		"127.0.0.1:7878":                  false,
		"ftp://host":                      false,
		"http://":                         false,
		"http://user:pw@host":             false,
		"http://host/?t=1":                false,
		"not a url at all":                false,
	} {
		if err := CheckBase(s); (err == nil) != ok {
			t.Errorf("CheckBase(%q) = %v, want ok %v", s, err, ok)
		}
	}
}
