package testtool

import (
	"fmt"
	"os"
	"testing"
)

// Missing skips t, or fails it under CI, because a program it needs is
// missing; format and args say which and how to get it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		t.Fatalf("CI: %s: the test cannot run", msg)
	}
	if name := os.Getenv("TESTTOOL_SKIPPED"); name != "" {
		if f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintf(f, "%s: %s\n", t.Name(), msg)
			f.Close()
		}
	}
	t.Skip(msg)
}

// CI reports whether the tests run under CI (CI set, and not "0" or
// "false"), where a test whose program is missing fails.
func CI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "0" && ci != "false"
}
