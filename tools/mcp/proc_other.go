//go:build !unix

package mcp

import "os/exec"

// Signals used when stopping a stdio server (no process groups here).
const (
	sigTerm = 15
	sigKill = 9
)

// setProcessGroup does nothing where process groups do not exist.
func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup does nothing where process groups do not exist; the SDK
// still stops the server process itself.
func signalGroup(pid, sig int) {}
