package skills

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// probeArg makes the test binary a small network client (see TestMain), so
// the socket tests need no curl or socat inside the sandbox.
const probeArg = "__skill-probe"

// probeMain dials network ("unix") at addr and prints CONNECTED or
// REFUSED with the error.
func probeMain(network, addr string) int {
	c, err := net.DialTimeout(network, addr, time.Second)
	if err != nil {
		fmt.Println("REFUSED:", err)
		return 0
	}
	c.Close()
	fmt.Println("CONNECTED")
	return 0
}

// probeOptions let a sandboxed skill execute the test binary.
func probeOptions() Options {
	return Options{ReadDirs: []string{filepath.Dir(testBinary())}}
}

func testBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

// countAccepts accepts connections on ln until it is closed.
func countAccepts(ln net.Listener) *atomic.Int32 {
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

func TestSandboxRefusesUnixSocketOutside(t *testing.T) {
	needSandbox(t)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := countAccepts(ln)
	probe := strconv.Quote(testBinary()) + " " + probeArg + " unix " + strconv.Quote(sock)

	// Control: outside the sandbox the probe does connect.
	out, err := exec.Command("bash", "-c", probe).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "CONNECTED") {
		t.Fatalf("control run without sandbox did not connect: %s %v", out, err)
	}
	waitFor(t, func() bool { return accepted.Load() == 1 })

	s, _ := newSkill(t, probe, "", probeOptions())
	r := run(t, s, `{}`)
	if strings.Contains(r.Output, "CONNECTED") || !strings.Contains(r.Output, "REFUSED") {
		t.Errorf("the sandbox allowed connecting to a unix socket outside it:\n%s", r.Text())
	}
	if !strings.Contains(r.Output, "permission denied") {
		t.Errorf("want permission denied from socket(2):\n%s", r.Output)
	}
	time.Sleep(50 * time.Millisecond)
	if n := accepted.Load(); n != 1 {
		t.Errorf("listener accepted %d connections, want only the control one", n)
	}
}

func TestSandboxRefusesUDPSend(t *testing.T) {
	needSandbox(t)
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var received atomic.Int32
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			received.Add(1)
		}
	}()
	port := pc.LocalAddr().(*net.UDPAddr).Port
	probe := fmt.Sprintf("if echo ping > /dev/udp/127.0.0.1/%d; then echo SENT; else echo REFUSED; fi", port)

	out, _ := exec.Command("bash", "-c", probe).CombinedOutput()
	if !strings.Contains(string(out), "SENT") {
		t.Fatalf("control run without sandbox did not send: %s", out)
	}
	waitFor(t, func() bool { return received.Load() == 1 })

	s, _ := newSkill(t, probe, "", Options{})
	r := run(t, s, `{}`)
	if strings.Contains(r.Output, "SENT") || !strings.Contains(r.Output, "REFUSED") {
		t.Errorf("the sandbox allowed a UDP send:\n%s", r.Text())
	}
	if !strings.Contains(r.Output, "Permission denied") {
		t.Errorf("want permission denied from socket(2):\n%s", r.Output)
	}
	time.Sleep(100 * time.Millisecond)
	if n := received.Load(); n != 1 {
		t.Errorf("listener received %d datagrams, want only the control one", n)
	}
}

func TestSandboxReadsOnlyListedEtc(t *testing.T) {
	needSandbox(t)
	s, _ := newSkill(t, `cat /etc/passwd > /dev/null && echo passwd-ok
if cat /etc/shadow > /dev/null; then echo SHADOW-READ; else echo shadow-refused; fi; exit 0`, "", Options{})
	r := run(t, s, `{}`)
	if !strings.Contains(r.Output, "passwd-ok") {
		t.Errorf("/etc/passwd must stay readable:\n%s", r.Output)
	}
	if _, err := os.ReadFile("/etc/shadow"); err != nil {
		t.Skipf("/etc/shadow is not readable by this test (uid %d: %v), so the sandbox cannot be shown to hide it", os.Getuid(), err)
	}
	if strings.Contains(r.Output, "SHADOW-READ") || !strings.Contains(r.Output, "shadow-refused") ||
		!strings.Contains(r.Output, "Permission denied") {
		t.Errorf("the sandbox let the skill read /etc/shadow:\n%s", r.Output)
	}
}

func TestSandboxClosesInheritedFDs(t *testing.T) {
	needSandbox(t)
	f := filepath.Join(t.TempDir(), "leak.txt")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(f, syscall.O_RDONLY, 0) // no O_CLOEXEC, like a careless library
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC != 0 {
		t.Fatalf("test fd %d flags %#x err %v, want inheritable", fd, flags, err)
	}
	// /proc is not readable in the sandbox, so the probe duplicates the fd.
	probe := fmt.Sprintf("if { : <&%d; } 2>/dev/null; then echo fd-%d-OPEN; else echo fd-%d-closed; fi", fd, fd, fd)

	out, _ := exec.Command("bash", "-c", probe).CombinedOutput()
	if !strings.Contains(string(out), "OPEN") {
		t.Fatalf("control run without sandbox did not inherit fd %d: %s", fd, out)
	}
	s, _ := newSkill(t, probe, "", Options{})
	r := run(t, s, `{}`)
	if !strings.Contains(r.Output, fmt.Sprintf("fd-%d-closed", fd)) {
		t.Errorf("fd %d of the parent is open in the skill:\n%s", fd, r.Text())
	}
}

func TestScrubEnvDropsEndpoints(t *testing.T) {
	env := []string{"SSH_AUTH_SOCK=/a", "SSH_AGENT_PID=1", "DBUS_SESSION_BUS_ADDRESS=unix:path=/b", "DISPLAY=:0",
		"WAYLAND_DISPLAY=w", "XAUTHORITY=/x", "DOCKER_HOST=unix:///d", "KUBECONFIG=/k", "PATH=/usr/bin", "HOME=/root"}
	got := scrubEnv(env, []string{"DISPLAY"})
	want := []string{"DISPLAY=:0", "PATH=/usr/bin"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scrubEnv = %q, want %q", got, want)
	}
}
