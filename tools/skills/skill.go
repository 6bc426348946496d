package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"tact/redact"
	"time"

	"tact/tools"
)

// Defaults for Options.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 1 << 20 // 1 MiB
)

// Options configure how skills are run. The zero value is usable: sandboxed,
// 30 s timeout, 1 MiB output cap.
type Options struct {
	// AllowUnsandboxed runs skills without Landlock where the kernel does not
	// offer it (config `skills: {allow_unsandboxed: true}`). Where Landlock is
	// available skills are always sandboxed.
	AllowUnsandboxed bool
	// PassEnv names environment variables that are passed to skills even
	// though their names look like secrets (contain KEY, TOKEN, SECRET or PASSWORD).
	PassEnv []string
	// ReadDirs are extra folders a sandboxed skill may read and execute from
	// (e.g. an interpreter installed outside the system folders).
	ReadDirs []string
	// SelfExe is the binary re-executed as the sandbox helper; empty means
	// os.Executable(). Tests point it at their own test binary.
	SelfExe string
	// Timeout applies when the SKILL.md sets none (default 30s).
	Timeout time.Duration
	// MaxOutput caps stdout+stderr in bytes; a skill writing more is stopped
	// (default 1 MiB).
	MaxOutput int
	// Logger receives debug lines about runs; nil discards.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Skill is one loaded skill; it implements tools.Tool.
type Skill struct {
	spec tools.Spec
	dir  string
	run  string
	doc  string
	opts Options
}

var _ tools.Tool = (*Skill)(nil)

// Spec describes the skill to the model. Source is "skill".
func (s *Skill) Spec() tools.Spec { return s.spec }

// Dir is the absolute path of the skill folder.
func (s *Skill) Dir() string { return s.dir }

// Command is the `run:` command of the SKILL.md.
func (s *Skill) Command() string { return s.run }

// Doc is the markdown body of the SKILL.md (its documentation).
func (s *Skill) Doc() string { return s.doc }

// Execute runs the skill with args as JSON on stdin. Failures of the skill
// (non-zero exit, timeout, too much output, no sandbox) are failed Results;
// a Go error means tact itself could not start the run.
func (s *Skill) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	stdin, err := normalizeArgs(args)
	if err != nil {
		return tools.Fail(tools.KindInvalidParameters, err.Error()), nil
	}
	sandboxed := true
	if _, err := Available(); err != nil {
		if !s.opts.AllowUnsandboxed {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf(
				"skill %s was not run: the skill sandbox (Landlock and a seccomp socket filter) is unavailable (%v); to run skills without a sandbox set `skills: {allow_unsandboxed: true}` in the config",
				s.spec.Name, err)), nil
		}
		sandboxed = false
		s.opts.Logger.Warn("running skill without sandbox", "skill", s.spec.Name, "reason", err.Error())
	}

	timeout := s.spec.Timeout
	if timeout <= 0 {
		timeout = s.opts.Timeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	tmp, err := os.MkdirTemp("", "tact-skill-")
	if err != nil {
		return tools.Result{}, fmt.Errorf("skill %s: create its temporary folder (check TMPDIR): %w", s.spec.Name, err)
	}
	defer os.RemoveAll(tmp)

	cmd, err := s.command(runCtx, tmp, sandboxed)
	if err != nil {
		return tools.Result{}, err
	}
	cmd.Stdin = bytes.NewReader(stdin)
	out := &capWriter{max: s.opts.MaxOutput, onFull: cancel}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 500 * time.Millisecond

	start := time.Now()
	runErr := cmd.Run()
	_ = killGroup(cmd) // stragglers left in the background
	output := out.String()
	s.opts.Logger.Debug("skill run", "skill", s.spec.Name, "sandboxed", sandboxed,
		"duration", time.Since(start), "output_bytes", len(output), "err", runErr)

	switch {
	case out.Full():
		r := tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("skill %s wrote more than %d bytes of output and was stopped", s.spec.Name, s.opts.MaxOutput))
		r.Output = output
		return r, nil
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		r := tools.Fail(tools.KindCancelled, fmt.Sprintf("skill %s was cancelled", s.spec.Name))
		r.Output = output
		return r, nil
	case runCtx.Err() != nil:
		r := tools.Fail(tools.KindTimeout, fmt.Sprintf("skill %s did not finish within %s and was stopped", s.spec.Name, timeout))
		r.Output = output
		return r, nil
	case runErr != nil:
		var exit *exec.ExitError
		msg := fmt.Sprintf("skill %s failed: %v", s.spec.Name, runErr)
		if errors.As(runErr, &exit) {
			msg = fmt.Sprintf("skill %s exited with code %d", s.spec.Name, exit.ExitCode())
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				msg = fmt.Sprintf("skill %s was killed by signal %v", s.spec.Name, ws.Signal())
			}
		} else if errors.Is(runErr, exec.ErrWaitDelay) {
			return tools.OK(output), nil // it finished; a background child held the output open
		}
		r := tools.Fail(tools.KindExecutionFailed, msg)
		r.Output = output
		return r, nil
	}
	return tools.OK(output), nil
}

