package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// crashFiles are the files a command writes, in the order it writes them.
var crashFiles = []string{mdstore.QuestionsFile, mdstore.StateFile, mdstore.DecisionsFile}

type snapshot map[string][]byte

func takeSnapshot(t *testing.T, ws string) snapshot {
	t.Helper()
	s := snapshot{}
	for _, name := range crashFiles {
		b, err := os.ReadFile(filepath.Join(ws, name))
		if err != nil {
			t.Fatal(err)
		}
		s[name] = b
	}
	return s
}

// crashSteps is a run of pausing raises, each resolved in one of four ways.
func crashSteps(cycles int) [][]string {
	var steps [][]string
	for i := 1; i <= cycles; i++ {
		id := fmt.Sprintf("q-2026-11-29-%03d", i)
		steps = append(steps, []string{"question", "raise", "--slice", fmt.Sprintf("%d — step", i), "--gate", "blocking",
			"--question", fmt.Sprintf("Question %d?", i), "--option", "Left — short", "--option", "Right", "--blocking-slices", "5, 6"})
		switch i % 4 {
		case 0:
			steps = append(steps, []string{"state", "resolve", id, "2"})
		case 1:
			steps = append(steps, []string{"state", "resolve", id, "in", "words", fmt.Sprint(i)})
		case 2:
			steps = append(steps, []string{"state", "resolve", "--drop", id, "not", "needed"})
		case 3:
			steps = append(steps, []string{"state", "resolve", "--reject", id, "re-slice", "it"})
		}
	}
	return steps
}

// TestCrashSafety kills the binary with SIGKILL at random moments of a long
// run of raises and resolutions. After every kill, each file must be either
// exactly as before the command or exactly as after it (never torn, never a
// third state); then doctor --fix, or an identical re-run, must finish the
// command so that the workspace is byte for byte what an uninterrupted run
// gives.
func TestCrashSafety(t *testing.T) {
	cycles := 100
	if testing.Short() {
		cycles = 20
	}
	bin := buildEngine(t)
	steps := crashSteps(cycles)

	// The reference: the same commands, never interrupted.
	refDir, refWS := newProject(t, bin)
	want := []snapshot{takeSnapshot(t, refWS)}
	var took []time.Duration
	for _, args := range steps {
		start := time.Now()
		r := runEngine(bin, refDir, args...)
		took = append(took, time.Since(start))
		if r.code != 0 && r.code != exitPaused {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		want = append(want, takeSnapshot(t, refWS))
	}
	// Kill times are drawn from the span in which uninterrupted commands
	// end, where the writes are, rather than from process start-up.
	slices.Sort(took)
	lo, hi := took[0]*4/5, took[len(took)*9/10]*11/10

	dir, ws := newProject(t, bin)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var untouched, partial, complete, byDoctor int
	for i, args := range steps {
		before, after := want[i], want[i+1]
		kill(t, bin, dir, args, lo+time.Duration(rng.Int63n(int64(hi-lo))))

		got := takeSnapshot(t, ws)
		newer := 0
		for _, name := range crashFiles {
			switch {
			case bytes.Equal(got[name], after[name]):
				if !bytes.Equal(before[name], after[name]) {
					newer++
				}
			case bytes.Equal(got[name], before[name]):
			default:
				t.Fatalf("step %d %v: %s is neither as before nor as after:\n%s", i, args, name, got[name])
			}
		}
		changed := 0
		for _, name := range crashFiles {
			if !bytes.Equal(before[name], after[name]) {
				changed++
			}
		}
		switch newer {
		case 0:
			untouched++
		case changed:
			complete++
		default:
			partial++
		}

		// Finish the command: doctor when questions.md was written (every
		// other time for resolutions, which may also simply be re-run),
		// else the same command again.
		questionsWritten := bytes.Equal(got[mdstore.QuestionsFile], after[mdstore.QuestionsFile])
		isRaise := args[0] == "question"
		if questionsWritten && (isRaise || i%4 == 1) {
			if r := runEngine(bin, dir, "doctor", "--fix"); r.code != 0 {
				t.Fatalf("step %d: doctor --fix: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
			}
			byDoctor++
		} else {
			if r := runEngine(bin, dir, args...); r.code != 0 && r.code != exitPaused {
				t.Fatalf("step %d: re-run %v: exit %d: %s", i, args, r.code, r.stderr)
			}
		}
		got = takeSnapshot(t, ws)
		for _, name := range crashFiles {
			if !bytes.Equal(got[name], after[name]) {
				t.Fatalf("step %d %v: after completion %s differs from an uninterrupted run:\n--- got\n%s\n--- want\n%s", i, args, name, got[name], after[name])
			}
		}
	}
	t.Logf("%d commands killed: %d before writing, %d half-way, %d after writing; %d finished by doctor --fix (killed after %v to %v)",
		len(steps), untouched, partial, complete, byDoctor, lo, hi)

	// Kills leave temporary files; doctor --fix removes them and then
	// finds nothing.
	if r := runEngine(bin, dir, "doctor", "--fix"); r.code != 0 {
		t.Fatalf("doctor --fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	assertDoctorClean(t, bin, dir)
	ents, _ := os.ReadDir(ws)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if want := []string{".lock", "decisions.md", "questions.md", "state.md"}; !slices.Equal(names, want) {
		t.Errorf("workspace holds %v, want %v", names, want)
	}
}

// kill starts the command and sends SIGKILL after d, unless it ended first.
func kill(t *testing.T, bin, dir string, args []string, d time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DEVRITES_NOW="+testNow, "NO_COLOR=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
}

// TestCrashBetweenFiles completes each half-done state a resolution can be
// left in, without relying on a kill landing there: questions.md written,
// state.md and decisions.md not; and questions.md and state.md written,
// decisions.md not. Both doctor --fix and the identical re-run must finish
// the transaction exactly.
func TestCrashBetweenFiles(t *testing.T) {
	bin := buildEngine(t)
	refDir, refWS := newProject(t, bin)
	raise := []string{"question", "raise", "--gate", "blocking", "--question", "Which?", "--option", "A", "--option", "B"}
	resolve := []string{"state", "resolve", "--reject", "q-2026-11-29-001", "too", "wide"}
	runEngine(bin, refDir, raise...)
	before := takeSnapshot(t, refWS)
	runEngine(bin, refDir, resolve...)
	after := takeSnapshot(t, refWS)

	for _, upto := range []int{1, 2} {
		for _, finish := range []string{"doctor", "re-run"} {
			t.Run(fmt.Sprintf("written=%d/finish=%s", upto, finish), func(t *testing.T) {
				dir, ws := newProject(t, bin)
				for i, name := range crashFiles {
					b := before[name]
					if i < upto {
						b = after[name]
					}
					if err := os.WriteFile(filepath.Join(ws, name), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				args := []string{"doctor", "--fix"}
				if finish == "re-run" {
					args = resolve
				}
				if r := runEngine(bin, dir, args...); r.code != 0 {
					t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
				}
				got := takeSnapshot(t, ws)
				for _, name := range crashFiles {
					if !bytes.Equal(got[name], after[name]) {
						t.Errorf("%s: got\n%s\nwant\n%s", name, got[name], after[name])
					}
				}
			})
		}
	}
}
