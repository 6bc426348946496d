package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tact/tools"
)

func TestScrubEnv(t *testing.T) {
	env := []string{"PATH=/bin", "OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=t", "db_password=p", "MySecret=s", "HOME=/root", "PASS_ME_KEY=k", "EMPTY="}
	got := ScrubEnv(env, []string{"PASS_ME_KEY"})
	want := []string{"PATH=/bin", "HOME=/root", "PASS_ME_KEY=k", "EMPTY="}
	if !slices.Equal(got, want) {
		t.Fatalf("ScrubEnv = %v, want %v", got, want)
	}
}

func TestShellOutputAndExitCode(t *testing.T) {
	h := newHarness(t, Options{})
	if got := h.ok("shell", map[string]any{"command": "echo out; echo err >&2; pwd"}); got != "out\nerr\n"+h.ws+"\nexit code: 0" {
		t.Fatalf("got %q", got)
	}
	r := h.fail("shell", map[string]any{"command": "echo before; exit 3"}, tools.KindExecutionFailed, "code 3")
	if r.Output != "before\nexit code: 3" {
		t.Fatalf("output of failed command: %q", r.Output)
	}
	if got := h.ok("shell", map[string]any{"command": "true"}); got != "exit code: 0" {
		t.Fatalf("got %q", got)
	}
}

func TestShellEnvScrubbed(t *testing.T) {
	t.Setenv("TACT_TEST_API_KEY", "sk-secret")
	t.Setenv("TACT_TEST_PASSED_TOKEN", "visible")
	t.Setenv("TACT_TEST_PLAIN", "plain")
	h := newHarness(t, Options{PassEnv: []string{"TACT_TEST_PASSED_TOKEN"}})
	got := h.ok("shell", map[string]any{"command": `echo "k=$TACT_TEST_API_KEY p=$TACT_TEST_PASSED_TOKEN n=$TACT_TEST_PLAIN"`})
	if !strings.HasPrefix(got, "k= p=visible n=plain\n") {
		t.Fatalf("env not scrubbed as expected: %q", got)
	}
}

// groupAlive lists the pids in process group pgid that are not zombies.
func groupAlive(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var alive []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the ")" closing the command name: state ppid pgrp ...
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid && f[0] != "Z" {
			alive = append(alive, pid)
		}
	}
	return alive
}

func TestShellTimeoutKillsProcessGroup(t *testing.T) {
	ws := t.TempDir()
	reg := tools.NewRegistry(nil)
	for _, tl := range New(Options{Workdir: ws}) {
		reg.Register(tl)
	}
	exec := tools.NewExecutor(reg, tools.ExecutorOptions{DefaultTimeout: 300 * time.Millisecond})
	args, _ := json.Marshal(map[string]string{"command": "echo $$ > pid; echo started; sleep 30 & sleep 30"})
	start := time.Now()
	r := exec.Execute(context.Background(), tools.Call{Name: "shell", Arguments: args})
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("timeout took %v", el)
	}
	if r.Success || r.Error == nil || r.Error.Kind != tools.KindTimeout {
		t.Fatalf("want timeout, got %+v %+v", r, r.Error)
	}
	pidText, err := os.ReadFile(filepath.Join(ws, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err != nil {
		t.Fatalf("pid file: %q", pidText)
	}
	if r.Output != "started\n" {
		t.Errorf("partial output lost: %q", r.Output)
	}
	deadline := time.Now().Add(time.Second)
	for {
		alive := groupAlive(t, pgid)
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of group %d still running: %v", pgid, alive)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestShellCancelled(t *testing.T) {
	h := newHarness(t, Options{})
	args, _ := json.Marshal(map[string]string{"command": "sleep 30"})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	r := h.exec.Execute(ctx, tools.Call{Name: "shell", Arguments: args})
	if r.Error == nil || r.Error.Kind != tools.KindCancelled || time.Since(start) > 2*time.Second {
		t.Fatalf("want prompt cancelled, got %+v after %v", r.Error, time.Since(start))
	}
}
