package claims

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

var now = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

func store(t *testing.T) Store {
	t.Helper()
	return Store{Dir: t.TempDir(), LockTimeout: time.Second, Now: func() time.Time { return now }}
}

// A file as DevRites writes it: a claim, its release, a live claim, a
// broken line, a line without a session, and a torn last line.
const devritesFile = `{"id":"cl-1795788000000000000-0a1b2c3d","session":"agent-a","paths":["docs/a.md"],"reason":"docs","claimed_at":"2026-11-29T14:00:00Z","expires_at":"2026-11-29T14:30:00Z"}
{"id":"cl-1795788000000000000-0a1b2c3d","session":"agent-a","paths":["docs/a.md"],"reason":"docs","claimed_at":"2026-11-29T14:00:00Z","expires_at":"2026-11-29T14:30:00Z","released":true}
{"id":"cl-1795788060000000000-deadbeef","session":"agent-b","paths":["pkg/pay","pkg/tax.go"],"claimed_at":"2026-11-29T14:01:00Z","expires_at":"2026-11-29T14:31:00Z"}
not json
{"id":"cl-1","paths":["x"]}
{"id":"cl-1795700000000000000-00000000","session":"agent-c","paths":["old"],"claimed_at":"2026-11-28T10:00:00Z","expires_at":"2026-11-28T10:30:00Z"}
{"id":"cl-2","session":"agent-d","paths":["bad"],"expires_at":"soon"}
{"id":"cl-3","session":"x","pa`

func TestParseDevRitesFile(t *testing.T) {
	s := Parse([]byte(devritesFile))
	want := map[string]State{
		"cl-1795788000000000000-0a1b2c3d": Released,
		"cl-1795788060000000000-deadbeef": Live,
		"cl-1795700000000000000-00000000": Expired,
		"cl-2":                            Expired, // expires_at does not parse
	}
	if len(s.Claims) != len(want) {
		t.Fatalf("got %d claims, want %d: %+v", len(s.Claims), len(want), s.Claims)
	}
	for _, c := range s.Claims {
		if got := c.State(now); got != want[c.ID] {
			t.Errorf("%s: got %s, want %s", c.ID, got, want[c.ID])
		}
	}
	if c := s.Find("cl-1795788000000000000-0a1b2c3d"); c.Line != 2 {
		t.Errorf("released claim: got line %d, want 2 (the last record wins)", c.Line)
	}
	var lines []int
	for _, p := range s.Problems {
		lines = append(lines, p.Line)
	}
	if len(lines) != 3 || lines[0] != 4 || lines[1] != 5 || lines[2] != 8 || !s.Problems[2].Torn || s.Problems[0].Torn {
		t.Errorf("problems: got %+v, want lines 4, 5 and a torn 8", s.Problems)
	}
	if !s.Unterminated || s.Lines != 8 {
		t.Errorf("got unterminated %v, lines %d; want true, 8", s.Unterminated, s.Lines)
	}
	if got := s.Find("cl-1795788060000000000-deadbeef").SecondsLeft(now); got != 28*60+49 {
		t.Errorf("seconds left: got %d, want %d", got, 28*60+49)
	}
}

func TestHeld(t *testing.T) {
	s := Parse([]byte(devritesFile))
	for _, tc := range []struct {
		path, session string
		held          bool
	}{
		{"pkg/pay", "", true},
		{"pkg/pay/round.go", "", true}, // below a claimed directory
		{"pkg", "", true},              // a directory above a claimed path
		{".", "", true},
		{"pkg/payments", "", false}, // a prefix of the name is not a directory above
		{"pkg/tax.go", "agent-b", false},
		{"docs/a.md", "", false}, // released
		{"old", "", false},       // expired
	} {
		t.Run(tc.path+"/"+tc.session, func(t *testing.T) {
			if got := len(s.Held([]string{tc.path}, tc.session, now)) > 0; got != tc.held {
				t.Errorf("got held %v, want %v", got, tc.held)
			}
		})
	}
}

