package mcp

import "time"

// SetAskTimeout shortens how long a form may stay open, for a test; the
// function it returns puts it back.
func SetAskTimeout(d time.Duration) func() {
	old := askTimeout
	askTimeout = d
	return func() { askTimeout = old }
}
