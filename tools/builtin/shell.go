package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"tact/redact"
	"time"

	"tact/tools"
)

const (
	maxShellOutput = 1 << 20 // bytes of combined output kept in memory
	// shellWaitDelay bounds how long Wait waits for output pipes held open by
	// background processes after the shell has exited or been killed.
	shellWaitDelay = 500 * time.Millisecond
)

// ShellArgs are the parameters of the shell tool.
type ShellArgs struct {
	Command string `json:"command" jsonschema:"bash command line, run with bash -c in the workspace directory"`
}

// ScrubEnv returns env without the variables whose names look secret
// (KEY, TOKEN, SECRET, PASSWORD), except those named in pass.
func ScrubEnv(env []string, pass []string) []string { return redact.ScrubEnv(env, pass) }

// cappedBuffer keeps the first max bytes written and counts the rest.
type cappedBuffer struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - len(c.buf)
	if room >= len(p) {
		c.buf = append(c.buf, p...)
	} else {
		if room > 0 {
			c.buf = append(c.buf, p[:room]...)
		}
		c.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := string(c.buf)
	if c.dropped > 0 {
		s += fmt.Sprintf("\n…[%d more bytes of output dropped]", c.dropped)
	}
	return s
}

func shellTool(ws *Workspace, pass []string) tools.Tool {
	spec := tools.Spec{
		Name:        "shell",
		Description: "Run a bash command line in the workspace directory. Returns combined stdout and stderr and the exit code. Secrets are removed from the environment.",
		Annotations: destructive(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(ctx context.Context, a ShellArgs) (tools.Result, error) {
		if strings.TrimSpace(a.Command) == "" {
			return tools.Fail(tools.KindInvalidParameters, "command is empty"), nil
		}
		return runShell(ctx, ws.Root(), a.Command, ScrubEnv(os.Environ(), pass))
	})
}

// runShell runs command with bash -c in dir, in its own process group. When
// ctx ends the whole group gets SIGKILL, and the shell is always waited for,
// so no zombie is left.
func runShell(ctx context.Context, dir, command string, env []string) (tools.Result, error) {
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	out := &cappedBuffer{max: maxShellOutput}
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The group id is the shell's pid (Setpgid with Pgid 0).
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = shellWaitDelay
	if err := cmd.Start(); err != nil {
		return tools.Result{}, fmt.Errorf("cannot start bash (is it installed and on PATH?): %w", err)
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		// Children that left the shell behind are still in the group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		kind := tools.KindCancelled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			kind = tools.KindTimeout
		}
		r := tools.Fail(kind, "the command was stopped (its whole process group was killed)")
		r.Output = out.String()
		return r, nil
	}
	code := 0
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	text := out.String()
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += fmt.Sprintf("exit code: %d", code)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return tools.Result{}, fmt.Errorf("running bash: %w", err)
	}
	if code != 0 {
		r := tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("the command exited with code %d", code))
		r.Output = text
		return r, nil
	}
	return tools.OK(text), nil
}
