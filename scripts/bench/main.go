//go:build unix

// Command bench times three devrites-engine commands, each against its own
// I/O floor (scripts/iofloor), on generated workspaces, as docs/performance.md describes. It
// is run by scripts/bench.sh, which builds both binaries first.
//
// A workspace of n questions comes in two forms: awaiting (n-1 questions
// answered, the n-th open and awaited by state.md) and running (all n
// answered, state.md running, nothing awaited); every answer is in
// decisions.md. The commands, and what each is measured against:
//
//   - resolve: `state resolve <the awaited qid> 1` on the awaiting form
//     (exit 0, state.md back to running), against `iofloor resolve`.
//   - raise: a blocking `question raise` with two options on the running
//     form; it pauses (exit 3, state.md awaiting_human). Against
//     `iofloor raise`.
//   - list: `questions list --status all --json` on the awaiting form,
//     stdout to /dev/null, against `iofloor list`.
//
// Each round resets the workspace outside the timing (the three files
// copied from the form's template, then sync(2) so that no earlier write is
// still on its way to the disk), then runs one program; the engine and the
// floor alternate, and which goes first alternates too. A time is process
// start to exit. Peak RSS is the child's ru_maxrss (from wait4, in KiB):
// Go starts a child with vfork, and Linux counts the parent's peak
// resident size in an exec'd child's ru_maxrss, so before each run the
// bench resets its own peak (/proc/self/clear_refs) and keeps the
// workspaces on disk, not in memory. A figure is then at least the bench's
// own resident size, about 3 MB.
//
// The children get the caller's environment without its DEVRITES_*
// variables, plus DEVRITES_NOW and NO_COLOR. The generated project has no
// AFK file, notify.yaml or rules.yaml: no notify hook runs.
//
// It prints one row per command and size (medians of the times, and the
// median of each round's engine/floor ratio), how each command's
// time grows with the size, and whether each target is met, for the sizes
// measured: docs/performance.md's (resolve within 2.5x the floor at 1,000 and at
// 10,000 questions, every command under 32 MB at 10,000) and raise within
// 2x the floor at 1,000.
//
// With -rss it times nothing: it measures the peak RSS of every command
// that reads a whole workspace (rss.go).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

func main() {
	engine := flag.String("engine", "", "the devrites-engine binary")
	floor := flag.String("floor", "", "the iofloor binary")
	runs := flag.Int("runs", 31, "runs of each program per command and size")
	sizes := flag.String("sizes", "10,1000,10000", "workspace sizes, in questions")
	cmds := flag.String("commands", "resolve,raise,list", "commands to measure")
	base := flag.String("dir", os.TempDir(), "directory to create the workspaces in")
	rss := flag.Bool("rss", false, "measure the peak RSS of every command that reads a whole workspace, untimed (rss.go)")
	flag.Parse()
	if *engine == "" || *floor == "" {
		fmt.Fprintln(os.Stderr, "usage: bench -engine BIN -floor BIN [-runs N] [-sizes 10,1000] [-commands resolve,raise,list] [-dir DIR] [-rss]")
		os.Exit(2)
	}
	if err := run(*engine, *floor, *runs, *sizes, *cmds, *base, *rss); err != nil {
		fmt.Fprintln(os.Stderr, "bench: "+err.Error())
		os.Exit(1)
	}
}

// command is one engine command and its floor.
type command struct {
	name    string
	running bool                 // starts from the running form, not the awaiting one
	args    func(n int) []string // the engine's arguments, after --workspace
	exit    int                  // the engine's exit code when it does its job
	status  string               // state.md's status after the engine ran; "" for unchanged
}

var commands = []command{
	{name: "resolve", args: func(n int) []string { return []string{"state", "resolve", qid(n), "1"} }, status: "running"},
	{name: "raise", running: true, exit: 3, status: "awaiting_human", args: func(int) []string {
		return []string{"question", "raise", "--slice", "3 — payments", "--gate", "blocking",
			"--question", "Which retry policy?", "--option", "Exponential backoff", "--option", "Fixed delay"}
	}},
	{name: "list", args: func(int) []string { return []string{"questions", "list", "--status", "all", "--json"} }},
}

