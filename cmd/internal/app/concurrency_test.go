package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/cmd/internal/scripttest"
	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// These tests start real processes of the binary (engineCmd) against one
// workspace. They run on tmpfs when /dev/shm is there: what they check (the
// lock's mutual exclusion, atomic renames seen by other processes and after
// SIGKILL) does not depend on fsync reaching a disk, and a slow disk would
// only make them wait.

const testNow = scripttest.Now

// scratchDir is a fresh directory on tmpfs when there is one.
func scratchDir(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "devrites-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// result is one finished process.
type result struct {
	code           int
	stdout, stderr string
}

// runEngine runs the binary to completion in project dir.
func runEngine(dir string, args ...string) result {
	cmd := engineCmd(dir, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		r.code, r.stderr = -1, err.Error()
	}
	return r
}

// newProject creates a project with an initialised workspace "pay" and
// returns the project directory and the feature directory.
func newProject(t *testing.T) (string, string) {
	t.Helper()
	dir := scratchDir(t)
	if r := runEngine(dir, "init", "pay"); r.code != 0 {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	return dir, filepath.Join(dir, ".devrites", "work", "pay")
}

// runAll runs every argument list as its own process, all at once.
func runAll(dir string, jobs [][]string) []result {
	out := make([]result, len(jobs))
	var wg sync.WaitGroup
	for i, args := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = runEngine(dir, args...)
		}()
	}
	wg.Wait()
	return out
}

