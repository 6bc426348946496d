//go:build linux && arm64

package skills

import (
	"errors"

	"golang.org/x/sys/unix"
)

// The socket filter's architecture and system call numbers on arm64.
const (
	seccompArchSupported = true
	seccompAuditArch     = unix.AUDIT_ARCH_AARCH64
	seccompSysSocket     = unix.SYS_SOCKET
	seccompSysSocketpair = unix.SYS_SOCKETPAIR
)

var errSeccompArch = errors.New("unreachable on arm64")
