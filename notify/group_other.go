//go:build !unix

package notify

import "os/exec"

// ownGroup does nothing: without process groups, what the hook starts
// itself is not reached by killGroup.
func ownGroup(*exec.Cmd) {}

// killGroup kills the hook's process; a program it started and left
// running lives on (cmd.WaitDelay still bounds the wait for its output).
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
