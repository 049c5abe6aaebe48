//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The generated workspaces, and their reset before each run.

func qid(i int) string { return fmt.Sprintf("q-2026-11-29-%03d", i) }

// workDir is the feature directory of the project of n questions.
func workDir(root string, n int) string {
	return filepath.Join(root, strconv.Itoa(n), ".devrites", "work", "bench")
}

// template is where the starting files of a form are kept.
func template(root string, n int, running bool) string {
	return filepath.Join(root, strconv.Itoa(n), map[bool]string{false: "awaiting", true: "running"}[running])
}

// workspace is the content a run starts from. Awaiting: n-1 answered
// questions and the n-th open and awaited. Running: all n answered and
// nothing awaited. Every answer is logged in decisions.md, and every raise
// and answer in state.md's Log (about 140 KB at 1,000 questions, the realistic
// workspace of docs/performance.md).
type workspace struct {
	state, questions, decisions []byte
}

func genWorkspace(n int, running bool) workspace {
	var q, d, log strings.Builder
	q.WriteString("# Questions\n")
	d.WriteString("# Decisions\n")
	for i := 1; i <= n; i++ {
		answered := i < n || running
		slice := fmt.Sprintf("%d — module %d", i%40+1, i%40+1)
		fmt.Fprintf(&q, "\n## %s\nstatus: %s\nslice: %s\ngate: blocking\nquestion: Which retry policy for the client of service %d?\n", qid(i),
			map[bool]string{false: "open", true: "answered"}[answered], slice, i)
		q.WriteString("options: |\n  1. Exponential backoff (Recommended) — logic: bounded load · business: fewer pages\n")
		q.WriteString("  2. Fixed delay — simpler, thundering herd\n  3. Something else — I'll describe it\n")
		q.WriteString("proposed: Exponential backoff\nsla: 15m\nraised_at: 2026-11-29T14:02:11Z\nbreakpoint: slice-" + strconv.Itoa(i%40+1) + ".blocking\n")
		if answered {
			q.WriteString("answered_at: 2026-11-29T14:10:00Z\nanswer: Exponential backoff\nchoice: 1\nanswered_by: human\n")
			fmt.Fprintf(&d, "\n## %s answered\nslice: %s\ngate: blocking\nquestion: Which retry policy for the client of service %d?\n", qid(i), slice, i)
			d.WriteString("answer: Exponential backoff\nchoice: 1\nanswered_by: human\nanswered_at: 2026-11-29T14:10:00Z\n")
			if i < n {
				fmt.Fprintf(&log, "- 2026-11-29T14:02:11Z build: raised %s (blocking)\n- 2026-11-29T14:10:00Z build: answered %s; next: /rite-build\n", qid(i), qid(i))
			}
		}
	}
	id := qid(n)
	cursor := "# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n| phase | build |\n"
	var state string
	if running {
		state = cursor + "| status | running |\n| active_slice | 3 — payments |\n| next_action | /rite-build |\n| schema | 3 |\n\n" +
			"## Log\n" + log.String() + "- 2026-11-29T14:02:11Z build: raised " + id + " (blocking)\n" +
			"- 2026-11-29T14:10:00Z build: answered " + id + "; next: /rite-build\n"
	} else {
		state = cursor + "| status | awaiting_human |\n| active_slice | 3 — payments |\n| next_action | /rite-resolve " + id + " \"<answer>\" |\n| schema | 3 |\n\n" +
			"## Awaiting human\n| Key | Value |\n| --- | --- |\n| question_id | " + id + " |\n| gate | blocking |\n" +
			"| question | Which retry policy? |\n| proposed | Exponential backoff |\n| raised_at | 2026-11-29T14:02:11Z |\n\n" +
			"## Log\n" + log.String() + "- 2026-11-29T14:02:11Z build: raised " + id + " (blocking)\n"
	}
	return workspace{state: []byte(state), questions: []byte(q.String()), decisions: []byte(d.String())}
}

// save writes the workspace's files into dir.
func (w workspace) save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"state.md": w.state, "questions.md": w.questions, "decisions.md": w.decisions} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// reset copies the starting files from the template tmpl into dir, empties
// the lock file and flushes it all to the disk.
func reset(tmpl, dir string) error {
	if err := copyForm(tmpl, dir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".lock"), nil, 0o644); err != nil {
		return err
	}
	syscall.Sync()
	return nil
}

// copyForm copies the workspace files of the template tmpl into dir.
func copyForm(tmpl, dir string) error {
	for _, name := range []string{"state.md", "questions.md", "decisions.md"} {
		if err := copyFile(filepath.Join(tmpl, name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies src over dst in the kernel (copy_file_range), so that the
// bench's own memory does not grow with the workspace.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