// TestCheck: Check normalises the paths, names the holds of other sessions
// and the lines it skipped; a bad session or path, or a Store without a
// .devrites directory, is refused.
func TestCheck(t *testing.T) {
	s := store(t)
	if err := os.WriteFile(s.Path(), []byte(devritesFile), 0o600); err != nil {
		t.Fatal(err)
	}
	chk, err := s.Check("agent-a", []string{"pkg/pay/round.go/", "docs"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(chk.Paths, " ") != "docs pkg/pay/round.go" || len(chk.Holds) != 1 || chk.Holds[0].Claim.Session != "agent-b" || len(chk.Problems) != 3 {
		t.Errorf("got %+v, want docs and pkg/pay/round.go, held by agent-b, and 3 problems", chk)
	}
	if chk, err := s.Check("agent-b", []string{"pkg/pay"}); err != nil || len(chk.Holds) != 0 {
		t.Errorf("its own claim: got %+v, %v; want no holds", chk, err)
	}
	if _, err := s.Check("a b", []string{"x"}); !errors.Is(err, ErrUsage) {
		t.Errorf("bad session: got %v, want a usage error", err)
	}
	if _, err := s.Check("", []string{"../x"}); !errors.Is(err, ErrUsage) {
		t.Errorf("bad path: got %v, want a usage error", err)
	}
	t.Chdir(filepath.Dir(s.Path())) // a claims.jsonl here must not be read
	s.Dir = ""
	if _, err := s.Check("agent-a", []string{"pkg"}); !errors.Is(err, mdstore.ErrNoWorkspace) || !strings.Contains(err.Error(), "no .devrites directory") {
		t.Errorf("no .devrites directory: got %v, want it refused", err)
	}
}

func TestPaths(t *testing.T) {
	got, err := Paths([]string{"./b/", "a", "b", "a/./c"})
	if err != nil || strings.Join(got, " ") != "a a/c b" {
		t.Fatalf("got %q, %v; want [a a/c b]", got, err)
	}
	for _, p := range []string{"", " ", "/etc/passwd", "../x", "a/../../x", "a/..", ".devrites/x", ".git", "sub/.git/config", "a\nb"} {
		if _, err := Paths([]string{p}); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: got %v, want a usage error", p, err)
		}
	}
	for _, s := range []string{"", strings.Repeat("a", 129), "a b", "é"} {
		if err := CheckSession(s); !errors.Is(err, ErrUsage) {
			t.Errorf("session %q: got %v, want a usage error", s, err)
		}
	}
	if err := CheckSession("host:1/agent-a_b.c"); err != nil {
		t.Errorf("got %v, want the session accepted", err)
	}
}

func TestAddReleaseRenew(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	a, err := s.Add(ctx, AddRequest{Session: "a", Paths: []string{"pkg"}, TTL: 30})
	if err != nil {
		t.Fatal(err)
	}
	if a.ExpiresAt != "2026-11-29T14:32:11Z" || a.Line != 1 || !strings.HasPrefix(a.ID, fmt.Sprintf("cl-%d-", now.UnixNano())) {
		t.Errorf("got %+v", a)
	}
	_, err = s.Add(ctx, AddRequest{Session: "b", Paths: []string{"pkg/x.go"}, TTL: 30})
	var he *HeldError
	if !errors.As(err, &he) || he.Holds[0].Claim.ID != a.ID {
		t.Fatalf("got %v, want held by %s", err, a.ID)
	}
	if _, err := s.Release(ctx, "b", a.ID); !errors.Is(err, ErrNotOwner) {
		t.Errorf("release by b: got %v, want not owner", err)
	}
	if _, err := s.Release(ctx, "a", "cl-0"); !errors.Is(err, ErrUnknown) {
		t.Errorf("release unknown: got %v, want unknown", err)
	}
	r, err := s.Renew(ctx, "a", a.ID, 500)
	if err != nil || r.ExpiresAt != "2026-11-29T18:02:11Z" || r.ClaimedAt != a.ClaimedAt || r.Line != 2 {
		t.Errorf("renew: got %+v, %v; want 240 minutes from now, line 2", r, err)
	}
	if _, err := s.Release(ctx, "a", a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Release(ctx, "a", a.ID); !errors.Is(err, ErrNotLive) {
		t.Errorf("second release: got %v, want not live", err)
	}
	if _, err := s.Add(ctx, AddRequest{Session: "b", Paths: []string{"pkg/x.go"}, TTL: 30}); err != nil {
		t.Errorf("after the release: %v", err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("got %v, %v; want mode 0600", fi.Mode(), err)
	}
	set, _ := s.Read()
	if len(set.Problems) != 0 || set.Lines != 4 {
		t.Errorf("got %d lines, problems %+v; want 4 intact lines", set.Lines, set.Problems)
	}
}

// TestRenewExpired: an expired claim is not renewed, and is released.
func TestRenewExpired(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	c, err := s.Add(ctx, AddRequest{Session: "a", Paths: []string{"x"}, TTL: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return now.Add(time.Minute) }
	if _, err := s.Renew(ctx, "a", c.ID, 30); !errors.Is(err, ErrNotLive) {
		t.Errorf("got %v, want not live", err)
	}
	if _, err := s.Release(ctx, "a", c.ID); err != nil {
		t.Errorf("release of an expired claim: %v", err)
	}
}

// TestAppendAfterTornLine: a torn last line stays a line of its own, which
// reads skip, and EndLastLine only appends a line end.
func TestAppendAfterTornLine(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	torn := `{"id":"cl-9","session":"a","paths":["p"]`
	if err := os.WriteFile(s.Path(), []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := s.Add(ctx, AddRequest{Session: "b", Paths: []string{"p"}, TTL: 30})
	if err != nil || c.Line != 2 {
		t.Fatalf("got %+v, %v; want line 2", c, err)
	}
	set, _ := s.Read()
	if len(set.Claims) != 1 || len(set.Problems) != 1 || set.Problems[0].Line != 1 || set.Problems[0].Torn {
		t.Errorf("got %+v, problems %+v; want one claim and line 1 broken (no longer last)", set.Claims, set.Problems)
	}
	if err := os.WriteFile(s.Path(), []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.EndLastLine(ctx); !ok || err != nil {
		t.Fatalf("got %v, %v", ok, err)
	}
	if b, _ := os.ReadFile(s.Path()); string(b) != torn+"\n" {
		t.Errorf("got %q", b)
	}
	if ok, err := s.EndLastLine(ctx); ok || err != nil {
		t.Errorf("second run: got %v, %v; want nothing done", ok, err)
	}
}

func TestNotRegular(t *testing.T) {
	s := store(t)
	if err := os.Symlink("elsewhere", filepath.Join(s.Dir, File)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("read: got %v", err)
	}
	if _, err := s.Add(context.Background(), AddRequest{Session: "a", Paths: []string{"x"}, TTL: 30}); err == nil {
		t.Error("add through a symbolic link: want an error")
	}
}

// BenchmarkParse reads a year of claims of a busy project: 36,500 claims,
// each released (73,000 lines).
func BenchmarkParse(b *testing.B) {
	var buf strings.Builder
	for i := range 36500 {
		rec := fmt.Sprintf(`{"id":"cl-17959609%010d-3f2a9c1b","session":"agent-%d","paths":["docs/pay.md","pkg/pay/file%d.go"],"reason":"slice %d of the rounding work","claimed_at":"2025-11-29T14:02:11Z","expires_at":"2025-11-29T14:32:11Z"`, i, i%7, i, i)
		buf.WriteString(rec + "}\n" + rec + `,"released":true}` + "\n")
	}
	data := []byte(buf.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if s := Parse(data); len(s.Claims) != 36500 || len(s.Problems) != 0 {
			b.Fatalf("got %d claims, %d problems", len(s.Claims), len(s.Problems))
		}
	}
}

// TestHeldMatchesPairwise: Held finds exactly the claims that a pairwise
// comparison of every asked path with every claimed path finds.
func TestHeldMatchesPairwise(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	word := func() string {
		parts := []string{"a", "b", "ab", "a.b", "b-c"}
		var p []string
		for range 1 + rng.Intn(3) {
			p = append(p, parts[rng.Intn(len(parts))])
		}
		if rng.Intn(30) == 0 {
			return "."
		}
		return strings.Join(p, "/")
	}
	overlap := func(a, b string) bool {
		return a == b || a == "." || b == "." || strings.HasPrefix(b, a+"/") || strings.HasPrefix(a, b+"/")
	}
	for round := range 200 {
		s := &Set{}
		for i := range 1 + rng.Intn(6) {
			paths, _ := Paths([]string{word(), word()})
			s.Claims = append(s.Claims, Claim{Record: Record{ID: fmt.Sprint(i), Session: fmt.Sprint("s", rng.Intn(3)), Paths: paths, ExpiresAt: "2026-11-30T00:00:00Z"}})
		}
		ask, _ := Paths([]string{word(), word(), word()})
		var want []string
		for _, p := range ask {
			for _, c := range s.Claims {
				if c.Session != "s0" && slices.ContainsFunc(c.Paths, func(q string) bool { return overlap(p, q) }) {
					want = append(want, p+" "+c.ID)
				}
			}
		}
		var got []string
		for _, h := range s.Held(ask, "s0", now) {
			got = append(got, h.Path+" "+h.Claim.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: asked %v of %+v: got %v, want %v", round, ask, s.Claims, got, want)
		}
	}
}
