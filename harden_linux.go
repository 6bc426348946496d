package main

import "golang.org/x/sys/unix"

// hardenProcess makes tact's process non-dumpable: other processes of the
// same user (a tool's shell among them) can then neither read its memory
// nor its /proc environment, where the API key was at start-up. Failure is
// not fatal; the key is also removed from the environment tools inherit.
func hardenProcess() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
