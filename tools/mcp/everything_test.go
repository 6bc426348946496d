package mcp

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"
)

// TestEverythingServer runs the reference server from npm over stdio. It needs
// node; set TACT_MCP_EVERYTHING=1 to run it, and TACT_MCP_EVERYTHING_CMD to a
// command line (e.g. the bin installed by `npm install -g`) to skip npx.
func TestEverythingServer(t *testing.T) {
	if os.Getenv("TACT_MCP_EVERYTHING") != "1" {
		t.Skip("set TACT_MCP_EVERYTHING=1 to run against @modelcontextprotocol/server-everything")
	}
	argv := []string{"npx", "-y", "@modelcontextprotocol/server-everything"}
	if c := strings.Fields(os.Getenv("TACT_MCP_EVERYTHING_CMD")); len(c) > 0 {
		argv = c
	}
	logs := &syncBuffer{}
	cfg := ServerConfig{Name: "everything", Command: argv[0], Args: argv[1:]}
	p := NewPool([]ServerConfig{cfg}, PoolOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	defer func() {
		_ = p.Close()
		t.Logf("server log:\n%s", logs)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	if err := p.Connect(ctx); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Logf("connected in %v", time.Since(start))
	got := toolsOf(t, p.Providers()[0])
	echo, ok := got["echo"]
	if !ok {
		t.Fatalf("no echo tool among %d tools", len(got))
	}
	if echo.Spec().Source != "mcp:everything" || !strings.Contains(string(echo.Spec().Parameters), "message") {
		t.Errorf("echo spec = %+v", echo.Spec())
	}
	res := call(t, echo, `{"message":"hi"}`)
	if !res.Success || !strings.Contains(res.Output, "hi") {
		t.Fatalf("echo = %+v", res)
	}
	t.Logf("echo output %q; %d tools", res.Output, len(got))
}