// assertDoctorClean runs doctor --json and wants no finding at all.
func assertDoctorClean(t *testing.T, dir string) {
	t.Helper()
	r := runEngine(dir, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("doctor --json: exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	if r.code != 0 || len(rep.Findings) != 0 {
		t.Fatalf("doctor: exit %d, findings %+v, want exit 0 and none", r.code, rep.Findings)
	}
}

func readQuestions(t *testing.T, ws string) *mdstore.Questions {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, mdstore.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	return mdstore.ParseQuestions(b)
}

// raised decodes the qid a `question raise --json` printed.
func raised(t *testing.T, r result) string {
	t.Helper()
	var out struct {
		QID     string `json:"qid"`
		Outcome string `json:"outcome"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.QID == "" {
		t.Fatalf("raise: exit %d, stdout %q, stderr %q; want exit 0 and a qid", r.code, r.stdout, r.stderr)
	}
	return out.QID
}

func raiseArgs(question, answer string) []string {
	return []string{"question", "raise", "--gate", "advisory", "--question", question, "--option", "Yes",
		"--answered", answer, "--json", "--lock-timeout", "2m"}
}

// TestConcurrentRaises: 100 processes raise at once; each gets its own qid,
// each block is whole, and doctor finds nothing.
func TestConcurrentRaises(t *testing.T) {
	dir, ws := newProject(t)
	const n = 100
	jobs := make([][]string, n)
	for i := range jobs {
		jobs[i] = raiseArgs(fmt.Sprintf("question %d", i), fmt.Sprintf("answer %d", i))
	}
	results := runAll(dir, jobs)

	byQID := map[string]int{}
	for i, r := range results {
		id := raised(t, r)
		if prev, dup := byQID[id]; dup {
			t.Fatalf("processes %d and %d both got %s", prev, i, id)
		}
		byQID[id] = i
	}
	qs := readQuestions(t, ws)
	if got := len(qs.Blocks()); got != n {
		t.Fatalf("questions.md has %d blocks, want %d", got, n)
	}
	for id, i := range byQID {
		b := qs.Find(id)
		if b == nil {
			t.Fatalf("%s (process %d) is not in questions.md", id, i)
		}
		want := map[string]string{"status": "answered", "gate": "advisory", "question": fmt.Sprintf("question %d", i),
			"answer": fmt.Sprintf("answer %d", i), "raised_at": testNow, "answered_at": testNow}
		for k, v := range want {
			if got := b.Value(k); got != v {
				t.Errorf("%s: %s = %q, want %q", id, k, got, v)
			}
		}
	}
	dec, err := os.ReadFile(filepath.Join(ws, mdstore.DecisionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(dec), "\n## q-"); got != n {
		t.Errorf("decisions.md has %d decisions, want %d", got, n)
	}
	assertDoctorClean(t, dir)
}

// TestConcurrentRaiseAndResolve: 200 processes at once, raising (recorded
// and provisional) and resolving open questions, each of those twice with
// the same answer. Every resolution is recorded once; doctor finds nothing.
func TestConcurrentRaiseAndResolve(t *testing.T) {
	dir, ws := newProject(t)
	if err := os.WriteFile(filepath.Join(dir, ".devrites", "AFK"), []byte("allow_gates: [advisory, validating]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustFile(t, filepath.Join(dir, ".devrites", "AFK"))
	const open = 50
	var setup [][]string
	for i := 0; i < open; i++ {
		setup = append(setup, []string{"question", "raise", "--gate", "validating", "--question", fmt.Sprintf("open %d", i),
			"--option", "Yes", "--option", "No", "--json", "--lock-timeout", "2m"})
	}
	var toResolve []string
	for _, r := range runAll(dir, setup) {
		toResolve = append(toResolve, raised(t, r))
	}

	var jobs [][]string
	kinds := map[int]string{} // job index → "raise" or the qid resolved
	for i := 0; i < 100; i++ {
		if i%2 == 0 {
			jobs = append(jobs, raiseArgs(fmt.Sprintf("recorded %d", i), "done"))
		} else {
			jobs = append(jobs, []string{"question", "raise", "--gate", "validating", "--question", fmt.Sprintf("provisional %d", i),
				"--option", "Yes", "--json", "--lock-timeout", "2m"})
		}
		kinds[len(jobs)-1] = "raise"
		id := toResolve[i%open]
		jobs = append(jobs, []string{"state", "resolve", id, "answer for " + id, "--json", "--lock-timeout", "2m"})
		kinds[len(jobs)-1] = id
	}
	results := runAll(dir, jobs)

	seen := map[string]bool{}
	for _, id := range toResolve {
		seen[id] = true
	}
	for i, r := range results {
		if kinds[i] != "raise" {
			if r.code != 0 {
				t.Fatalf("resolve %s: exit %d: %s", kinds[i], r.code, r.stderr)
			}
			continue
		}
		id := raised(t, r)
		if seen[id] {
			t.Fatalf("%s handed out twice", id)
		}
		seen[id] = true
	}
	qs := readQuestions(t, ws)
	if got, want := len(qs.Blocks()), open+100; got != want {
		t.Fatalf("questions.md has %d blocks, want %d", got, want)
	}
	dec, err := os.ReadFile(filepath.Join(ws, mdstore.DecisionsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range toResolve {
		b := qs.Find(id)
		if b.Value("status") != "answered" || b.Value("answer") != "answer for "+id {
			t.Errorf("%s: status %q answer %q, want answered with %q", id, b.Value("status"), b.Value("answer"), "answer for "+id)
		}
		if got := strings.Count(string(dec), "## "+id+" answered\n"); got != 1 {
			t.Errorf("%s: %d decisions logged, want 1", id, got)
		}
		if got := strings.Count(string(qs.Bytes()), "\nanswer: answer for "+id+"\n"); got != 1 {
			t.Errorf("%s: answer written %d times, want 1", id, got)
		}
	}
	assertDoctorClean(t, dir)
}

// TestWriterIgnoringLockBetweenScanAndAppend: a writer that does not take
// the lock adds a question heading after the engine has read questions.md
// and before it writes. The engine must notice, allocate again, and keep
// the writer's question: no duplicate id, nothing lost.
//
// The writer runs from the engine's clock: Raise reads the clock inside its
// transaction, after questions.md is parsed and before the qid is chosen.
// The test checks that the lock is held at that moment.
func TestWriterIgnoringLockBetweenScanAndAppend(t *testing.T) {
	dir, wsDir := newProject(t)
	if r := runEngine(dir, raiseArgs("first", "yes")...); r.code != 0 {
		t.Fatalf("raise: exit %d: %s", r.code, r.stderr)
	}
	ws, err := mdstore.Find(mdstore.Locator{Workspace: wsDir})
	if err != nil {
		t.Fatal(err)
	}
	fixed, _ := time.Parse(time.RFC3339, testNow)
	qpath := filepath.Join(wsDir, mdstore.QuestionsFile)
	var once sync.Once
	var writerQID string
	var lockedDuringWrite bool
	clock := func() time.Time {
		once.Do(func() {
			lockedDuringWrite = mdstore.LockHolder(ws) == os.Getpid()
			b, err := os.ReadFile(qpath)
			if err != nil {
				t.Error(err)
				return
			}
			var ids []string
			for _, bl := range mdstore.ParseQuestions(b).Blocks() {
				ids = append(ids, bl.QID)
			}
			if writerQID, err = qid.Next(ids, nil, qid.Date(fixed)); err != nil {
				t.Error(err)
				return
			}
			f, err := os.OpenFile(qpath, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			if _, err := f.WriteString("\n## " + writerQID + "\nstatus: open\ngate: advisory\nquestion: typed in an editor\nprovisional: 1\n"); err != nil {
				t.Error(err)
			}
		})
		return fixed
	}
	eng, err := engine.Open(ws, clock, time.Minute, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Raise(context.Background(), engine.RaiseRequest{Gate: "advisory", Question: "second", Options: []string{"Yes"}, Answered: new("yes")}, "human")
	if err != nil {
		t.Fatal(err)
	}
	if !lockedDuringWrite {
		t.Fatal("the writer did not run inside the engine's transaction: the test proves nothing")
	}
	if res.QID == writerQID {
		t.Fatalf("engine allocated %s, which the writer had just added", res.QID)
	}
	qs := readQuestions(t, wsDir)
	count := map[string]int{}
	for _, b := range qs.Blocks() {
		count[b.QID]++
	}
	for id, n := range count {
		if n > 1 {
			t.Errorf("%s heads %d blocks, want 1", id, n)
		}
	}
	if b := qs.Find(writerQID); b == nil || b.Value("question") != "typed in an editor" {
		t.Errorf("the writer's question %s was lost", writerQID)
	}
	if b := qs.Find(res.QID); b == nil || b.Value("question") != "second" {
		t.Errorf("the engine's question %s is not in questions.md", res.QID)
	}
}

// TestConcurrentRaisesWithPlainWriter: while 60 processes raise, a writer
// that ignores the lock keeps appending question headings with the id it
// computes as next. Its own appends may race with the engine (a stale read
// followed by an append after the engine's rename), and they may be lost in
// the documented window; but the engine must never hand out an id that is
// already above its block in the file: whatever precedes a block the engine
// wrote was in the content it read.
//
// The writer appends every 5 ms: a transaction of the plain binary is
// shorter, one of the race-built binary is not, and the engine then gives up
// ("files kept changing while locked"). So this test runs without -race.
func TestConcurrentRaisesWithPlainWriter(t *testing.T) {
	dir, ws := newProject(t)
	qpath := filepath.Join(ws, mdstore.QuestionsFile)
	const n = 60
	jobs := make([][]string, n)
	for i := range jobs {
		jobs[i] = raiseArgs(fmt.Sprintf("engine %d", i), "yes")
	}
	stop := make(chan struct{})
	writerDone := make(chan int)
	go func() {
		date := testNow[:10]
		written := 0
		for {
			select {
			case <-stop:
				writerDone <- written
				return
			default:
			}
			b, _ := os.ReadFile(qpath)
			var ids []string
			for _, bl := range mdstore.ParseQuestions(b).Blocks() {
				ids = append(ids, bl.QID)
			}
			next, err := qid.Next(ids, nil, date)
			if err != nil {
				t.Error(err)
				writerDone <- written
				return
			}
			f, err := os.OpenFile(qpath, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				_, _ = f.WriteString("\n## " + next + "\nstatus: dropped\ngate: advisory\nquestion: plain writer\nanswer: x\n")
				f.Close()
				written++
			}
			time.Sleep(5 * time.Millisecond) // a busy person, not a program rewriting the file
		}
	}()
	results := runAll(dir, jobs)
	close(stop)
	t.Logf("the plain writer appended %d headings", <-writerDone)

	engineIDs := map[string]string{}
	for i, r := range results {
		id := raised(t, r)
		if prev, dup := engineIDs[id]; dup {
			t.Fatalf("%s given to %q and to process %d", id, prev, i)
		}
		engineIDs[id] = fmt.Sprintf("engine %d", i)
	}
	qs := readQuestions(t, ws)
	above := map[string]bool{}
	found := 0
	for _, b := range qs.Blocks() {
		if want, ok := engineIDs[b.QID]; ok && b.Value("question") == want {
			found++
			if above[b.QID] {
				t.Errorf("%s (%s) at line %d: an earlier block already has that id", b.QID, want, b.Line())
			}
		}
		above[b.QID] = true
	}
	if found != n {
		t.Errorf("%d of the engine's %d blocks are in questions.md", found, n)
	}
}
