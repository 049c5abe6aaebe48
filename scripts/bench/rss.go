//go:build unix

package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

// With -rss, the bench runs each command below, untimed and without its
// floor, on the workspace of each size (reset before every run, as for
// the timings), and prints the median and the highest of the runs' peak
// RSS, and at 10,000 questions whether the median is under the 32 MB of
// docs/performance.md. -commands is not read. The bench's workspace gives doctor a
// finding for each id above 999 (its ids are all of one day): 9,001
// warnings at 10,000, its worst case.
var rssCommands = []struct {
	name    string
	running bool // the running form, not the awaiting one
	exit    int
	args    func(n int) []string
}{
	{name: "state resolve", args: func(n int) []string { return []string{"state", "resolve", qid(n), "1"} }},
	{name: "question raise", running: true, exit: 3, args: argsOf("raise")},
	{name: "questions list --json", args: argsOf("list")},
	{name: "state show --json", args: words("state show --json")},
	{name: "state check", exit: 3, args: words("state check")},
	{name: "qid next", running: true, args: words("qid next")},
	{name: "remind", args: words("remind")},
	{name: "questions overdue --json", args: words("questions overdue --json")},
	{name: "doctor", args: words("doctor")},
	{name: "doctor --json", args: words("doctor --json")},
	{name: "wait --timeout 10ms", exit: 3, args: words("wait --timeout 10ms")},
}

func words(s string) func(int) []string { return func(int) []string { return strings.Fields(s) } }

// argsOf is the arguments of a timed command.
func argsOf(name string) func(int) []string {
	return commands[slices.IndexFunc(commands, func(c command) bool { return c.name == name })].args
}

func measureRSS(engineBin string, runs int, ns []int, root string, env []string, out *os.File) error {
	fmt.Printf("peak RSS of each command, %d runs each\n\n", runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "command\tquestions\tmedian\thighest\t\t")
	for _, c := range rssCommands {
		for _, n := range ns {
			dir := workDir(root, n)
			var rss []int64
			for range runs {
				if err := reset(template(root, n, c.running), dir); err != nil {
					return err
				}
				_, r, err := timed(append([]string{engineBin, "--workspace", dir}, c.args(n)...), env, out, c.exit)
				if err != nil {
					return err
				}
				rss = append(rss, r)
			}
			rssRow(tw, c.name, n, rss, true)
		}
	}
	return tw.Flush()
}

// rssRow prints the median and the highest of a command's peak RSS, and,
// when judged, at 10,000 questions whether the median is under the 32 MB
// of docs/performance.md (which the merge driver may pass).
func rssRow(tw *tabwriter.Writer, name string, n int, rss []int64, judged bool) {
	slices.Sort(rss)
	verdict := ""
	if n == 10000 && judged {
		verdict = "under 32 MB: " + met(rss[len(rss)/2] < 32*1024)
	}
	fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t\n", name, n, mb(rss[len(rss)/2]), mb(rss[len(rss)-1]), verdict)
}
