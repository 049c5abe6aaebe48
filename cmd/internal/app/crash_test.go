//go:build unix

package app

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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

var seedFlag = flag.Int64("seed", 0, "TestCrashSafety: seed of the kill times (0: from the clock)")

// TestCrashSafety kills the binary with SIGKILL at random moments of a long
// run of raises and resolutions. After every kill, each file must be either
// exactly as before the command or exactly as after it (never torn, never a
// third state); then doctor --fix, or an identical re-run, must finish the
// command so that the workspace is byte for byte what an uninterrupted run
// gives.
//
// Half the kills go at a random time around the end of a command, the
// other half as soon as the command is seen writing. The writes are a
// small part of a command's life (on tmpfs, a fraction of a millisecond), so
// timed kills alone often miss them all; the test fails if no kill landed
// while a command was writing, since it would then have proved nothing.
func TestCrashSafety(t *testing.T) {
	cycles := 100
	switch {
	case *longFlag:
		cycles = 1000
	case testing.Short():
		cycles = 20
	}
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (-seed=%d draws the same kill times)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	steps := crashSteps(cycles)

	// The reference: the same commands, never interrupted.
	refDir, refWS := newProject(t)
	want := []snapshot{takeSnapshot(t, refWS)}
	var took []time.Duration
	for _, args := range steps {
		start := time.Now()
		r := runEngine(refDir, args...)
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

	dir, ws := newProject(t)
	var untouched, inWrite, betweenFiles, complete, byDoctor int
	for i, args := range steps {
		before, after := want[i], want[i+1]
		temps := tempFiles(t, ws)
		if rng.Intn(2) == 0 {
			kill(t, dir, args, lo+time.Duration(rng.Int63n(int64(hi-lo))), nil)
		} else {
			kill(t, dir, args, 0, writing(ws))
		}

		got := takeSnapshot(t, ws)
		newer, changed := 0, 0
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
			if !bytes.Equal(before[name], after[name]) {
				changed++
			}
		}
		tempLeft := len(tempFiles(t, ws)) > len(temps)
		switch {
		case tempLeft && newer < changed:
			inWrite++
		case newer == 0:
			untouched++
		case newer == changed:
			complete++
		default:
			betweenFiles++
		}

		// Finish the command: doctor when questions.md was written (every
		// other time for resolutions, which may also simply be re-run),
		// else the same command again. doctor completes a resolution only
		// from its Log line in state.md: with questions.md alone written,
		// nothing but questions.md says it was decided, so only the re-run
		// (the person confirming it) completes it (docs/doctor.md).
		questionsWritten := bytes.Equal(got[mdstore.QuestionsFile], after[mdstore.QuestionsFile])
		stateWritten := bytes.Equal(got[mdstore.StateFile], after[mdstore.StateFile])
		isRaise := args[0] == "question"
		if questionsWritten && (isRaise || i%4 == 1 && stateWritten) {
			if r := runEngine(dir, "doctor", "--fix"); r.code != 0 {
				t.Fatalf("step %d: doctor --fix: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
			}
			byDoctor++
		} else {
			if r := runEngine(dir, args...); r.code != 0 && r.code != exitPaused {
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
	t.Logf("%d commands: killed %d before writing, %d inside a write, %d between two files; %d finished writing; %d completed by doctor --fix (timed kills after %v to %v)",
		len(steps), untouched, inWrite, betweenFiles, complete, byDoctor, lo, hi)
	if inWrite+betweenFiles == 0 {
		t.Errorf("no kill landed while a command was writing (%d before, %d after): nothing here tested a torn write; seed %d", untouched, complete, seed)
	}

	// Kills leave temporary files; doctor --fix removes them and then
	// finds nothing.
	if r := runEngine(dir, "doctor", "--fix"); r.code != 0 {
		t.Fatalf("doctor --fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	assertDoctorClean(t, dir)
	ents, _ := os.ReadDir(ws)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if want := []string{".gitignore", ".lock", "decisions.md", "questions.md", "state.md"}; !slices.Equal(names, want) {
		t.Errorf("workspace holds %v, want %v", names, want)
	}
}

// tempFiles lists the temporary files of atomic writes in ws.
func tempFiles(t *testing.T, ws string) []string {
	t.Helper()
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if mdstore.IsTemp(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// writing returns a check that reports whether a write into ws has begun
// since it was made: a temporary file that was not there, or one of
// crashFiles replaced (an atomic write renames a new file over it).
func writing(ws string) func() bool {
	inode := func(name string) uint64 {
		fi, err := os.Stat(filepath.Join(ws, name))
		if err != nil {
			return 0
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	was := map[string]uint64{}
	for _, name := range crashFiles {
		was[name] = inode(name)
	}
	temps := map[string]bool{}
	ents, _ := os.ReadDir(ws)
	for _, e := range ents {
		temps[e.Name()] = mdstore.IsTemp(e.Name())
	}
	return func() bool {
		ents, _ := os.ReadDir(ws)
		for _, e := range ents {
			if mdstore.IsTemp(e.Name()) && !temps[e.Name()] {
				return true
			}
		}
		for _, name := range crashFiles {
			if inode(name) != was[name] {
				return true
			}
		}
		return false
	}
}

// kill starts the command and sends it SIGKILL, unless it ended first:
// after d, or, when seen is not nil, as soon as seen reports true (it is
// called over and over while the command runs).
func kill(t *testing.T, dir string, args []string, d time.Duration, seen func() bool) {
	t.Helper()
	cmd := engineCmd(dir, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	if seen == nil {
		select {
		case <-done:
			return
		case <-time.After(d):
		}
	} else {
		for !seen() {
			select {
			case <-done:
				return
			default:
			}
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// TestCrashBetweenFiles completes each half-done state a resolution can be
// left in, without relying on a kill landing there: questions.md written,
// state.md and decisions.md not; and questions.md and state.md written,
// decisions.md not. The identical re-run must finish the transaction
// exactly; so must doctor --fix when state.md holds the resolution's Log
// line, while with questions.md alone it writes nothing and exits 6: it
// never turns a line of questions.md into a decision (docs/doctor.md).
func TestCrashBetweenFiles(t *testing.T) {
	refDir, refWS := newProject(t)
	raise := []string{"question", "raise", "--gate", "blocking", "--question", "Which?", "--option", "A", "--option", "B"}
	resolve := []string{"state", "resolve", "--reject", "q-2026-11-29-001", "too", "wide"}
	runEngine(refDir, raise...)
	before := takeSnapshot(t, refWS)
	runEngine(refDir, resolve...)
	after := takeSnapshot(t, refWS)

	for _, upto := range []int{1, 2} {
		for _, finish := range []string{"doctor", "re-run"} {
			t.Run(fmt.Sprintf("written=%d/finish=%s", upto, finish), func(t *testing.T) {
				dir, ws := newProject(t)
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
				if finish == "doctor" && upto == 1 {
					r := runEngine(dir, args...)
					if r.code != exitMalformed || !strings.Contains(r.stdout, "answered with no record: a person must confirm it with state resolve") {
						t.Fatalf("%v: exit %d, want %d and no record\n%s%s", args, r.code, exitMalformed, r.stdout, r.stderr)
					}
					for i, name := range crashFiles {
						want := before[name]
						if i < upto {
							want = after[name]
						}
						if got := takeSnapshot(t, ws)[name]; !bytes.Equal(got, want) {
							t.Errorf("%s changed: got\n%s\nwant\n%s", name, got, want)
						}
					}
					return
				}
				if r := runEngine(dir, args...); r.code != 0 {
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
