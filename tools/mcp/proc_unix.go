//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// Signals used when stopping a stdio server's process group.
const (
	sigTerm = int(syscall.SIGTERM)
	sigKill = int(syscall.SIGKILL)
)

// setProcessGroup starts cmd in a process group of its own, so the whole
// server (npx and the node process it starts, say) can be stopped together and
// a Ctrl-C in the terminal does not reach it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid, sig int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.Signal(sig))
	}
}
