//go:build !linux

package skills

import (
	"errors"
	"runtime"
)

var errNoSeccomp = errors.New("the seccomp socket filter needs Linux, not " + runtime.GOOS)

func seccompAvailable() error    { return errNoSeccomp }
func installSocketFilter() error { return errNoSeccomp }
func closeOnExecFrom3() error    { return errNoSeccomp }
