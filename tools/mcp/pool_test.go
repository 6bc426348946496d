package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"tact/tools"
)

// provider is the method set tools.Manager expects of a tool source.
type provider interface {
	Name() string
	Tools(ctx context.Context) ([]tools.Tool, error)
}

var _ provider = (*Provider)(nil)

// fakeServer is an in-process MCP server reached through in-memory transports.
// Every factory call makes a new connection, as a restart would.
type fakeServer struct {
	srv      *sdk.Server
	mu       sync.Mutex
	sessions []*sdk.ServerSession
}

func newFakeServer(t *testing.T, opts *sdk.ServerOptions) *fakeServer {
	t.Helper()
	return &fakeServer{srv: sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, opts)}
}

func (f *fakeServer) factory(ctx context.Context) (sdk.Transport, error) {
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.sessions = append(f.sessions, ss)
	f.mu.Unlock()
	return ct, nil
}

// crash closes the server side of the latest connection.
func (f *fakeServer) crash() {
	f.mu.Lock()
	ss := f.sessions[len(f.sessions)-1]
	f.mu.Unlock()
	_ = ss.Close()
}

func (f *fakeServer) connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sessions)
}

type echoIn struct {
	Message string `json:"message"`
}

func addEcho(s *sdk.Server, name, prefix string) {
	sdk.AddTool(s, &sdk.Tool{Name: name, Description: "echoes " + prefix},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: prefix + in.Message}}}, nil, nil
		})
}

// startPool connects a pool of in-memory servers, closed at test end.
func startPool(t *testing.T, servers map[string]*fakeServer, opts PoolOptions) *Pool {
	t.Helper()
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var cfgs []ServerConfig
	opts.Transports = map[string]TransportFactory{}
	for _, n := range names {
		cfgs = append(cfgs, ServerConfig{Name: n})
		opts.Transports[n] = servers[n].factory
	}
	p := NewPool(cfgs, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Connect(ctx); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// toolsOf returns a provider's tools by name.
func toolsOf(t *testing.T, pr *Provider) map[string]tools.Tool {
	t.Helper()
	list, err := pr.Tools(context.Background())
	if err != nil {
		t.Fatalf("%s.Tools: %v", pr.Name(), err)
	}
	m := map[string]tools.Tool{}
	for _, tl := range list {
		m[tl.Spec().Name] = tl
	}
	return m
}

func call(t *testing.T, tl tools.Tool, args string) tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := tl.Execute(ctx, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Execute returned a Go error: %v", err)
	}
	return res
}

func TestListPaginatedAndCall(t *testing.T) {
	fs := newFakeServer(t, &sdk.ServerOptions{PageSize: 2})
	for i := range 5 {
		addEcho(fs.srv, fmt.Sprintf("echo%d", i), fmt.Sprintf("%d:", i))
	}
	p := startPool(t, map[string]*fakeServer{"srv": fs}, PoolOptions{DefaultTimeout: 7 * time.Second})
	prov := p.Providers()[0]
	if prov.Name() != "mcp:srv" {
		t.Errorf("provider name = %q", prov.Name())
	}
	got := toolsOf(t, prov)
	if len(got) != 5 {
		t.Fatalf("listed %d tools over pages of 2, want 5: %v", len(got), got)
	}
	spec := got["echo3"].Spec()
	if spec.Source != "mcp:srv" || spec.Description != "echoes 3:" || spec.Timeout != 7*time.Second {
		t.Errorf("spec = %+v", spec)
	}
	var schema map[string]any
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("parameters = %s (%v), want an object schema", spec.Parameters, err)
	}
	if props, _ := schema["properties"].(map[string]any); props["message"] == nil {
		t.Errorf("parameters lack the message property: %s", spec.Parameters)
	}
	res := call(t, got["echo3"], `{"message":"hi"}`)
	if !res.Success || res.Output != "3:hi" {
		t.Errorf("echo3 result = %+v, want 3:hi", res)
	}
	res = call(t, got["echo3"], `[1,2]`)
	if res.Success || res.Error.Kind != tools.KindInvalidParameters {
		t.Errorf("array arguments: %+v, want invalid_parameters", res)
	}
	st := p.Status()
	if len(st) != 1 || !st[0].Running || st[0].Tools != 5 || st[0].Err != nil {
		t.Errorf("status = %+v", st)
	}
}

