package app

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/claims"
)

// readClaimsFile parses the project's claims file (none: no claims).
func readClaimsFile(t *testing.T, dir string) *claims.Set {
	t.Helper()
	set, err := claims.Read(filepath.Join(dir, ".devrites"))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func overlaps(a, b []string) bool {
	for _, p := range a {
		for _, q := range b {
			if p == q || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				return true
			}
		}
	}
	return false
}

// TestConcurrentClaims: 50 processes of 50 sessions claim overlapping paths
// at once (two files each out of ten, some a directory holding files
// others claim). No two winning claims overlap, every process that lost was
// held back by a winner, and every line of the file is whole: one per win.
func TestConcurrentClaims(t *testing.T) {
	dir, _ := newProject(t)
	const n = 50
	jobs := make([][]string, n)
	want := make([][]string, n)
	for i := range jobs {
		paths := []string{fmt.Sprintf("f%d", i%10), fmt.Sprintf("f%d", (i*3+1)%10)}
		if i%7 == 0 {
			paths = []string{"pkg"}
		} else if i%2 == 0 {
			paths = append(paths, fmt.Sprintf("pkg/x%d.go", i%5))
		}
		jobs[i] = append([]string{"claim", "add", "--session", fmt.Sprintf("s%d", i), "--lock-timeout", "2m"}, paths...)
		want[i], _ = claims.Paths(paths)
	}
	results := runAll(dir, jobs)

	set := readClaimsFile(t, dir)
	if len(set.Problems) != 0 || set.Unterminated {
		t.Fatalf("claims.jsonl: problems %+v, unterminated %v; want every line whole", set.Problems, set.Unterminated)
	}
	var won []claims.Claim
	for i, r := range results {
		switch r.code {
		case 0:
			c := set.Claims[slices.IndexFunc(set.Claims, func(c claims.Claim) bool { return c.Session == fmt.Sprintf("s%d", i) })]
			if !slices.Equal(c.Paths, want[i]) || !strings.Contains(r.stdout, c.ID) {
				t.Errorf("process %d: printed %q, the file holds %+v; want its claim of %v", i, r.stdout, c, want[i])
			}
			won = append(won, c)
		case 3:
			if !strings.HasPrefix(r.stderr, "claim: BLOCKED: ") {
				t.Errorf("process %d: exit 3 with %q", i, r.stderr)
			}
		default:
			t.Fatalf("process %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	if len(won) != len(set.Claims) || set.Lines != len(won) {
		t.Fatalf("%d processes won, the file has %d claims on %d lines; want one line per win", len(won), len(set.Claims), set.Lines)
	}
	for i, a := range won {
		for _, b := range won[i+1:] {
			if overlaps(a.Paths, b.Paths) {
				t.Errorf("sessions %s and %s both hold: %v and %v", a.Session, b.Session, a.Paths, b.Paths)
			}
		}
	}
	for i, r := range results {
		if r.code == 3 && !slices.ContainsFunc(won, func(c claims.Claim) bool { return overlaps(c.Paths, want[i]) }) {
			t.Errorf("process %d was held back from %v, which no winner holds", i, want[i])
		}
	}
	t.Logf("%d of %d processes won a claim", len(won), n)
}

// TestClaimKilled kills claim add with SIGKILL at random moments while it
// appends a large claim (20,000 paths: a record of about 500 KB, which the
// kernel copies page by page, and stops copying for a kill between pages),
// half at random times and half as soon as the file is seen growing, each
// in a project holding one claim already. After every kill the file holds
// that claim whole, and at most a torn last line (or the new claim whole);
// the next claim command reads it, and its append is a whole line after it.
func TestClaimKilled(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	kills, torn := 0, 0
	for round := range 20 {
		dir, _ := newProject(t)
		if r := runEngine(dir, "claim", "add", "--session", "first", "small/first"); r.code != 0 {
			t.Fatalf("claim add: exit %d: %s", r.code, r.stderr)
		}
		file := filepath.Join(dir, ".devrites", claims.File)
		args := []string{"claim", "add", "--session", "big"}
		for i := range 20000 {
			args = append(args, fmt.Sprintf("big/p%05d.go", i))
		}
		before := fileSize(file)
		cmd := engineCmd(dir, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if round%2 == 0 { // at a random time
			time.Sleep(time.Duration(rng.Intn(40_000)) * time.Microsecond)
		} else { // as soon as the file is seen growing
			for deadline := time.Now().Add(5 * time.Second); fileSize(file) == before && time.Now().Before(deadline); {
			}
		}
		_ = cmd.Process.Kill()
		if err := cmd.Wait(); err != nil && fileSize(file) > before {
			kills++ // killed while or after it wrote
		}

		set := readClaimsFile(t, dir)
		if len(set.Claims) == 0 || set.Claims[0].Session != "first" {
			t.Fatalf("round %d: the first claim is gone: %+v", round, set.Claims)
		}
		switch {
		case len(set.Problems) == 0 && set.Lines <= 2:
		case len(set.Problems) == 1 && set.Problems[0].Torn && set.Lines == 2:
			torn++
		default:
			t.Fatalf("round %d: %d lines, problems %+v; want at most a torn second line", round, set.Lines, set.Problems)
		}
		r := runEngine(dir, "claim", "add", "--session", "after", "small/after")
		if r.code != 0 {
			t.Fatalf("round %d: claim add after the kill: exit %d: %s", round, r.code, r.stderr)
		}
		set = readClaimsFile(t, dir)
		if last := set.Claims[len(set.Claims)-1]; last.Session != "after" || last.Line != set.Lines || set.Unterminated {
			t.Fatalf("round %d: the last claim is %+v at line %d of %d; want the new one, whole, last", round, last, last.Line, set.Lines)
		}
		if r := runEngine(dir, "claim", "list", "--all", "--json"); r.code != 0 {
			t.Fatalf("round %d: claim list: exit %d: %s", round, r.code, r.stderr)
		}
	}
	t.Logf("%d kills while or after the command wrote, %d torn lines", kills, torn)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}
