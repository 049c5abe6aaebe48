//go:build windows

package app

// controllingTerminal is the console's input: opening it fails for a
// process without a console.
const controllingTerminal = "CONIN$"