type measure struct {
	times []time.Duration
	rss   int64 // KiB, the highest of the runs
}

func (m *measure) median() time.Duration {
	s := slices.Clone(m.times)
	slices.Sort(s)
	return s[len(s)/2]
}

// pairedRatio is the median of the ratios of each round's two runs, which
// ran one after the other: slower spells of the disk (an fsync can take
// twice as long for a while) weigh on both runs of a round alike, where
// they move the median of one program's times alone.
func pairedRatio(eng, flo *measure) float64 {
	r := make([]float64, len(eng.times))
	for i := range r {
		r[i] = float64(eng.times[i]) / float64(flo.times[i])
	}
	slices.Sort(r)
	return r[len(r)/2]
}

// result is one row of the table.
type result struct {
	cmd      string
	n        int
	eng, flo time.Duration
	ratio    float64 // pairedRatio
	engRSS   int64   // KiB
}

func run(engineBin, floorBin string, runs int, sizes, cmds, base string, rss bool) error {
	var ns []int
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("size %q: want a positive number", s)
		}
		ns = append(ns, n)
	}
	var todo []command
	for _, name := range strings.Split(cmds, ",") {
		i := slices.IndexFunc(commands, func(c command) bool { return c.name == strings.TrimSpace(name) })
		if i < 0 {
			return fmt.Errorf("command %q: want resolve, raise or list", name)
		}
		todo = append(todo, commands[i])
	}
	root, err := os.MkdirTemp(base, "devrites-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	// Each size gets a project with one feature directory, and the
	// templates of both forms beside it.
	for _, n := range ns {
		for _, running := range []bool{false, true} {
			if err := genWorkspace(n, running).save(template(root, n, running)); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(workDir(root, n), 0o755); err != nil {
			return err
		}
	}
	debug.FreeOSMemory() // the generated text is garbage now
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	env := childEnv()
	if rss {
		if err := measureRSS(engineBin, runs, ns, root, env, devnull); err != nil {
			return err
		}
		return measureMergeRSS(engineBin, runs, ns, root, env, devnull)
	}

	fmt.Printf("workspaces in %s; %d runs of each program per command and size; medians (engine/floor: of\n", base, runs)
	fmt.Printf("the ratios of the two runs of each round)\n\n")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "command\tquestions\tquestions.md\tengine\tfloor\tengine/floor\tengine peak RSS\tfloor peak RSS\t")
	var results []result
	var growth []string
	for _, c := range todo {
		var steps []string
		for i, n := range ns {
			tmpl, dir := template(root, n, c.running), workDir(root, n)
			progs := [2]struct {
				m      measure
				args   []string
				exit   int
				status string
			}{
				{args: append([]string{engineBin, "--workspace", dir}, c.args(n)...), exit: c.exit, status: c.status},
				{args: []string{floorBin, c.name, dir}},
			}
			for r := 0; r < runs; r++ {
				for k := range 2 {
					p := &progs[(k+r)%2] // the engine first in even rounds, the floor in odd ones
					if err := reset(tmpl, dir); err != nil {
						return err
					}
					d, rss, err := timed(p.args, env, devnull, p.exit)
					if err != nil {
						return err
					}
					if err := checkStatus(dir, p.status); err != nil {
						return fmt.Errorf("%s: %v", strings.Join(p.args, " "), err)
					}
					p.m.times = append(p.m.times, d)
					p.m.rss = max(p.m.rss, rss)
				}
			}
			eng, flo := &progs[0].m, &progs[1].m
			qsize, err := fileSize(filepath.Join(tmpl, "questions.md"))
			if err != nil {
				return err
			}
			em, fm, ratio := eng.median(), flo.median(), pairedRatio(eng, flo)
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.2fx\t%s\t%s\t\n", c.name, n, size(qsize), ms(em), ms(fm),
				ratio, mb(eng.rss), mb(flo.rss))
			if i > 0 {
				prev := results[len(results)-1]
				steps = append(steps, fmt.Sprintf("%s the questions (%d → %d): engine %.1fx the time",
					times(float64(n)/float64(prev.n)), prev.n, n, float64(em)/float64(prev.eng)))
			}
			results = append(results, result{cmd: c.name, n: n, eng: em, flo: fm, ratio: ratio, engRSS: eng.rss})
		}
		if len(steps) > 0 {
			growth = append(growth, c.name+": "+strings.Join(steps, "; "))
		}
	}
	tw.Flush()
	if len(growth) > 0 {
		fmt.Println()
		for _, g := range growth {
			fmt.Println(g)
		}
	}
	if t := targets(results); len(t) > 0 {
		fmt.Println("\ntargets:")
		for _, l := range t {
			fmt.Println("  " + l)
		}
	}
	return nil
}

