package mcp

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"tact/tools"
)

// helperEnv makes the test binary act as a stdio MCP server (see TestMain).
const helperEnv = "TACT_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		runHelperServer()
		return
	}
	os.Exit(m.Run())
}

// runHelperServer serves echo, crash (exits with status 3) and spawn (starts a
// long sleep in the server's process group and returns its pid) over stdio.
func runHelperServer() {
	fmt.Fprintln(os.Stderr, "helper server ready")
	fmt.Fprint(os.Stderr, "partial line without newline")
	s := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, nil)
	addEcho(s, "echo", "env="+os.Getenv("HELPER_GREETING")+":")
	sdk.AddTool(s, &sdk.Tool{Name: "crash"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.Itoa(cmd.Process.Pid)}}}, nil, nil
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "helper server:", err)
		os.Exit(1)
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] != 'Z'
}

func TestStdioServer(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to check the process group is stopped")
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	t.Setenv("TACT_TEST_GREETING_SRC", "hello")
	cfg := ServerConfig{
		Name:    "helper",
		Command: os.Args[0],
		Args:    []string{"-test.run=^$"},
		Env:     []EnvVar{{Name: helperEnv, Value: "1"}, {Name: "HELPER_GREETING", Value: "${TACT_TEST_GREETING_SRC}"}},
		Timeout: 9 * time.Second,
	}
	p := NewPool([]ServerConfig{cfg}, PoolOptions{Logger: logger})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Connect(ctx); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	got := toolsOf(t, p.Providers()[0])
	if len(got) != 3 {
		t.Fatalf("tools = %v", got)
	}
	if got["echo"].Spec().Timeout != 9*time.Second {
		t.Errorf("spec timeout = %v, want the server's 9s", got["echo"].Spec().Timeout)
	}
	if res := call(t, got["echo"], `{"message":"hi"}`); res.Output != "env=hello:hi" {
		t.Fatalf("echo = %+v, want env expanded into the server's environment", res)
	}

	// A crash is reported with the exit status, then the server is restarted.
	res := call(t, got["crash"], `{}`)
	if res.Success || !strings.Contains(res.Error.Message, "MCP server helper is not running (exited: exit status 3)") {
		t.Fatalf("crash = %+v", res)
	}
	if res := call(t, got["echo"], `{"message":"again"}`); res.Output != "env=hello:again" {
		t.Fatalf("echo after restart = %+v", res)
	}

	// Close stops the whole process group, including the server's children.
	res = call(t, got["spawn"], `{}`)
	child, err := strconv.Atoi(res.Output)
	if err != nil || !alive(child) {
		t.Fatalf("spawn = %+v (%v)", res, err)
	}
	start := time.Now()
	_ = p.Close()
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("Close took %v", el)
	}
	for deadline := time.Now().Add(2 * time.Second); alive(child); {
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the server is still running after Close", child)
		}
		time.Sleep(20 * time.Millisecond)
	}

	out := logs.String()
	if !strings.Contains(out, `line="helper server ready"`) || !strings.Contains(out, "mcp_server=helper") {
		t.Errorf("server stderr was not logged line by line with its name:\n%s", out)
	}
	if !strings.Contains(out, `"partial line without newline`) {
		t.Errorf("a partial line should be logged once it is complete:\n%s", out)
	}
}

func TestStdioMissingCommand(t *testing.T) {
	cfg := ServerConfig{Name: "nope", Command: "tact-no-such-mcp-server", Source: "tools/mcp/nope.yaml"}
	p := NewPool([]ServerConfig{cfg}, PoolOptions{})
	defer p.Close()
	err := p.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), `command "tact-no-such-mcp-server" not found`) || !strings.Contains(err.Error(), "tools/mcp/nope.yaml") {
		t.Fatalf("Connect error = %v, want the command and the config file named", err)
	}
	st := p.Status()
	if st[0].Running || st[0].Err == nil {
		t.Errorf("status = %+v", st)
	}
	var _ tools.Tool = (*mcpTool)(nil)
}