func TestIsErrorResult(t *testing.T) {
	fs := newFakeServer(t, nil)
	sdk.AddTool(fs.srv, &sdk.Tool{Name: "fail"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("disk is full")
		})
	p := startPool(t, map[string]*fakeServer{"s": fs}, PoolOptions{})
	res := call(t, toolsOf(t, p.Providers()[0])["fail"], `{}`)
	if res.Success || res.Error == nil || res.Error.Kind != tools.KindExecutionFailed || !strings.Contains(res.Error.Message, "disk is full") {
		t.Fatalf("result = %+v, want execution_failed with the server's message", res)
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	fs := newFakeServer(t, nil)
	addEcho(fs.srv, "echo", "")
	p := startPool(t, map[string]*fakeServer{"s": fs}, PoolOptions{})
	s := p.servers[0]
	ghost := newTool(s, &sdk.Tool{Name: "ghost"}, "ghost")
	res := call(t, ghost, `{}`)
	if res.Success || !strings.Contains(res.Error.Message, "refused the call to ghost") {
		t.Fatalf("result = %+v", res)
	}
	// A protocol error must not be taken for a dead server.
	if res := call(t, toolsOf(t, p.Providers()[0])["echo"], `{"message":"ok"}`); !res.Success {
		t.Fatalf("echo after protocol error = %+v", res)
	}
}

func TestAnnotations(t *testing.T) {
	f, tr := false, true
	fs := newFakeServer(t, nil)
	add := func(name string, a *sdk.ToolAnnotations) {
		fs.srv.AddTool(&sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: a},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{}, nil
			})
	}
	add("plain", nil)
	add("reader", &sdk.ToolAnnotations{ReadOnlyHint: true})
	add("additive", &sdk.ToolAnnotations{DestructiveHint: &f})
	add("deleter", &sdk.ToolAnnotations{DestructiveHint: &tr})
	add("titled", &sdk.ToolAnnotations{Title: "Only a title"})
	p := startPool(t, map[string]*fakeServer{"s": fs}, PoolOptions{})
	got := toolsOf(t, p.Providers()[0])
	want := map[string]tools.Annotations{
		"plain":    {Destructive: true},
		"reader":   {ReadOnly: true},
		"additive": {},
		"deleter":  {Destructive: true},
		"titled":   {Destructive: true},
	}
	for name, w := range want {
		if a := got[name].Spec().Annotations; a != w {
			t.Errorf("%s annotations = %+v, want %+v", name, a, w)
		}
	}
	if d := got["titled"].Spec().Description; d != "Only a title" {
		t.Errorf("titled description = %q, want the title as fallback", d)
	}
}