// targets says, for each target whose command and size were measured,
// whether it is met: resolve within 2.5x the floor at 1,000 and at 10,000
// questions (docs/performance.md), raise within 2x
// at 1,000, and every command under 32 MB of peak RSS at 10,000.
func targets(results []result) []string {
	var out []string
	ratio := func(cmd string, n int, limit float64, source string) {
		for _, r := range results {
			if r.cmd == cmd && r.n == n {
				x := r.ratio
				out = append(out, fmt.Sprintf("%s at %d questions within %.1fx the floor%s: %.2fx (%s vs %s): %s",
					cmd, n, limit, source, x, ms(r.eng), ms(r.flo), met(x <= limit)))
			}
		}
	}
	ratio("resolve", 1000, 2.5, " (docs/performance.md)")
	ratio("resolve", 10000, 2.5, " (docs/performance.md)")
	ratio("raise", 1000, 2, "")
	for _, r := range results {
		if r.n == 10000 {
			out = append(out, fmt.Sprintf("%s at 10000 questions under 32 MB of peak RSS (docs/performance.md): %s: %s",
				r.cmd, mb(r.engRSS), met(r.engRSS < 32*1024)))
		}
	}
	return out
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// timed runs a program and returns its wall time and peak RSS in KiB. Its
// exit code must be exit; its stdout goes to out.
func timed(args, env []string, out *os.File, exit int) (time.Duration, int64, error) {
	return timedIn("", args, env, out, exit)
}

// timedIn is timed, the program run in the directory dir.
func timedIn(dir string, args, env []string, out *os.File, exit int) (time.Duration, int64, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env, cmd.Dir = env, dir
	cmd.Stdout = out
	var errb strings.Builder
	cmd.Stderr = &errb
	// Reset the bench's own peak RSS to its current size, since the child's
	// ru_maxrss starts from it (see the top of the file).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, 0, fmt.Errorf("cannot reset the peak RSS, which the children's would include: %v", err)
	}
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	var xerr *exec.ExitError
	if errors.As(err, &xerr) && xerr.ExitCode() == exit {
		err = nil
	}
	if err == nil && cmd.ProcessState.ExitCode() != exit {
		err = fmt.Errorf("exit status %d, want %d", cmd.ProcessState.ExitCode(), exit)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = int64(ru.Maxrss) // KiB on Linux (int32 on 32-bit systems)
	}
	return d, rss, nil
}

// childEnv is the bench's environment without DEVRITES_* variables (which
// could point the engine elsewhere or change what it does), with the clock
// fixed and colour off.
func childEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "DEVRITES_") })
	return append(env, "DEVRITES_NOW=2026-11-29T15:00:00Z", "NO_COLOR=1")
}

// checkStatus checks that state.md's status is want, unless want is "".
func checkStatus(dir, want string) error {
	if want == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "state.md"))
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte("\n| status | "+want+" |\n")) {
		return fmt.Errorf("state.md: status is not %s after the run", want)
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// mb prints KiB in MB of 1,024 KiB.
func mb(kib int64) string { return fmt.Sprintf("%.1f MB", float64(kib)/1024) }

func size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

func times(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) + "x" }

func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
