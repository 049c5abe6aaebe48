// Package testhome keeps a test run off the person's home: HOME and
// XDG_CONFIG_HOME (where the trust store and other config live) point to a
// temporary directory for the whole run, removed afterwards. Tests call it
// from TestMain; the processes they start inherit it.
package testhome

import (
	"os"
	"path/filepath"
)

// Run runs the tests (m.Run) with HOME and XDG_CONFIG_HOME in a temporary
// directory, and returns their exit code.
func Run(run func() int) int {
	dir, err := os.MkdirTemp("", "devrites-home-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv("HOME", dir)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config"))
	return run()
}
