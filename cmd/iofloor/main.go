// Command iofloor is the baseline the engine is measured against: the least
// a `state resolve` must do on disk. It takes the same exclusive flock on
// the workspace's .lock, reads state.md and questions.md, and writes both
// back, unchanged, with the engine's own atomic write (temp file, fsync,
// rename, fsync of the directory). scripts/bench.sh runs it beside the
// engine.
//
//	iofloor <feature directory>
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/devrites/devrites-engine/mdstore"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: iofloor <feature directory>")
		return 2
	}
	if err := floor(args[0]); err != nil {
		fmt.Fprintln(stderr, "iofloor: "+err.Error())
		return 1
	}
	return 0
}

func floor(dir string) error {
	lock, err := os.OpenFile(filepath.Join(dir, mdstore.LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	names := []string{mdstore.QuestionsFile, mdstore.StateFile}
	data := make([][]byte, len(names))
	for i, name := range names {
		if data[i], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	for i, name := range names {
		if err := mdstore.WriteAtomic(filepath.Join(dir, name), data[i]); err != nil {
			return err
		}
	}
	return nil
}
