//go:build unix

package app

import (
	"os"
	"syscall"
)

// stopSignals end a long-running command (serve, mcp, relay) cleanly.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}
