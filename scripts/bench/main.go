// Command bench times one `devrites-engine state resolve` against the I/O
// floor (scripts/iofloor) on generated workspaces, as SPEC §12 asks. It is run
// by scripts/bench.sh, which builds both binaries first.
//
// Each round resets the workspace outside the timing (the three files
// rewritten, then sync(2) so that no earlier write is still on its way to
// the disk), then runs one program; the engine and the floor alternate, and
// which goes first alternates too. A time is process start to exit; peak
// RSS is the child's ru_maxrss.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	runs := flag.Int("runs", 31, "runs of each program per size")
	sizes := flag.String("sizes", "10,1000,10000", "workspace sizes, in questions")
	base := flag.String("dir", os.TempDir(), "directory to create the workspaces in")
	flag.Parse()
	if *engine == "" || *floor == "" {
		fmt.Fprintln(os.Stderr, "usage: bench -engine BIN -floor BIN [-runs N] [-sizes 10,1000] [-dir DIR]")
		os.Exit(2)
	}
	if err := run(*engine, *floor, *runs, *sizes, *base); err != nil {
		fmt.Fprintln(os.Stderr, "bench: "+err.Error())
		os.Exit(1)
	}
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

func run(engineBin, floorBin string, runs int, sizes, base string) error {
	root, err := os.MkdirTemp(base, "devrites-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	fmt.Printf("workspaces in %s; %d runs of each program per size; medians\n\n", base, runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "questions\tquestions.md\tengine\tfloor\tengine/floor\tengine peak RSS\tfloor peak RSS\t")
	var prev struct {
		n      int
		engine time.Duration
	}
	var growth []string
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("size %q: want a positive number", s)
		}
		ws := genWorkspace(n)
		dir := filepath.Join(root, strconv.Itoa(n), ".devrites", "work", "bench")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		open := fmt.Sprintf("q-2026-11-29-%03d", n)
		engineCmd := []string{engineBin, "--workspace", dir, "state", "resolve", open, "1"}
		floorCmd := []string{floorBin, dir}
		var eng, flo measure
		for i := 0; i < runs; i++ {
			order := []struct {
				m    *measure
				args []string
			}{{&eng, engineCmd}, {&flo, floorCmd}}
			if i%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, o := range order {
				if err := ws.reset(dir); err != nil {
					return err
				}
				d, rss, err := timed(o.args)
				if err != nil {
					return err
				}
				o.m.times = append(o.m.times, d)
				o.m.rss = max(o.m.rss, rss)
			}
		}
		em, fm := eng.median(), flo.median()
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.2fx\t%.1f MB\t%.1f MB\t\n", n, size(len(ws.questions)), ms(em), ms(fm),
			float64(em)/float64(fm), float64(eng.rss)/1024, float64(flo.rss)/1024)
		if prev.n > 0 {
			growth = append(growth, fmt.Sprintf("%dx the questions (%d → %d): engine %.1fx the time",
				n/prev.n, prev.n, n, float64(em)/float64(prev.engine)))
		}
		prev.n, prev.engine = n, em
	}
	tw.Flush()
	if len(growth) > 0 {
		fmt.Println()
		for _, g := range growth {
			fmt.Println(g)
		}
	}
	return nil
}

// timed runs a program and returns its wall time and peak RSS in KiB.
func timed(args []string) (time.Duration, int64, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "DEVRITES_NOW=2026-11-29T15:00:00Z", "NO_COLOR=1")
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = ru.Maxrss
	}
	return d, rss, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// workspace is the content a run starts from: n-1 answered questions and
// the n-th open and awaited, with their decisions logged.
type workspace struct {
	state, questions, decisions []byte
}

func genWorkspace(n int) workspace {
	var q, d strings.Builder
	q.WriteString("# Questions\n")
	d.WriteString("# Decisions\n")
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("q-2026-11-29-%03d", i)
		slice := fmt.Sprintf("%d — module %d", i%40+1, i%40+1)
		fmt.Fprintf(&q, "\n## %s\nstatus: %s\nslice: %s\ngate: blocking\nquestion: Which retry policy for the client of service %d?\n", id,
			map[bool]string{true: "open", false: "answered"}[i == n], slice, i)
		q.WriteString("options: |\n  1. Exponential backoff (Recommended) — logic: bounded load · business: fewer pages\n")
		q.WriteString("  2. Fixed delay — simpler, thundering herd\n  3. Something else — I'll describe it\n")
		q.WriteString("proposed: Exponential backoff\nsla: 15m\nraised_at: 2026-11-29T14:02:11Z\nbreakpoint: slice-" + strconv.Itoa(i%40+1) + ".blocking\n")
		if i < n {
			q.WriteString("answered_at: 2026-11-29T14:10:00Z\nanswer: Exponential backoff\nchoice: 1\nanswered_by: human\n")
			fmt.Fprintf(&d, "\n## %s answered\nslice: %s\ngate: blocking\nquestion: Which retry policy for the client of service %d?\n", id, slice, i)
			d.WriteString("answer: Exponential backoff\nchoice: 1\nanswered_by: human\nanswered_at: 2026-11-29T14:10:00Z\n")
		}
	}
	id := fmt.Sprintf("q-2026-11-29-%03d", n)
	state := "# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n| phase | build |\n| status | awaiting_human |\n" +
		"| active_slice | 3 — payments |\n| next_action | /rite-resolve " + id + " \"<answer>\" |\n| schema | 3 |\n\n" +
		"## Awaiting human\n| Key | Value |\n| --- | --- |\n| question_id | " + id + " |\n| gate | blocking |\n" +
		"| question | Which retry policy? |\n| proposed | Exponential backoff |\n| raised_at | 2026-11-29T14:02:11Z |\n\n" +
		"## Log\n- 2026-11-29T14:02:11Z build: raised " + id + " (blocking)\n"
	return workspace{state: []byte(state), questions: []byte(q.String()), decisions: []byte(d.String())}
}

// reset puts the starting content back and flushes it to the disk.
func (w workspace) reset(dir string) error {
	for name, b := range map[string][]byte{"state.md": w.state, "questions.md": w.questions, "decisions.md": w.decisions, ".lock": nil} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	syscall.Sync()
	return nil
}
