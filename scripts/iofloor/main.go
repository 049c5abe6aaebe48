// Command iofloor is the baseline the engine is measured against: the least
// a `state resolve` must do on disk. It takes the same exclusive flock on
// the workspace's .lock, reads state.md and questions.md, and writes both
// back, unchanged, the way the engine writes (google/renameio with the
// temporary file beside the target, fsync, rename, fsync of the directory).
// It is minimal on purpose: it links no markdown parser and none of the
// engine's packages, so their start-up cost counts against the engine.
// scripts/bench.sh runs it beside the engine.
//
//	iofloor <feature directory>
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
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
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	names := []string{"questions.md", "state.md"}
	data := make([][]byte, len(names))
	for i, name := range names {
		if data[i], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	for i, name := range names {
		if err := writeAtomic(filepath.Join(dir, name), data[i]); err != nil {
			return err
		}
	}
	return nil
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
