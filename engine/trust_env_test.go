package engine

import (
	"os"
	"testing"
)

// TestMain keeps the tests off the person's trust store and config: HOME
// and XDG_CONFIG_HOME are a temporary directory for the whole package.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "engine-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", dir)
	os.Setenv("XDG_CONFIG_HOME", dir+"/.config")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
