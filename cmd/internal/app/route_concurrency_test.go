package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// raiseRouted raises a blocking question routed to names with strategy
// and returns its qid; the raise pauses (exit 3).
func raiseRouted(t *testing.T, dir, strategy string, names []string) string {
	t.Helper()
	r := runEngine(dir, "question", "raise", "--gate", "blocking", "--question", "Which rounding?",
		"--option", "Banker's", "--option", "Half up", "--route", strings.Join(names, ","), "--strategy", strategy, "--json")
	var out struct {
		QID string `json:"qid"`
	}
	if r.code != 3 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.QID == "" {
		t.Fatalf("raise: exit %d, stdout %q, stderr %q; want exit 3 and a qid", r.code, r.stdout, r.stderr)
	}
	return out.QID
}

func responders(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("r%02d", i)
	}
	return names
}

// TestConcurrentResponses: every routed responder of a collect-all question
// answers at once, each as its own process. Every response is recorded
// (none lost to another's write), the last one makes the question final
// with the majority's option, state.md moves on once, decisions.md has one
// record, and doctor finds nothing.
func TestConcurrentResponses(t *testing.T) {
	dir, ws := newProject(t)
	const n = 12
	names := responders(n)
	id := raiseRouted(t, dir, "collect-all", names)
	jobs := make([][]string, n)
	for i, name := range names {
		choice := "1"
		if i%3 == 0 {
			choice = "2" // 4 of 12 for option 2: option 1 wins
		}
		jobs[i] = []string{"state", "resolve", "--by", name, "--lock-timeout", "2m", "--json", id, choice}
	}
	results := runAll(dir, jobs)
	finals := 0
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", names[i], r.code, r.stderr)
		}
		var res engine.ResolveResult
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res.Resolved) != 1 {
			t.Fatalf("%s: stdout %q: %v", names[i], r.stdout, err)
		}
		got := res.Resolved[0]
		if got.Response == nil || got.Response.By != names[i] {
			t.Errorf("%s: response %+v, want one by %s", names[i], got.Response, names[i])
		}
		if got.Status != question.StatusOpen {
			finals++
			if got.Status != question.StatusAnswered || got.Choice == nil || *got.Choice != 1 || !got.StateUpdated {
				t.Errorf("%s made it final: %+v, want answered option 1 with state.md updated", names[i], got)
			}
		}
	}
	if finals != 1 {
		t.Errorf("%d processes made the question final, want 1", finals)
	}
	b := readQuestions(t, ws).Find(id)
	if got := b.Value("status"); got != question.StatusAnswered {
		t.Fatalf("status %q, want answered", got)
	}
	recs, err := mdstore.ParseRecords(b.Value("responses"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		seen[rec[0].Value] = true
	}
	for _, name := range names {
		if !seen[name] {
			t.Errorf("the response of %s was lost (%d of %d recorded)", name, len(recs), n)
		}
	}
	if got := b.Value("choice"); got != "1" {
		t.Errorf("choice %q, want 1", got)
	}
	if got := strings.Count(b.Value("answered_by"), ","); got != 7 {
		t.Errorf("answered_by %q, want the 8 who chose option 1", b.Value("answered_by"))
	}
	st, err := os.ReadFile(filepath.Join(ws, mdstore.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(st), "| status | running |") || strings.Contains(string(st), "## Awaiting human") {
		t.Errorf("state.md still paused:\n%s", st)
	}
	if got := strings.Count(string(st), ": response to "+id+": "); got != n-1 {
		t.Errorf("state.md has %d response Log lines, want %d", got, n-1)
	}
	dec, err := os.ReadFile(filepath.Join(ws, mdstore.DecisionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(dec), "## "+id+" "); got != 1 {
		t.Errorf("decisions.md has %d records of %s, want 1", got, id)
	}
	assertDoctorClean(t, dir)
}

// TestConcurrentFirstResponseWins: responders race on a first-response-wins
// question; exactly one wins (exit 0) and its response is the only one
// recorded; every other gets the conflict (exit 5) and writes nothing.
func TestConcurrentFirstResponseWins(t *testing.T) {
	dir, ws := newProject(t)
	const n = 8
	names := responders(n)
	id := raiseRouted(t, dir, "first-response-wins", names)
	jobs := make([][]string, n)
	for i, name := range names {
		jobs[i] = []string{"state", "resolve", "--by", name, "--lock-timeout", "2m", id, fmt.Sprintf("answer of %s", name)}
	}
	winner := ""
	for i, r := range runAll(dir, jobs) {
		switch r.code {
		case 0:
			if winner != "" {
				t.Fatalf("%s and %s both won", winner, names[i])
			}
			winner = names[i]
		case 5:
			if !strings.Contains(r.stderr, id+" is already answered") {
				t.Errorf("%s: stderr %q, want the conflict", names[i], r.stderr)
			}
		default:
			t.Fatalf("%s: exit %d: %s", names[i], r.code, r.stderr)
		}
	}
	b := readQuestions(t, ws).Find(id)
	recs, err := mdstore.ParseRecords(b.Value("responses"))
	if err != nil || len(recs) != 1 || recs[0][0].Value != winner {
		t.Fatalf("responses %q, %v; want only %s's", recs, err, winner)
	}
	if got, want := b.Value("answer"), "answer of "+winner; got != want || b.Value("answered_by") != winner {
		t.Errorf("answer %q by %q, want %q by %s", got, b.Value("answered_by"), want, winner)
	}
	assertDoctorClean(t, dir)
}
