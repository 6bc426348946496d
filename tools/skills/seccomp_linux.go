//go:build linux

package skills

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// x32SyscallBit marks the x32 ABI's system calls on amd64; they report
// AUDIT_ARCH_X86_64 too, so the filter refuses every number at or above it.
const x32SyscallBit = 0x40000000

// Offsets in struct seccomp_data.
const (
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArg0 = 16 // low 32 bits on little-endian amd64 and arm64
)

// bpfInsn is one instruction of the filter before jumps are resolved: a
// jump names its targets by label ("" means the next instruction).
type bpfInsn struct {
	code   uint16
	k      uint32
	jt, jf string
	label  string
}

// socketFilter is the seccomp program applied before the skill starts:
// on another architecture than tact's own the process is killed; socket(2)
// (every domain), the x32 system calls and io_uring (which can open and
// connect sockets without socket(2)) fail with EACCES; socketpair(2) is
// allowed for AF_UNIX only, since such a pair cannot reach anything outside.
func socketFilter() ([]unix.SockFilter, error) {
	if !seccompArchSupported {
		return nil, errSeccompArch
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	prog := []bpfInsn{
		{code: ld, k: seccompDataArch},
		{code: jeq, k: seccompAuditArch, jf: "kill"},
		{code: ld, k: seccompDataNr},
		{code: jge, k: x32SyscallBit, jt: "deny"},
		{code: jeq, k: seccompSysSocket, jt: "deny"},
		{code: jeq, k: unix.SYS_IO_URING_SETUP, jt: "deny"},
		{code: jeq, k: unix.SYS_IO_URING_ENTER, jt: "deny"},
		{code: jeq, k: unix.SYS_IO_URING_REGISTER, jt: "deny"},
		{code: jeq, k: seccompSysSocketpair, jf: "allow"},
		{code: ld, k: seccompDataArg0},
		{code: jeq, k: unix.AF_UNIX, jt: "allow", jf: "deny"},
		{label: "allow", code: ret, k: unix.SECCOMP_RET_ALLOW},
		{label: "deny", code: ret, k: unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)},
		{label: "kill", code: ret, k: unix.SECCOMP_RET_KILL_PROCESS},
	}
	return assemble(prog)
}

// assemble resolves the labels of prog into relative jump offsets.
func assemble(prog []bpfInsn) ([]unix.SockFilter, error) {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	offset := func(from int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := at[label]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("seccomp filter: bad jump from %d to %q", from, label)
		}
		return uint8(to - from - 1), nil
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		jt, err := offset(i, in.jt)
		if err != nil {
			return nil, err
		}
		jf, err := offset(i, in.jf)
		if err != nil {
			return nil, err
		}
		out[i] = unix.SockFilter{Code: in.code, Jt: jt, Jf: jf, K: in.k}
	}
	return out, nil
}

// seccompAvailable reports whether this kernel and architecture can apply
// the socket filter: seccomp(2) must know the ERRNO and KILL_PROCESS actions.
func seccompAvailable() error {
	if !seccompArchSupported {
		return errSeccompArch
	}
	for _, action := range []uint32{unix.SECCOMP_RET_ERRNO, unix.SECCOMP_RET_KILL_PROCESS} {
		_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
		if errno != 0 {
			return fmt.Errorf("the seccomp socket filter is unavailable (needs Linux 4.14+ with CONFIG_SECCOMP_FILTER): action %#x: %w", action, errno)
		}
	}
	return nil
}

// installSocketFilter applies socketFilter to every thread of this process
// (and so to what it executes). It locks the calling goroutine to its
// thread; call it just before exec.
func installSocketFilter() error {
	filter, err := socketFilter()
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	switch {
	case errno != 0:
		return fmt.Errorf("install the seccomp socket filter: %w", errno)
	case r != 0:
		return fmt.Errorf("install the seccomp socket filter: thread %d could not be synchronised", r)
	}
	return nil
}

// closeOnExecFrom3 marks every file descriptor from 3 up close-on-exec, so
// nothing the parent leaked reaches the skill. It needs close_range(2)
// (Linux 5.11) or a readable /proc/self/fd, so call it before Landlock.
func closeOnExecFrom3() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("close_range: %w", err)
	}
	entries, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return fmt.Errorf("close_range is unsupported (%v) and /proc/self/fd is unreadable: %w", err, rerr)
	}
	for _, e := range entries {
		fd, convErr := strconv.Atoi(e.Name())
		if convErr != nil || fd < 3 {
			continue
		}
		if _, ferr := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); ferr != nil && !errors.Is(ferr, unix.EBADF) {
			return fmt.Errorf("mark fd %d close-on-exec: %w", fd, ferr)
		}
	}
	return nil
}
