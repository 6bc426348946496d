package skills

import (
	"context"
	"encoding/json"
	"errors"
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
	"unicode/utf8"

	"tact/tools"
)

// TestMain lets the test binary act as the sandbox helper, the way main does
// for the tact binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == probeArg {
		os.Exit(probeMain(os.Args[2], os.Args[3]))
	}
	if len(os.Args) > 1 && os.Args[1] == SandboxArg {
		os.Exit(SandboxMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func needSandbox(t *testing.T) {
	t.Helper()
	abi, err := Available()
	if err != nil {
		t.Skipf("Landlock is not usable on this machine, sandbox test skipped: %v", err)
	}
	t.Logf("sandbox: %s (kernel ABI %d)", SandboxStatus(), abi)
}

// newSkill writes a skill folder with the given run command and extra front
// matter lines, and loads it.
func newSkill(t *testing.T, run, extra string, opts Options) (*Skill, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "s")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: probe\ndescription: test skill\nrun: " + strconv.Quote(run) + "\n" + extra + "---\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if opts.SelfExe == "" {
		opts.SelfExe = os.Args[0]
	}
	got, errs := Load([]string{root}, opts)
	if len(errs) > 0 || len(got) != 1 {
		t.Fatalf("load: %v", errs)
	}
	return got[0].(*Skill), dir
}

func run(t *testing.T, s *Skill, args string) tools.Result {
	t.Helper()
	r, err := s.Execute(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return r
}

func TestReportABI(t *testing.T) {
	abi, err := Available()
	t.Logf("Landlock ABI reported by go-landlock here: %d (err %v); status %q", abi, err, SandboxStatus())
	if err == nil && !strings.Contains(SandboxStatus(), "+ seccomp socket filter (enforced)") {
		t.Errorf("status %q does not mention the seccomp filter", SandboxStatus())
	}
	if err == nil && abi < MinABI {
		t.Errorf("Available returned ABI %d without error, below MinABI %d", abi, MinABI)
	}
}

func TestSandboxRefusesReadOutside(t *testing.T) {
	needSandbox(t)
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-42"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, dir := newSkill(t, "cat inside.txt; cat "+secret+"; ls "+secretDir+"; exit 0", "", Options{})
	if err := os.WriteFile(filepath.Join(dir, "inside.txt"), []byte("INSIDE-OK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, s, `{}`)
	if !r.Success {
		t.Fatalf("result: %s", r.Text())
	}
	if !strings.Contains(r.Output, "INSIDE-OK") {
		t.Errorf("reading inside the skill folder failed:\n%s", r.Output)
	}
	if strings.Contains(r.Output, "TOP-SECRET-42") || strings.Contains(r.Output, "secret.txt\n") {
		t.Errorf("the sandbox let the skill read outside its folders:\n%s", r.Output)
	}
	if strings.Count(r.Output, "Permission denied") < 2 {
		t.Errorf("want two permission denied errors (cat, ls):\n%s", r.Output)
	}
}

func TestSandboxRefusesTCPConnect(t *testing.T) {
	needSandbox(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	probe := fmt.Sprintf("if exec 3<>/dev/tcp/127.0.0.1/%d; then echo CONNECTED; else echo REFUSED; fi", port)

	// Control: without the sandbox the same command does connect, so the
	// assertions below can fail.
	out, _ := exec.Command("bash", "-c", probe).CombinedOutput()
	if !strings.Contains(string(out), "CONNECTED") {
		t.Fatalf("control run without sandbox did not connect: %s", out)
	}
	waitFor(t, func() bool { return accepted.Load() == 1 })

	s, _ := newSkill(t, probe, "", Options{})
	r := run(t, s, `{}`)
	if strings.Contains(r.Output, "CONNECTED") || !strings.Contains(r.Output, "REFUSED") {
		t.Errorf("the sandbox allowed a TCP connect:\n%s", r.Text())
	}
	if !strings.Contains(r.Output, "Permission denied") {
		t.Errorf("want a permission denied from connect:\n%s", r.Output)
	}
	ln.Close()
	if n := accepted.Load(); n != 1 {
		t.Errorf("listener accepted %d connections, want only the control one", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 200 && !cond(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !cond() {
		t.Fatal("condition not met within 2s")
	}
}

func TestSandboxWritesOnlyTmp(t *testing.T) {
	needSandbox(t)
	outside := t.TempDir()
	script := `echo tmp-ok > "$TMPDIR/f" && cat "$TMPDIR/f"; [ "$HOME" = "$TMPDIR" ] && echo home-is-tmp
echo bad > ` + outside + `/f || echo outside-refused
echo bad > here.txt || echo skilldir-refused
echo log >&2; echo via-dev-stderr > /dev/stderr; echo x > /dev/null && echo devnull-ok; exit 0`
	s, dir := newSkill(t, script, "", Options{})
	r := run(t, s, `{}`)
	for _, want := range []string{"tmp-ok", "home-is-tmp", "outside-refused", "skilldir-refused", "log", "via-dev-stderr", "devnull-ok"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, r.Output)
		}
	}
	for _, f := range []string{filepath.Join(outside, "f"), filepath.Join(dir, "here.txt")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("the sandbox let the skill create %s", f)
		}
	}
}

func TestEnvironmentScrubbed(t *testing.T) {
	needSandbox(t)
	t.Setenv("FOO_API_KEY", "sekrit-key-1")
	t.Setenv("gh_Token", "sekrit-token-2")
	t.Setenv("KEPT_SECRET", "passed-through-3")
	t.Setenv("PLAIN_SETTING", "visible-4")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/ssh-agent-sock-5")
	t.Setenv("DOCKER_HOST", "unix:///docker-sock-6")
	t.Setenv("KUBECONFIG", "/kube-config-7")
	s, _ := newSkill(t, "env", "", Options{PassEnv: []string{"KEPT_SECRET", "KUBECONFIG"}})
	r := run(t, s, `{}`)
	if !r.Success {
		t.Fatalf("result: %s", r.Text())
	}
	for _, bad := range []string{"sekrit-key-1", "sekrit-token-2", "FOO_API_KEY", "gh_Token", "SSH_AUTH_SOCK", "ssh-agent-sock-5", "DOCKER_HOST"} {
		if strings.Contains(r.Output, bad) {
			t.Errorf("environment leaked %q:\n%s", bad, r.Output)
		}
	}
	for _, good := range []string{"KEPT_SECRET=passed-through-3", "PLAIN_SETTING=visible-4", "KUBECONFIG=/kube-config-7", "SKILL_DIR=" + s.Dir()} {
		if !strings.Contains(r.Output, good) {
			t.Errorf("environment lacks %q:\n%s", good, r.Output)
		}
	}
}

func TestArgumentsOnStdin(t *testing.T) {
	needSandbox(t)
	s, _ := newSkill(t, "cat", "", Options{})
	r := run(t, s, `{ "z": 1.50, "a": "<b> & é" }`)
	if want := `{"a":"<b> & é","z":1.50}` + "\n"; r.Output != want {
		t.Errorf("stdin = %q, want %q", r.Output, want)
	}
	r = run(t, s, ``)
	if r.Output != "{}\n" {
		t.Errorf("empty args: stdin = %q, want {}", r.Output)
	}
	r = run(t, s, `[1,2]`)
	if r.Success || r.Error.Kind != tools.KindInvalidParameters {
		t.Errorf("array args: %s, want invalid_parameters", r.Text())
	}
}

func TestNonZeroExit(t *testing.T) {
	needSandbox(t)
	s, _ := newSkill(t, "echo oops; exit 3", "", Options{})
	r := run(t, s, `{}`)
	if r.Success || r.Error.Kind != tools.KindExecutionFailed || !strings.Contains(r.Error.Message, "code 3") || r.Output != "oops\n" {
		t.Errorf("result = %+v %q", r.Error, r.Output)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	needSandbox(t)
	// 2 s leaves the re-exec'd sandbox (slow under -race on a busy
	// machine) time to print the pid before the timeout.
	s, _ := newSkill(t, "sleep 30 & echo $!; sleep 30", "timeout: 2s\n", Options{})
	start := time.Now()
	r := run(t, s, `{}`)
	if el := time.Since(start); el > 8*time.Second {
		t.Errorf("took %v, want about 2s", el)
	}
	if r.Success || r.Error.Kind != tools.KindTimeout {
		t.Fatalf("result: %s, want timeout", r.Text())
	}
	pid, err := strconv.Atoi(strings.TrimSpace(r.Output))
	if err != nil {
		t.Fatalf("background pid not printed: %q", r.Output)
	}
	waitFor(t, func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) || isZombie(pid)
	})
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func TestCancel(t *testing.T) {
	needSandbox(t)
	s, _ := newSkill(t, "sleep 30", "", Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	r, err := s.Execute(ctx, json.RawMessage(`{}`))
	if err != nil || r.Success || r.Error.Kind != tools.KindCancelled {
		t.Errorf("result %s, err %v; want cancelled", r.Text(), err)
	}
}

func TestOutputCap(t *testing.T) {
	needSandbox(t)
	s, _ := newSkill(t, "yes", "", Options{MaxOutput: 1000})
	start := time.Now()
	r := run(t, s, `{}`)
	if time.Since(start) > 5*time.Second {
		t.Errorf("an endless writer was not stopped quickly")
	}
	if r.Success || r.Error.Kind != tools.KindExecutionFailed || !strings.Contains(r.Error.Message, "1000 bytes") {
		t.Fatalf("result: %+v", r.Error)
	}
	if len(r.Output) != 1000 || !strings.HasPrefix(r.Output, "y\ny\n") {
		t.Errorf("output is %d bytes, want the first 1000", len(r.Output))
	}
}

func TestWordCountExample(t *testing.T) {
	needSandbox(t)
	got, errs := Load([]string{"."}, Options{SelfExe: os.Args[0]})
	if len(errs) > 0 || len(got) != 1 {
		t.Fatalf("load: %v", errs)
	}
	for _, text := range []string{"", "one", "héllo wörld\nsecond  line \"quoted\" \\ tab\there\n", "emoji 😀\u2028 <b>&"} {
		args, _ := json.Marshal(map[string]string{"text": text})
		r, err := got[0].Execute(context.Background(), args)
		if err != nil || !r.Success {
			t.Fatalf("text %q: %s %v", text, r.Text(), err)
		}
		var counts struct{ Lines, Words, Chars, Bytes int }
		if err := json.Unmarshal([]byte(r.Output), &counts); err != nil {
			t.Fatalf("output %q is not JSON: %v", r.Output, err)
		}
		lines := strings.Count(text, "\n")
		if text != "" && !strings.HasSuffix(text, "\n") {
			lines++
		}
		want := struct{ Lines, Words, Chars, Bytes int }{lines, len(strings.Fields(strings.ReplaceAll(text, "\u2028", " "))), utf8.RuneCountInString(text), len(text)}
		if counts != want {
			t.Errorf("text %q: counts %+v, want %+v", text, counts, want)
		}
	}
}

func TestUnavailableRefusesUnlessAllowed(t *testing.T) {
	saved := availableFunc
	availableFunc = func() (int, error) { return 0, errors.New("no landlock in this test") }
	t.Cleanup(func() { availableFunc = saved })

	s, _ := newSkill(t, "echo ran-unsandboxed", "", Options{})
	r := run(t, s, `{}`)
	if r.Success || r.Error.Kind != tools.KindExecutionFailed ||
		!strings.Contains(r.Error.Message, "allow_unsandboxed: true") || strings.Contains(r.Output, "ran-unsandboxed") {
		t.Errorf("without Landlock the skill must refuse: %s", r.Text())
	}
	if !strings.HasPrefix(SandboxStatus(), "unavailable: no landlock") {
		t.Errorf("status = %q", SandboxStatus())
	}

	s, _ = newSkill(t, "echo ran-unsandboxed", "", Options{AllowUnsandboxed: true})
	r = run(t, s, `{}`)
	if !r.Success || r.Output != "ran-unsandboxed\n" {
		t.Errorf("allowed unsandboxed run: %s", r.Text())
	}
}

func TestSandboxMainRejectsBadSpec(t *testing.T) {
	for _, args := range [][]string{nil, {"not json"}, {`{"dir":"/x"}`}, {"a", "b"}} {
		if code := SandboxMain(args); code != 126 {
			t.Errorf("SandboxMain(%q) = %d, want 126", args, code)
		}
	}
}
