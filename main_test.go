package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tact/internal/fakeopenai"
)

// tactBin is the binary built once by TestMain.
var tactBin string

// TestMain builds the real binary the end-to-end tests drive.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tact-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tactBin = filepath.Join(dir, "tact")
	build := exec.Command("go", "build", "-o", tactBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building tact:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is an isolated environment for one tact process: its own HOME,
// state and config folders and working directory.
type env struct {
	home, state, config, wd string
	vars                    map[string]string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{
		home: filepath.Join(root, "home"), state: filepath.Join(root, "state"),
		config: filepath.Join(root, "config"), wd: filepath.Join(root, "wd"),
		vars: map[string]string{},
	}
	for _, d := range []string{e.home, e.state, e.config, e.wd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// environ is the process environment: the test's own minus anything that
// configures tact, plus the isolated folders and e.vars.
func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "TACT_") || strings.HasPrefix(k, "XDG_") || k == "HOME" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HOME="+e.home, "XDG_STATE_HOME="+e.state, "XDG_CONFIG_HOME="+e.config)
	for k, v := range e.vars {
		out = append(out, k+"="+v)
	}
	return out
}

// writeConfig writes a config file in the working directory's parent and
// returns its path.
func (e *env) writeConfig(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(e.wd), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// result is a finished tact process.
type result struct {
	stdout, stderr string
	code           int
}

// command prepares tact with args in e.
func (e *env) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, tactBin, args...)
	cmd.Dir = e.wd
	cmd.Env = e.environ()
	return cmd
}

// run runs tact to the end (at most 30 s).
func (e *env) run(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running tact %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	if ctx.Err() != nil {
		t.Fatalf("tact %v did not finish in time; stderr:\n%s", args, errb.String())
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// event is one --json line.
type event map[string]any

func (ev event) str(k string) string { s, _ := ev[k].(string); return s }

// parseEvents parses every stdout line as a JSON event.
func parseEvents(t *testing.T, stdout string) []event {
	t.Helper()
	var evs []event
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line is not JSON: %q (%v)", line, err)
		}
		if ev.str("type") == "" {
			t.Fatalf("event without type: %q", line)
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 {
		t.Fatal("no events on stdout")
	}
	return evs
}

func ofType(evs []event, typ string) []event {
	var out []event
	for _, ev := range evs {
		if ev.str("type") == typ {
			out = append(out, ev)
		}
	}
	return out
}

func joinedText(evs []event) string {
	var b strings.Builder
	for _, ev := range ofType(evs, "text") {
		b.WriteString(ev.str("text"))
	}
	return b.String()
}

// lastDone checks that the last event is done and returns it.
func lastDone(t *testing.T, evs []event) event {
	t.Helper()
	last := evs[len(evs)-1]
	if last.str("type") != "done" {
		t.Fatalf("last event = %v, want done", last)
	}
	return last
}

// fakeServer starts a fake OpenAI server and returns it with its /v1 URL.
func fakeServer(t *testing.T, script fakeopenai.Script) (*fakeopenai.Server, string) {
	t.Helper()
	srv := fakeopenai.New(script)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL + "/v1"
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
