//go:build !unix

package app

import "os"

// stopSignals end a long-running command (serve, mcp, relay) cleanly: on
// Windows, Ctrl-C and Ctrl-Break (os.Interrupt); there is no SIGTERM to
// receive.
var stopSignals = []os.Signal{os.Interrupt}
