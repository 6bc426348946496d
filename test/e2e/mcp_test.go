// Package e2e holds end-to-end tests that drive the real tact binary: against
// the real MCP server-everything from npm here, and in tmux (run.sh).
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tact/internal/fakeopenai"
)

var tactBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tact-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tactBin = filepath.Join(dir, "tact")
	build := exec.Command("go", "build", "-o", tactBin, "tact")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building tact:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// everythingCmd returns the command of the npm server-everything, or skips.
func everythingCmd(t *testing.T) string {
	t.Helper()
	if os.Getenv("TACT_MCP_EVERYTHING") != "1" {
		t.Skip("set TACT_MCP_EVERYTHING=1 (and TACT_MCP_EVERYTHING_CMD) after `npm install -g @modelcontextprotocol/server-everything`; .ci/run does")
	}
	if c := os.Getenv("TACT_MCP_EVERYTHING_CMD"); c != "" {
		return c
	}
	return "mcp-server-everything"
}

// env is a clean environment for the binary: its own home and state.
func env(t *testing.T, extra ...string) []string {
	home := t.TempDir()
	base := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "PATH=" + os.Getenv("PATH")}
	return append(base, extra...)
}

func TestMCPEverythingThroughTact(t *testing.T) {
	cmd := everythingCmd(t)
	dir := t.TempDir()
	mcpDir := filepath.Join(dir, "mcp")
	if err := os.MkdirAll(mcpDir, 0o755); err != nil {
		t.Fatal(err)
	}
	server := fmt.Sprintf("name: everything\ncommand: %s\ntimeout: 30s\n", cmd)
	if err := os.WriteFile(filepath.Join(mcpDir, "everything.yaml"), []byte(server), 0o644); err != nil {
		t.Fatal(err)
	}
	config := `tool_sets: []
tools: ["mcp:everything"]
tool_dirs: {native: [], mcp: [mcp], skills: []}
provider: {max_retries: 0}
approval:
  rules:
    - {tool: echo, decision: allow}
`
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}

	// tact tools --json lists the server's tools.
	out, err := runTact(t, dir, env(t), "--config", cfgPath, "tools", "--json")
	if err != nil {
		t.Fatalf("tact tools: %v\n%s", err, out)
	}
	var infos []struct {
		Name, Source string
	}
	if err := json.Unmarshal(out, &infos); err != nil {
		t.Fatalf("tools --json is not JSON: %v\n%s", err, out)
	}
	found := false
	for _, i := range infos {
		if i.Name == "echo" && i.Source == "mcp:everything" {
			found = true
		}
	}
	if !found {
		t.Fatalf("echo from mcp:everything not listed: %s", out)
	}

	// A model that calls echo, then answers with the result.
	fake := fakeopenai.New(func(n int, req openai.ChatCompletionRequest) fakeopenai.Reply {
		last := fakeopenai.LastMessage(req)
		if last.Role == openai.ChatMessageRoleTool {
			return fakeopenai.Reply{Text: "The server said: " + last.Content}
		}
		for _, tl := range req.Tools {
			if tl.Function != nil && tl.Function.Name == "echo" {
				return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{Name: "echo", Args: `{"message":"hi from tact"}`}}, Chunk: 4}
			}
		}
		return fakeopenai.Reply{Text: "no echo tool was offered"}
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	out, err = runTact(t, dir, env(t, "OPENAI_API_KEY=test"), "--config", cfgPath, "--base-url", srv.URL+"/v1", "-p", "echo something", "--json")
	if err != nil {
		t.Fatalf("tact -p: %v\n%s", err, out)
	}
	var sawResult bool
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		if ev["type"] == "tool_result" && ev["name"] == "echo" {
			if ev["success"] != true || !strings.Contains(fmt.Sprint(ev["output"]), "hi from tact") {
				t.Fatalf("echo result: %v", ev)
			}
			sawResult = true
		}
	}
	if !sawResult {
		t.Fatalf("no echo tool_result in:\n%s", out)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || !strings.Contains(fakeopenai.LastMessage(reqs[1]).Content, "hi from tact") {
		t.Fatalf("the second request should carry the echo result; requests: %d", len(reqs))
	}
}

// runTact runs the binary in dir with a timeout and returns stdout (stderr
// is appended on failure).
func runTact(t *testing.T, dir string, env []string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(tactBin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return append(stdout.Bytes(), stderr.Bytes()...), err
		}
		return stdout.Bytes(), nil
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		return stdout.Bytes(), fmt.Errorf("tact did not finish in 90s; stderr: %s", stderr.String())
	}
}