// command builds the process: the sandbox helper, or bash directly.
func (s *Skill) command(ctx context.Context, tmp string, sandboxed bool) (*exec.Cmd, error) {
	env := scrubEnv(os.Environ(), s.opts.PassEnv)
	env = append(env, "TMPDIR="+tmp, "HOME="+tmp, "SKILL_DIR="+s.dir)
	var cmd *exec.Cmd
	if sandboxed {
		self := s.opts.SelfExe
		if self == "" {
			var err error
			if self, err = os.Executable(); err != nil {
				return nil, fmt.Errorf("skill %s: find the tact binary to start the sandbox: %w", s.spec.Name, err)
			}
		}
		spec, err := json.Marshal(sandboxSpec{Dir: s.dir, Tmp: tmp, Run: s.run, ReadDirs: s.opts.ReadDirs})
		if err != nil {
			return nil, fmt.Errorf("skill %s: encode sandbox spec: %w", s.spec.Name, err)
		}
		cmd = exec.CommandContext(ctx, self, SandboxArg, string(spec))
	} else {
		cmd = exec.CommandContext(ctx, "bash", "-c", s.run)
	}
	cmd.Dir = s.dir
	cmd.Env = env
	return cmd, nil
}

// normalizeArgs re-encodes the arguments as compact JSON without HTML
// escaping, so scripts see one predictable form. Empty means {}.
func normalizeArgs(args json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		return []byte("{}\n"), nil
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, fmt.Errorf("the arguments must be a JSON object: %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("the arguments cannot be re-encoded as JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// endpointEnv are variables that point at agents, buses and daemons (their
// sockets or credentials); skills do not get them unless Options.PassEnv
// names them.
var endpointEnv = []string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DOCKER_HOST", "KUBECONFIG",
}

// scrubEnv drops variables whose names look secret (redact.IsSecretEnvName)
// or are in endpointEnv unless pass names them exactly, and the ones each
// run sets itself.
func scrubEnv(env, pass []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range redact.ScrubEnv(env, pass) {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "TMPDIR" || name == "HOME" || name == "SKILL_DIR":
			continue // set per run
		case slices.Contains(endpointEnv, name) && !slices.Contains(pass, name):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// killGroup kills the process group the command leads.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// capWriter keeps the first max bytes and calls onFull once when more arrive.
type capWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	max    int
	full   bool
	onFull func()
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full {
		return len(p), nil
	}
	room := w.max - w.buf.Len()
	if len(p) > room {
		w.buf.Write(p[:room])
		w.full = true
		w.onFull()
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

// Full reports whether output was cut.
func (w *capWriter) Full() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full
}

func (w *capWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
