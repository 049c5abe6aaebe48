// Package testhome keeps a test run off the person's home: HOME and
// XDG_CONFIG_HOME (where the trust store and other config live) point to a
// temporary directory for the whole run, removed afterwards. Tests call it
// from TestMain; the processes they start inherit it.
package testhome

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/devrites/devrites-engine/trust"
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

// Trust records the file at path as trusted in the run's trust store, as a
// person would with devrites-engine trust.
func Trust(t testing.TB, path string) {
	t.Helper()
	s, err := trust.Open()
	if err == nil {
		_, err = s.Trust(path)
	}
	if err != nil {
		t.Fatal(err)
	}
}
