//go:build !windows

package app

// controllingTerminal is the process's controlling terminal: opening it
// fails (ENXIO) for a process that has none, as a harness's tool call.
const controllingTerminal = "/dev/tty"
