package claims

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// Names in the .devrites directory.
const (
	File     = "claims.jsonl"
	LockFile = ".claims.lock"
)

// Times to live, in minutes: a claim without --ttl lasts DefaultTTL; any
// other is clamped to MinTTL…MaxTTL.
const (
	DefaultTTL = 30
	MinTTL     = 1
	MaxTTL     = 240
)

// State is what a claim is now.
type State string

// States.
const (
	Live     State = "live"
	Expired  State = "expired"
	Released State = "released"
)

// Record is one line of the file. Field order is the file's.
type Record struct {
	ID        string   `json:"id"`
	Session   string   `json:"session"`
	Paths     []string `json:"paths"`
	Reason    string   `json:"reason,omitempty"`
	ClaimedAt string   `json:"claimed_at"`
	ExpiresAt string   `json:"expires_at"`
	Released  bool     `json:"released,omitempty"`
}

// Claim is the last record of an id, and the line it is on.
type Claim struct {
	Record
	Line int
}

// Expires is when the claim expires; false when expires_at does not parse.
func (c Claim) Expires() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, c.ExpiresAt)
	return t, err == nil
}

// State is the claim's state at now.
func (c Claim) State(now time.Time) State {
	if c.Released {
		return Released
	}
	if t, ok := c.Expires(); !ok || !t.After(now) {
		return Expired
	}
	return Live
}

// SecondsLeft is how long a live claim still holds its paths, in whole
// seconds; 0 for any other.
func (c Claim) SecondsLeft(now time.Time) int64 {
	if c.State(now) != Live {
		return 0
	}
	t, _ := c.Expires()
	return int64(t.Sub(now) / time.Second)
}

// Problem is a line that was skipped.
type Problem struct {
	Line int
	Text string
	Torn bool // the last line, without a line end: a write cut short
}

// Set is what a read of the file found.
type Set struct {
	Claims   []Claim // one per id, in the order the ids first appear
	Problems []Problem
	// Unterminated: the file does not end with a line end, so the next
	// record must start with one.
	Unterminated bool
	Lines        int // lines in the file, an unterminated last one included
}

// Parse reads the file's bytes. It never fails: what it cannot read is a
// Problem.
func Parse(b []byte) *Set {
	s := &Set{Lines: bytes.Count(b, []byte("\n"))}
	if s.Unterminated = len(b) > 0 && b[len(b)-1] != '\n'; s.Unterminated {
		s.Lines++
	}
	index := map[string]int{}
	lines := bytes.Split(b, []byte("\n"))
	for n, line := range lines {
		last := n == len(lines)-1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, err := parseLine(line)
		if err != nil {
			p := Problem{Line: n + 1, Text: err.Error()}
			if last && s.Unterminated {
				p.Torn, p.Text = true, "torn last line (no line end): a write was cut short"
			}
			s.Problems = append(s.Problems, p)
			continue
		}
		c := Claim{Record: rec, Line: n + 1}
		if i, ok := index[rec.ID]; ok {
			s.Claims[i] = c
			continue
		}
		index[rec.ID] = len(s.Claims)
		s.Claims = append(s.Claims, c)
	}
	return s
}

// parseLine reads one record: a JSON object with an id and a session.
func parseLine(line []byte) (Record, error) {
	var rec Record
	if t := bytes.TrimSpace(line); t[0] != '{' {
		return rec, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return rec, fmt.Errorf("field %q is a JSON %s", te.Field, te.Value)
		}
		return rec, errors.New("not valid JSON")
	}
	switch {
	case rec.ID == "":
		return rec, errors.New("no id")
	case rec.Session == "":
		return rec, errors.New("no session")
	}
	for i, p := range rec.Paths {
		rec.Paths[i] = cleanStored(p)
	}
	return rec, nil
}

// Find is the claim of id, or nil.
func (s *Set) Find(id string) *Claim {
	for i := range s.Claims {
		if s.Claims[i].ID == id {
			return &s.Claims[i]
		}
	}
	return nil
}

// Hold is a path asked for and the live claim that holds it.
type Hold struct {
	Path  string
	Claim Claim
}

// Held returns, for each of paths (in order), the live claims of sessions
// other than session ("" counts every session) that hold it, in file
// order: a claim holds its paths, the paths below them, and the
// directories above them (a claim of a directory would cover a claimed
// path below it); "." is the whole tree. The claimed paths are sorted
// once, so a claim of thousands of paths is checked in O(n log n).
func (s *Set) Held(paths []string, session string, now time.Time) []Hold {
	type entry struct {
		path  string
		claim int
	}
	var held []entry
	for i, c := range s.Claims {
		if session != "" && c.Session == session || c.State(now) != Live {
			continue
		}
		for _, q := range c.Paths {
			held = append(held, entry{q, i})
		}
	}
	slices.SortFunc(held, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	// from is the index of the first entry at or after p.
	from := func(p string) int {
		i, _ := slices.BinarySearchFunc(held, p, func(e entry, p string) int { return strings.Compare(e.path, p) })
		return i
	}
	var out []Hold
	for _, p := range paths {
		var hit []int
		for a := p; ; a = path.Dir(a) { // p and the directories above it
			for i := from(a); i < len(held) && held[i].path == a; i++ {
				hit = append(hit, held[i].claim)
			}
			if a == "." || a == "/" {
				break
			}
		}
		below := p + "/" // the paths below p: all of them sort together
		if p == "." {
			below = ""
		}
		for i := from(below); i < len(held) && strings.HasPrefix(held[i].path, below); i++ {
			hit = append(hit, held[i].claim)
		}
		slices.Sort(hit)
		for _, i := range slices.Compact(hit) {
			out = append(out, Hold{Path: p, Claim: s.Claims[i]})
		}
	}
	return out
}

// Read reads the claims of the .devrites directory dir; a missing file is
// no claims. A path there that is not a regular file is refused.
func Read(dir string) (*Set, error) {
	b, err := readFile(filepath.Join(dir, File))
	if err != nil {
		return nil, err
	}
	return Parse(b), nil
}

func readFile(path string) ([]byte, error) {
	f, err := mdstore.OpenRegular(path, os.O_RDONLY, 0)
	var nr *mdstore.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.As(err, &nr):
		return nil, notRegular(path)
	case err != nil:
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func notRegular(path string) error {
	return mdstore.Errorf(mdstore.ErrMalformed, "%s: not a regular file", path).
		Hint("the claims file must be a plain file; move what is there aside (no claim it held is then known)")
}

// Overlapping are the paths of h's claim that hold h.Path (see Held): the
// path itself, a directory above it, or a path below it. A claim of many
// paths names only those.
func (h Hold) Overlapping() []string {
	var out []string
	for _, q := range h.Claim.Paths {
		if q == h.Path || q == "." || h.Path == "." || strings.HasPrefix(h.Path, q+"/") || strings.HasPrefix(q, h.Path+"/") {
			out = append(out, q)
		}
	}
	return out
}
