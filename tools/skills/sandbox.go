package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// SandboxArg is the first argument that makes the tact binary act as the
// skill sandbox helper. main must call SandboxMain before anything else:
//
//	if len(os.Args) > 1 && os.Args[1] == skills.SandboxArg {
//		os.Exit(skills.SandboxMain(os.Args[2:]))
//	}
const SandboxArg = "__skill-sandbox"

// MinABI is the lowest Landlock ABI that can give the promised sandbox: ABI 4
// added the TCP bind/connect restriction.
const MinABI = 4

// systemDirs may be read and executed from inside the sandbox.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"}

// etcPaths are the parts of /etc a sandboxed skill may read (glob patterns;
// missing ones are skipped): what the dynamic loader, name lookup, TLS, shells
// and common interpreters need, and nothing secret like /etc/shadow or TLS
// private keys (/etc/ssl/private).
var etcPaths = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf*", "/etc/localtime", "/etc/timezone", "/etc/locale.alias",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ssl/cert.pem", "/etc/ca-certificates*",
	"/etc/pki/tls/certs", "/etc/pki/ca-trust", "/etc/alternatives",
	"/etc/bash.bashrc", "/etc/profile*", "/etc/inputrc", "/etc/mime.types", "/etc/os-release",
	"/etc/terminfo", "/etc/python3*", "/etc/perl",
}

// etcRules turns etcPaths into Landlock rules: read and execute for folders,
// read for files (Landlock refuses folder rights on a file). Symbolic links
// count as what they point to.
func etcRules() []landlock.Rule {
	var dirs, files []string
	for _, pattern := range etcPaths {
		matches, _ := filepath.Glob(pattern) // the patterns are constant and valid
		for _, m := range matches {
			fi, err := os.Stat(m)
			switch {
			case err != nil:
				continue // dangling link or vanished: Landlock needs an existing path
			case fi.IsDir():
				dirs = append(dirs, m)
			default:
				files = append(files, m)
			}
		}
	}
	var rules []landlock.Rule
	if len(dirs) > 0 {
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.ROFiles(files...).IgnoreIfMissing())
	}
	return rules
}

// sandboxSpec is what the parent tells the helper, as one JSON argument.
type sandboxSpec struct {
	Dir      string   `json:"dir"`
	Tmp      string   `json:"tmp"`
	Run      string   `json:"run"`
	ReadDirs []string `json:"read_dirs,omitempty"`
}

var availableOnce = sync.OnceValues(func() (int, error) {
	abi, err := llsyscall.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, fmt.Errorf("this kernel has no Landlock support (needs Linux 6.7+ with CONFIG_SECURITY_LANDLOCK): %w", err)
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, fmt.Errorf("landlock is compiled in but not enabled at boot (add landlock to the lsm= kernel parameter): %w", err)
	case err != nil:
		return 0, fmt.Errorf("cannot query Landlock: %w", err)
	case abi < MinABI:
		return abi, fmt.Errorf("landlock ABI %d is too old to block TCP (needs ABI %d, Linux 6.7+)", abi, MinABI)
	}
	if err := seccompAvailable(); err != nil {
		return abi, err
	}
	return abi, nil
})

// availableFunc is Available's implementation; tests replace it to act out a
// kernel without Landlock.
var availableFunc = availableOnce

// Available reports the Landlock ABI version of the running kernel and nil
// when skills can be sandboxed (Landlock and the seccomp socket filter), or
// an error saying why they cannot.
func Available() (abi int, err error) { return availableFunc() }

// SandboxStatus is a one-line description of the sandbox for `tact tools`,
// e.g. "landlock ABI 7 + seccomp socket filter (enforced)" or "unavailable: …".
func SandboxStatus() string {
	abi, err := Available()
	if err != nil {
		return "unavailable: " + err.Error()
	}
	return fmt.Sprintf("landlock ABI %d + seccomp socket filter (enforced)", abi)
}

// SandboxMain is the sandbox helper: it reads the spec from args (the
// arguments after SandboxArg; a leading SandboxArg is skipped), restricts
// itself with Landlock — read and execute in the system folders, the parts of
// /etc in etcPaths, the skill folder and Options.ReadDirs, read and write in
// the run's temporary folder only, no TCP bind or connect, no signals or
// abstract sockets outside the sandbox — and with a seccomp filter that makes
// socket(2) fail (so no UDP, unix-socket or raw networking either), marks every
// inherited file descriptor above stderr close-on-exec, and then replaces
// itself with `bash -c RUN`. /dev/null, /dev/zero, /dev/full and /dev/urandom
// are usable; /proc, /home, /root, /tmp and /var are not (interpreters
// installed there need Options.ReadDirs). It returns only on failure, with
// exit code 126 after printing the reason on stderr.
func SandboxMain(args []string) int {
	if len(args) > 0 && args[0] == SandboxArg {
		args = args[1:]
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "tact skill sandbox: "+format+"\n", a...)
		return 126
	}
	if len(args) != 1 {
		return fail("expected one JSON argument, got %d (this mode is started by tact itself)", len(args))
	}
	var spec sandboxSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fail("bad spec: %v", err)
	}
	if spec.Dir == "" || spec.Tmp == "" || spec.Run == "" {
		return fail("bad spec: dir, tmp and run are required")
	}
	if _, err := Available(); err != nil {
		return fail("%v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return fail("bash not found: %v", err)
	}
	// Before Landlock: the fallback reads /proc/self/fd.
	if err := closeOnExecFrom3(); err != nil {
		return fail("cannot close inherited file descriptors: %v", err)
	}
	rules := []landlock.Rule{
		landlock.RODirs(systemDirs...).IgnoreIfMissing(),
		landlock.RODirs(spec.Dir),
		landlock.RWDirs(spec.Tmp),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full").IgnoreIfMissing(),
		landlock.ROFiles("/dev/random", "/dev/urandom").IgnoreIfMissing(),
	}
	rules = append(rules, etcRules()...)
	if len(spec.ReadDirs) > 0 {
		rules = append(rules, landlock.RODirs(spec.ReadDirs...).IgnoreIfMissing())
	}
	// BestEffort lowers V11 to what the kernel offers; Available has already
	// checked that this includes filesystem and TCP restrictions. No network
	// rule is given, so every TCP bind and connect is refused.
	if err := landlock.V11.BestEffort().Restrict(rules...); err != nil {
		return fail("cannot apply Landlock: %v", err)
	}
	if err := installSocketFilter(); err != nil {
		return fail("%v", err)
	}
	if err := os.Chdir(spec.Dir); err != nil {
		return fail("cannot enter the skill folder: %v", err)
	}
	err = syscall.Exec(bash, []string{"bash", "-c", spec.Run}, os.Environ())
	return fail("cannot start bash: %v", err)
}