func TestListChanged(t *testing.T) {
	fs := newFakeServer(t, nil)
	addEcho(fs.srv, "echo", "")
	p := startPool(t, map[string]*fakeServer{"s": fs}, PoolOptions{})
	var changes atomic.Int32
	p.OnChange(func() { changes.Add(1) })

	addEcho(fs.srv, "shout", "!")
	deadline := time.Now().Add(3 * time.Second)
	for {
		if tl, ok := toolsOf(t, p.Providers()[0])["shout"]; ok {
			if res := call(t, tl, `{"message":"x"}`); res.Output != "!x" {
				t.Fatalf("new tool result = %+v", res)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pool did not pick up the tool added after connect")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if changes.Load() == 0 {
		t.Fatal("OnChange was not called")
	}
}

func TestClashNaming(t *testing.T) {
	a, b := newFakeServer(t, nil), newFakeServer(t, nil)
	addEcho(a.srv, "echo", "a:")
	addEcho(a.srv, "only_a", "")
	addEcho(b.srv, "echo", "b:")
	p := startPool(t, map[string]*fakeServer{"a": a, "b": b}, PoolOptions{})
	provs := p.Providers()
	ta, tb := toolsOf(t, provs[0]), toolsOf(t, provs[1])
	if _, ok := ta["only_a"]; !ok {
		t.Errorf("unique tool should keep its name: %v", ta)
	}
	if _, ok := ta["echo"]; ok {
		t.Errorf("clashing tool kept its plain name")
	}
	if res := call(t, ta["a__echo"], `{"message":"1"}`); res.Output != "a:1" {
		t.Errorf("a__echo = %+v", res)
	}
	if res := call(t, tb["b__echo"], `{"message":"2"}`); res.Output != "b:2" {
		t.Errorf("b__echo = %+v", res)
	}
}

func TestCrashAndRestart(t *testing.T) {
	fs := newFakeServer(t, nil)
	addEcho(fs.srv, "echo", "")
	p := startPool(t, map[string]*fakeServer{"s": fs}, PoolOptions{})
	echo := toolsOf(t, p.Providers()[0])["echo"]

	fs.crash()
	res := call(t, echo, `{"message":"x"}`)
	if res.Success || res.Error.Kind != tools.KindExecutionFailed ||
		!strings.Contains(res.Error.Message, "MCP server s is not running") ||
		!strings.Contains(res.Error.Message, "restart it on the next call") {
		t.Fatalf("call after crash = %+v", res)
	}
	if st := p.Status()[0]; st.Running || st.Err == nil {
		t.Errorf("status after crash = %+v", st)
	}
	if _, err := p.Providers()[0].Tools(context.Background()); err != nil {
		t.Errorf("a dead server keeps its tools, got %v", err)
	}
	res = call(t, echo, `{"message":"back"}`)
	if !res.Success || res.Output != "back" {
		t.Fatalf("call after restart = %+v", res)
	}
	if n := fs.connections(); n != 2 {
		t.Errorf("server saw %d connections, want 2", n)
	}
	if st := p.Status()[0]; !st.Running {
		t.Errorf("status after restart = %+v", st)
	}
}

func TestTimeout(t *testing.T) {
	fs := newFakeServer(t, nil)
	sdk.AddTool(fs.srv, &sdk.Tool{Name: "hang"},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	addEcho(fs.srv, "echo", "")
	p := startPool(t, map[string]*fakeServer{"s": fs}, PoolOptions{})
	got := toolsOf(t, p.Providers()[0])

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := got["hang"].Execute(ctx, json.RawMessage(`{}`))
	if el := time.Since(start); el > time.Second {
		t.Fatalf("timed-out call took %v", el)
	}
	if err != nil || res.Success || res.Error.Kind != tools.KindTimeout || !strings.Contains(res.Error.Message, "deadline exceeded") {
		t.Fatalf("result = %+v, %v; want a timeout", res, err)
	}
	// The session survives a timed-out call.
	if res := call(t, got["echo"], `{"message":"still here"}`); res.Output != "still here" {
		t.Fatalf("echo after timeout = %+v", res)
	}
}

func TestFailedStartKeepsOthers(t *testing.T) {
	good := newFakeServer(t, nil)
	addEcho(good.srv, "echo", "")
	p := NewPool([]ServerConfig{{Name: "bad"}, {Name: "good"}}, PoolOptions{Transports: map[string]TransportFactory{
		"bad":  func(context.Context) (sdk.Transport, error) { return nil, errors.New("no such server") },
		"good": good.factory,
	}})
	defer p.Close()
	err := p.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no such server") {
		t.Fatalf("Connect error = %v", err)
	}
	provs := p.Providers()
	if _, err := provs[0].Tools(context.Background()); err == nil || !strings.Contains(err.Error(), "no such server") {
		t.Errorf("bad provider Tools error = %v", err)
	}
	if len(toolsOf(t, provs[1])) != 1 {
		t.Errorf("good server should still be up")
	}
}

func TestResultText(t *testing.T) {
	res := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "line one"},
		&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
		&sdk.TextContent{Text: "line two"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", Text: "contents"}},
	}, StructuredContent: map[string]any{"ignored": true}}
	want := "line one\n[image image/png, 1234 bytes]\nline two\n[resource file:///a.txt]\ncontents"
	if got := resultText(res); got != want {
		t.Errorf("resultText = %q, want %q", got, want)
	}
	res = &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("abc")}},
		StructuredContent: map[string]any{"temp": 21}}
	want = "[audio audio/wav, 3 bytes]\n{\n  \"temp\": 21\n}"
	if got := resultText(res); got != want {
		t.Errorf("resultText = %q, want %q", got, want)
	}
}

func TestCloseStopsCalls(t *testing.T) {
	fs := newFakeServer(t, nil)
	addEcho(fs.srv, "echo", "")
	p := startPool(t, map[string]*fakeServer{"s": fs}, PoolOptions{})
	echo := toolsOf(t, p.Providers()[0])["echo"]
	_ = p.Close()
	res := call(t, echo, `{"message":"x"}`)
	if res.Success || !strings.Contains(res.Error.Message, "shut down") {
		t.Fatalf("call after Close = %+v", res)
	}
	if fs.connections() != 1 {
		t.Errorf("a closed pool must not reconnect")
	}
}
