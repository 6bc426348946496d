//go:build linux && !amd64 && !arm64

package skills

import (
	"fmt"
	"runtime"
)

// tact has no seccomp socket filter for this architecture, so skills refuse
// to run here unless skills.allow_unsandboxed is set.
const (
	seccompArchSupported = false
	seccompAuditArch     = 0
	seccompSysSocket     = 0
	seccompSysSocketpair = 0
)

var errSeccompArch = fmt.Errorf("tact has no seccomp socket filter for %s (only amd64 and arm64)", runtime.GOARCH)
