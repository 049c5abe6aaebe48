//go:build unix

package notify

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the hook in a process group of its own, so that
// killGroup reaches whatever it starts.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the hook's process group.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
