package claims

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path"
	"regexp"
	"slices"
	"testing"
	"time"
)

// devritesModel reads a claims file by the rules of the format alone
// (docs/claims.md, The file), written apart from Parse: one JSON object a line, lines
// without an id or a session skipped, the last record of an id wins, state
// from released and expires_at. It also checks that every record keeps the
// format's field rules, so that what the engine writes is what DevRites
// reads.
func devritesModel(t *testing.T, b []byte, now time.Time) map[string]devritesClaim {
	t.Helper()
	var (
		idRE      = regexp.MustCompile(`^cl-[0-9]+-[0-9a-f]{8}$`)
		sessionRE = regexp.MustCompile(`^[A-Za-z0-9_.:/-]{1,128}$`)
		timeRE    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$`)
	)
	out := map[string]devritesClaim{}
	for n, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var rec map[string]any
		if json.Unmarshal(line, &rec) != nil {
			t.Errorf("line %d: not a JSON object: %s", n+1, line)
			continue
		}
		id, _ := rec["id"].(string)
		session, _ := rec["session"].(string)
		if !idRE.MatchString(id) || !sessionRE.MatchString(session) {
			t.Errorf("line %d: id %q, session %q", n+1, id, session)
		}
		var paths []string
		for _, p := range rec["paths"].([]any) {
			paths = append(paths, p.(string))
		}
		clean := slices.Clone(paths)
		for i, p := range clean {
			clean[i] = path.Clean(p)
		}
		slices.Sort(clean)
		if !slices.Equal(paths, slices.Compact(clean)) {
			t.Errorf("line %d: paths %q are not normalised, de-duplicated and sorted", n+1, paths)
		}
		for _, k := range []string{"claimed_at", "expires_at"} {
			if s, _ := rec[k].(string); !timeRE.MatchString(s) {
				t.Errorf("line %d: %s %q is not RFC 3339 UTC in whole seconds", n+1, k, s)
			}
		}
		for k, v := range rec {
			switch k {
			case "id", "session", "paths", "claimed_at", "expires_at":
			case "reason":
				if s, ok := v.(string); !ok || s == "" {
					t.Errorf("line %d: reason %v", n+1, v)
				}
			case "released":
				if v != true {
					t.Errorf("line %d: released is %v; only true is written", n+1, v)
				}
			default:
				t.Errorf("line %d: field %q is not in the format", n+1, k)
			}
		}
		state := "live"
		exp, err := time.Parse(time.RFC3339, rec["expires_at"].(string))
		switch {
		case rec["released"] == true:
			state = "released"
		case err != nil || !exp.After(now):
			state = "expired"
		}
		out[id] = devritesClaim{session, paths, state}
	}
	return out
}

type devritesClaim struct {
	session string
	paths   []string
	state   string
}

// TestInteropModel: what the engine writes over a run of claims, renewals
// and releases reads, by the format's own rules, as the engine reads it,
// and every path DevRites' exact match finds held the engine finds held too.
func TestInteropModel(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	var ids []string
	add := func(session, reason string, ttl int, paths ...string) {
		c, err := s.Add(ctx, AddRequest{Session: session, Reason: reason, TTL: ttl, Paths: paths})
		if err != nil {
			t.Fatalf("add %v: %v", paths, err)
		}
		ids = append(ids, c.ID)
	}
	add("agent-a", "rounding <& \"ledger\"> — ünïcode", 30, "./pkg/pay/", "docs/pay.md", "pkg/pay")
	add("host:1/agent_b.2", "", 1, "tax", "tax/rates.go")
	add("agent-a", "", 240, "z", "a b")
	if _, err := s.Renew(ctx, "agent-a", ids[0], 60); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Release(ctx, "agent-a", ids[2]); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{now, now.Add(2 * time.Minute), now.Add(2 * time.Hour)} {
		model := devritesModel(t, b, at)
		set := Parse(b)
		if len(model) != len(set.Claims) {
			t.Fatalf("the model reads %d claims, Parse %d", len(model), len(set.Claims))
		}
		for _, c := range set.Claims {
			m := model[c.ID]
			if m.session != c.Session || !slices.Equal(m.paths, c.Paths) || m.state != string(c.State(at)) {
				t.Errorf("%s at %s: the model reads %+v, the engine %s %v %s", c.ID, at, m, c.Session, c.Paths, c.State(at))
			}
		}
		for _, p := range []string{"pkg/pay", "docs/pay.md", "tax", "tax/rates.go", "z", "a b", "pkg", "other"} {
			exact := false
			for _, m := range model {
				exact = exact || m.state == "live" && m.session != "agent-c" && slices.Contains(m.paths, p)
			}
			if ours := len(set.Held([]string{p}, "agent-c", at)) > 0; exact && !ours {
				t.Errorf("%s at %s: DevRites finds it held, the engine does not", p, at)
			}
		}
	}
}
