//go:build unix

// Command iofloor is the baseline the engine is measured against: the least
// a command must do on disk, done the way the engine does it, with nothing
// else. scripts/bench.sh runs it beside the engine, one mode per command:
//
//   - resolve (`state resolve`, the floor docs/performance.md describes): the exclusive
//     flock on the workspace's .lock; read state.md, questions.md and
//     decisions.md; write questions.md and state.md back, unchanged, by
//     fsync'd atomic rename; append one decision record (about 250 bytes)
//     to decisions.md opened O_APPEND, and fsync it.
//   - raise (`question raise`): the exclusive flock; read state.md and
//     questions.md; write questions.md with one question block (about 450
//     bytes) appended, and state.md unchanged, by fsync'd atomic rename.
//   - list (`questions list --status all --json`): a shared flock on .lock;
//     read questions.md and copy it to stdout, about the size of the JSON.
//
// An atomic rename is google/renameio's: the temporary file beside the
// target, fsync, rename, then fsync of the directory, as mdstore.WriteAtomic.
// It is minimal on purpose: it links no markdown parser and none of the
// engine's packages, so their start-up cost counts against the engine.
//
//	iofloor resolve|raise|list <feature directory>
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// decision is what a resolve appends to decisions.md.
const decision = "\n## q-2026-11-29-001 answered\nslice: 3 — payments\ngate: blocking\n" +
	"question: Which retry policy for the client of the payments service on timeouts?\n" +
	"answer: Exponential backoff, capped at 30 s\nchoice: 1\nanswered_by: human\nanswered_at: 2026-11-29T15:00:00Z\n"

// question is the block a raise appends to questions.md.
const question = "\n## q-2026-11-29-002\nstatus: open\nslice: 3 — payments\ngate: blocking\n" +
	"question: Which retry policy for the client of the payments service on timeouts?\noptions: |\n" +
	"  1. Exponential backoff (Recommended) — logic: bounded load · business: fewer pages\n" +
	"  2. Fixed delay — simpler, but a thundering herd\n  3. Something else — I'll describe it\n" +
	"proposed: Exponential backoff\nsla: 15m\nraised_at: 2026-11-29T15:00:00Z\nbreakpoint: slice-3.blocking\n"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	modes := map[string]func(dir string, stdout io.Writer) error{"resolve": resolve, "raise": raise, "list": list}
	if len(args) != 2 || modes[args[0]] == nil {
		fmt.Fprintln(stderr, "usage: iofloor resolve|raise|list <feature directory>")
		return 2
	}
	if err := modes[args[0]](args[1], stdout); err != nil {
		fmt.Fprintln(stderr, "iofloor: "+err.Error())
		return 1
	}
	return 0
}

func resolve(dir string, _ io.Writer) error {
	unlock, err := lock(dir, syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := read(dir, "state.md", "questions.md", "decisions.md")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "questions.md"), data[1]); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "state.md"), data[0]); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "decisions.md"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(decision); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func raise(dir string, _ io.Writer) error {
	unlock, err := lock(dir, syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := read(dir, "state.md", "questions.md")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "questions.md"), append(data[1], question...)); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "state.md"), data[0])
}

func list(dir string, stdout io.Writer) error {
	unlock, err := lock(dir, syscall.LOCK_SH)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := read(dir, "questions.md")
	if err != nil {
		return err
	}
	_, err = stdout.Write(data[0])
	return err
}

// lock takes a flock of kind how (LOCK_EX or LOCK_SH) on dir/.lock, as the
// engine's does, and returns its release.
func lock(dir string, how int) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// read returns the content of each named file of dir.
func read(dir string, names ...string) ([][]byte, error) {
	data := make([][]byte, len(names))
	for i, name := range names {
		var err error
		if data[i], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// writeAtomic writes as mdstore.WriteAtomic does.
func writeAtomic(path string, data []byte) error {
	if err := renameio.WriteFile(path, data, 0o644, renameio.WithTempDir(filepath.Dir(path))); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
