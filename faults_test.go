package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent"
	"tact/internal/fakeopenai"
	"tact/session"
	"tact/tools"
)

// The turn after every fault: the program must still answer it.
const (
	faultFollowUp       = "follow-up: are you still there?"
	faultFollowUpAnswer = "still here"
)

// faultSleepArg is the argument of the hanging shell command's sleeps: an
// unusual value, so the process scan finds only this test's processes.
const faultSleepArg = "30.4242"

// faultMaxOutput is agent.max_output_bytes in every row.
const faultMaxOutput = 4096

// faultRow is one injected fault.
type faultRow struct {
	name string
	// replies answer the row's own model requests in order (the follow-up
	// turn is answered separately).
	replies    []fakeopenai.Reply
	maxRetries int
	// toolTimeout is agent.tool_timeout (default 5s).
	toolTimeout string
	// serverDown points the app at a closed port; the fake server starts
	// there only when the row calls fx.startServer.
	serverDown bool
	// mcp configures the dying MCP server of testdata/faults/mcp_exits.sh
	// and activates its tools.
	mcp bool
	// afterApp changes the app before the fault (registers a test tool).
	afterApp func(t *testing.T, fx *faultFixture)
	// fault injects the fault, checks what is special to it and returns
	// the messages the user saw.
	fault func(t *testing.T, fx *faultFixture) []string
	// want are key words that one of the messages must all contain
	// (case-insensitive; "{base}" is the model server's base URL). Empty
	// means the user must see no error or warning at all.
	want []string
}

// faultFixture is one in-process tact against a fake model server.
type faultFixture struct {
	dir      string
	cfgPath  string
	loadOpts LoadOptions
	srv      *fakeopenai.Server
	baseURL  string
	app      *app
	// startServer starts the fake server at baseURL (serverDown rows).
	startServer func()
}

// faultTurn is one recorded turn.
type faultTurn struct {
	events []agent.Event
	err    error
}

func (ft faultTurn) text() string {
	var b strings.Builder
	for _, ev := range ft.events {
		if ev.Type == agent.EventText {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

// messages are what the user is told about problems: warnings, errors
// and failed tool results.
func (ft faultTurn) messages() []string {
	var out []string
	for _, ev := range ft.events {
		switch ev.Type {
		case agent.EventWarning, agent.EventError:
			out = append(out, string(ev.Type)+": "+ev.Message)
		case agent.EventToolResult:
			if r := ev.Result; !r.Success && r.Error != nil {
				out = append(out, fmt.Sprintf("tool %s %s: %s", ev.Call.Name, r.Error.Kind, r.Error.Message))
			}
		}
	}
	return out
}

func (ft faultTurn) results() []tools.Result {
	var out []tools.Result
	for _, ev := range ft.events {
		if ev.Type == agent.EventToolResult {
			out = append(out, *ev.Result)
		}
	}
	return out
}

// done returns the reason of the final done event, or "" when the turn did
// not end with one.
func (ft faultTurn) done() string {
	if len(ft.events) == 0 || ft.events[len(ft.events)-1].Type != agent.EventDone {
		return ""
	}
	return ft.events[len(ft.events)-1].Reason
}

func TestFaults(t *testing.T) {
	rows := []faultRow{
		{
			name:       "429 with Retry-After then success",
			maxRetries: 1,
			replies: []fakeopenai.Reply{
				{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "1"}},
				{Text: "answer after the rate limit"},
			},
			fault: func(t *testing.T, fx *faultFixture) []string {
				start := time.Now()
				ft := fx.turn(t, "hello")
				if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != "answer after the rate limit" {
					t.Errorf("turn: err %v, done %q, text %q; want the answer after one retry", ft.err, ft.done(), ft.text())
				}
				if n := len(fx.srv.Requests()); n != 2 {
					t.Errorf("the server got %d requests, want 2 (one retry)", n)
				}
				if d := time.Since(start); d < 900*time.Millisecond {
					t.Errorf("the retry came after %s; Retry-After asked for 1s", d)
				}
				return ft.messages()
			},
			want: []string{"warning", "429", "retry 1 in 1s"},
		},
		{
			name:       "500 then success",
			maxRetries: 1,
			replies: []fakeopenai.Reply{
				{Status: http.StatusInternalServerError},
				{Text: "answer after the server error"},
			},
			fault: func(t *testing.T, fx *faultFixture) []string {
				ft := fx.turn(t, "hello")
				if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != "answer after the server error" {
					t.Errorf("turn: err %v, done %q, text %q; want the answer after one retry", ft.err, ft.done(), ft.text())
				}
				return ft.messages()
			},
			want: []string{"warning", "HTTP 500", "retry"},
		},
		{
			name:       "connection refused",
			serverDown: true,
			fault: func(t *testing.T, fx *faultFixture) []string {
				ft := fx.turn(t, "hello")
				if ft.err == nil || ft.done() != agent.DoneError {
					t.Errorf("turn: err %v, done %q; want an error", ft.err, ft.done())
				}
				// The user starts the server and carries on (the follow-up turn).
				fx.startServer()
				return ft.messages()
			},
			want: []string{"error", "{base}", "connection refused", "provider.base_url"},
		},
		{
			name: "stream cut mid-answer",
			replies: []fakeopenai.Reply{
				// Events: the role, then 5-byte pieces; cut after 3 pieces.
				{Text: "The partial answer that never ends.", Chunk: 5, CutAfter: 4},
			},
			fault: func(t *testing.T, fx *faultFixture) []string {
				ft := fx.turn(t, "tell me a story")
				const partial = "The partial ans"
				if ft.err == nil || ft.done() != agent.DoneError {
					t.Errorf("turn: err %v, done %q; want an error", ft.err, ft.done())
				}
				if ft.text() != partial {
					t.Errorf("shown text %q, want the partial answer %q", ft.text(), partial)
				}
				h := fx.app.agent.History()
				last := h[len(h)-1]
				if last.Role != openai.ChatMessageRoleAssistant || !strings.HasPrefix(last.Content, partial) ||
					!strings.Contains(last.Content, "[answer cut off") {
					t.Errorf("last history message = %s %q; want the partial answer marked as cut off", last.Role, last.Content)
				}
				return ft.messages()
			},
			want: []string{"error", "stream ended early", "partial answer was kept"},
		},
		{
			name:        "tool hangs past its timeout",
			toolTimeout: "1s",
			replies: []fakeopenai.Reply{
				{ToolCalls: []fakeopenai.ToolCall{{ID: "call_hang", Name: "shell",
					Args: faultArgs(map[string]string{"command": "sleep " + faultSleepArg + " & sleep " + faultSleepArg + "; echo never"})}}},
				{Text: "the command timed out"},
			},
			fault: faultHang,
			want:  []string{"shell", "timeout", "did not finish within 1s"},
		},
		{
			name: "tool panics",
			afterApp: func(t *testing.T, fx *faultFixture) {
				if !fx.app.executor.Registry().Register(faultPanicTool{}) {
					t.Fatal("could not register the panicking tool")
				}
			},
			replies: []fakeopenai.Reply{
				{ToolCalls: []fakeopenai.ToolCall{{ID: "call_boom", Name: "explode", Args: "{}"}}},
				{Text: "the tool crashed"},
			},
			fault: func(t *testing.T, fx *faultFixture) []string {
				ft := fx.turn(t, "run explode")
				if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != "the tool crashed" {
					t.Errorf("turn: err %v, done %q, text %q; want the turn to go on after the panic", ft.err, ft.done(), ft.text())
				}
				fx.checkToolMessage(t, 1, "call_boom", "execution_failed")
				return ft.messages()
			},
			want: []string{"explode", "execution_failed", "crashed", "panic", "simulated bug"},
		},
		{
			name: "MCP server exits",
			mcp:  true,
			replies: []fakeopenai.Reply{
				{ToolCalls: []fakeopenai.ToolCall{{ID: "call_mcp", Name: "crash", Args: "{}"}}},
				{Text: "the server died"},
			},
			fault: func(t *testing.T, fx *faultFixture) []string {
				if _, ok := fx.app.executor.Registry().Get("crash"); !ok {
					t.Fatalf("the MCP tool is not active (tools: %v; warnings: %v)", fx.app.executor.Registry().Names(), fx.app.warnings)
				}
				ft := fx.turn(t, "call the MCP tool")
				if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != "the server died" {
					t.Errorf("turn: err %v, done %q, text %q; want the turn to go on after the server exit", ft.err, ft.done(), ft.text())
				}
				fx.checkToolMessage(t, 1, "call_mcp", "execution_failed")
				return ft.messages()
			},
			want: []string{"execution_failed", "MCP server exits is not running", "exit status 3", "restart"},
		},
		{
			name:  "config edited into invalid YAML",
			fault: faultReload,
			want:  []string{"config error", "invalid yaml", "line 3", "keeping the previous config"},
		},
		{
			name: "5 MB tool output",
			replies: []fakeopenai.Reply{
				{ToolCalls: []fakeopenai.ToolCall{{ID: "call_big", Name: "shell",
					Args: faultArgs(map[string]string{"command": "head -c 5000000 /dev/zero | tr '\\0' a"})}}},
				{Text: "that was long"},
			},
			fault: func(t *testing.T, fx *faultFixture) []string {
				ft := fx.turn(t, "print a lot")
				if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != "that was long" {
					t.Errorf("turn: err %v, done %q, text %q", ft.err, ft.done(), ft.text())
				}
				if rs := ft.results(); len(rs) != 1 || !rs[0].Success {
					t.Fatalf("tool results %+v, want one success", rs)
				}
				content := fx.checkToolMessage(t, 1, "call_big", "")
				if len(content) > faultMaxOutput {
					t.Errorf("the model got %d bytes of tool output, want at most max_output_bytes = %d", len(content), faultMaxOutput)
				}
				if !strings.Contains(content, "…[cut ") || !strings.HasPrefix(content, "aaaa") {
					t.Errorf("the tool output lacks the cut marker or its start: %.200q…", content)
				}
				return ft.messages()
			},
		},
		{
			name:    "1 MB prompt",
			replies: []fakeopenai.Reply{{Text: "read it all"}},
			fault: func(t *testing.T, fx *faultFixture) []string {
				prompt := faultBigPrompt(1 << 20)
				ft := fx.turn(t, prompt)
				if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != "read it all" {
					t.Errorf("turn: err %v, done %q, text %q", ft.err, ft.done(), ft.text())
				}
				raw := fx.srv.RawRequests()
				reqs := fx.srv.Requests()
				if len(raw) != 1 || len(raw[0]) < len(prompt) {
					t.Fatalf("the server got %d requests (first %d bytes), want one of at least %d bytes", len(raw), faultLen(raw), len(prompt))
				}
				if got := fakeopenai.LastMessage(reqs[0]); got.Role != openai.ChatMessageRoleUser || got.Content != prompt {
					t.Errorf("the prompt reached the server changed: %d bytes, want %d", len(got.Content), len(prompt))
				}
				if h := fx.app.agent.History(); len(h) == 0 || h[0].Content != prompt {
					t.Error("the prompt is not the first history message")
				}
				return ft.messages()
			},
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			fx := newFaultFixture(t, row)
			msgs := row.fault(t, fx)
			checkFaultMessages(t, msgs, row.want, fx.baseURL)
			fx.checkSession(t, false)

			// The program keeps running: the next turn works.
			ft := fx.turn(t, faultFollowUp)
			if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != faultFollowUpAnswer || len(ft.messages()) > 0 {
				t.Errorf("follow-up turn: err %v, done %q, text %q, messages %q; want a plain answer",
					ft.err, ft.done(), ft.text(), ft.messages())
			}
			fx.checkSession(t, true)
		})
	}
}

// checkFaultMessages checks that one message has every key word of want,
// or, when want is empty, that there are no messages.
func checkFaultMessages(t *testing.T, msgs, want []string, base string) {
	t.Helper()
	if len(want) == 0 {
		if len(msgs) > 0 {
			t.Errorf("unexpected warnings or errors: %q", msgs)
		}
		return
	}
	for _, m := range msgs {
		lower := strings.ToLower(m)
		all := true
		for _, w := range want {
			w = strings.ReplaceAll(w, "{base}", base)
			if !strings.Contains(lower, strings.ToLower(w)) {
				all = false
				break
			}
		}
		if all {
			t.Logf("the user saw: %s", m)
			return
		}
	}
	t.Errorf("no message has all of %q; messages: %q", want, msgs)
}

func newFaultFixture(t *testing.T, row faultRow) *faultFixture {
	t.Helper()
	root := t.TempDir()
	fx := &faultFixture{dir: root}
	for _, d := range []string{"home", "state", "config", "wd", "mcp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("OPENAI_API_KEY", "sk-faults-test-key-0123456789")
	t.Setenv("OPENAI_BASE_URL", "")

	// The row's replies in order; the follow-up turn gets its own answer.
	var mu sync.Mutex
	n := 0
	fx.srv = fakeopenai.New(func(_ int, req openai.ChatCompletionRequest) fakeopenai.Reply {
		if last := fakeopenai.LastMessage(req); last.Role == openai.ChatMessageRoleUser && last.Content == faultFollowUp {
			return fakeopenai.Reply{Text: faultFollowUpAnswer}
		}
		mu.Lock()
		defer mu.Unlock()
		i := min(n, len(row.replies)-1)
		n++
		if i < 0 {
			return fakeopenai.Reply{Status: http.StatusTeapot, Body: `{"error":{"message":"the row scripted no reply"}}`}
		}
		return row.replies[i]
	})
	hs := httptest.NewUnstartedServer(fx.srv)
	t.Cleanup(hs.Close)
	if row.serverDown {
		addr := hs.Listener.Addr().String()
		hs.Listener.Close() // nothing listens there now
		fx.startServer = func() {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				t.Fatalf("listening again on %s: %v", addr, err)
			}
			hs.Listener = ln
			hs.Start()
		}
		fx.baseURL = "http://" + addr + "/v1"
	} else {
		hs.Start()
		fx.baseURL = hs.URL + "/v1"
	}

	timeout := row.toolTimeout
	if timeout == "" {
		timeout = "5s"
	}
	mcpDirs, single := "[]", "[]"
	if row.mcp {
		script, err := filepath.Abs(filepath.Join("testdata", "faults", "mcp_exits.sh"))
		if err != nil {
			t.Fatal(err)
		}
		server := fmt.Sprintf("name: exits\ncommand: bash\nargs: [%q]\n", script)
		if err := os.WriteFile(filepath.Join(root, "mcp", "exits.yaml"), []byte(server), 0o644); err != nil {
			t.Fatal(err)
		}
		mcpDirs, single = fmt.Sprintf("[%q]", filepath.Join(root, "mcp")), `["mcp:exits"]`
	}
	fx.cfgPath = filepath.Join(root, "config.yaml")
	writeFaultConfig(t, fx.cfgPath, faultConfig(fx.baseURL, row.maxRetries, timeout, mcpDirs, single, filepath.Join(root, "tact.log")))
	fx.loadOpts = LoadOptions{File: fx.cfgPath, Env: []string{
		"HOME=" + filepath.Join(root, "home"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
	}}
	cfg, err := LoadConfig(fx.loadOpts)
	if err != nil {
		t.Fatalf("loading the test config: %v", err)
	}
	a, err := newApp(context.Background(), cfg, appOptions{yes: true, workdir: filepath.Join(root, "wd")})
	if err != nil {
		t.Fatalf("newApp: %v", err)
	}
	t.Cleanup(a.close)
	fx.app = a
	if a.demo {
		t.Fatal("the app runs the demo model instead of the fake server")
	}
	if row.afterApp != nil {
		row.afterApp(t, fx)
	}
	return fx
}

// faultConfig is the config file of a row.
func faultConfig(base string, maxRetries int, toolTimeout, mcpDirs, single, logFile string) string {
	return fmt.Sprintf(`provider:
  base_url: %q
  model: fake-model
  timeout: 5s
  max_retries: %d
agent:
  system_prompt: You are a test.
  tool_timeout: %s
  max_output_bytes: %d
output_strategy:
  function_calling: "true"
tool_sets: [coding]
tools: %s
tool_dirs:
  native: []
  mcp: %s
  skills: []
logging:
  file: %q
  level: debug
`, base, maxRetries, toolTimeout, faultMaxOutput, single, mcpDirs, logFile)
}

func writeFaultConfig(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// turn runs one turn on the app and records its events.
func (fx *faultFixture) turn(t *testing.T, prompt string) faultTurn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var ft faultTurn
	err := fx.app.agent.Run(ctx, prompt, func(ev agent.Event) {
		mu.Lock()
		ft.events = append(ft.events, ev)
		mu.Unlock()
	})
	if ctx.Err() != nil {
		t.Errorf("the turn did not end within 20s") // Errorf: turn may run on another goroutine
	}
	mu.Lock()
	defer mu.Unlock()
	ft.err = err
	return ft
}

// checkToolMessage checks that request n (0-based, of all requests) ends
// with the tool message of call id and returns its content. A non-empty
// kind is the error kind the content must name.
func (fx *faultFixture) checkToolMessage(t *testing.T, n int, id, kind string) string {
	t.Helper()
	reqs := fx.srv.Requests()
	if len(reqs) <= n {
		t.Fatalf("the server got %d requests, want more than %d", len(reqs), n)
	}
	msg := fakeopenai.LastMessage(reqs[n])
	if msg.Role != openai.ChatMessageRoleTool || msg.ToolCallID != id {
		t.Fatalf("request %d ends with a %s message for %q, want the tool result of %s", n, msg.Role, msg.ToolCallID, id)
	}
	if kind != "" && !strings.HasPrefix(msg.Content, "error ("+kind+"): ") {
		t.Errorf("the model got tool result %.300q, want an error of kind %s", msg.Content, kind)
	}
	return msg.Content
}

// checkSession reads the session file back and compares it with the
// agent's history: every message must be there, unchanged, with no damage
// reported. Before the follow-up turn there may be no session yet (a fault
// that happened before any message).
func (fx *faultFixture) checkSession(t *testing.T, mustExist bool) {
	t.Helper()
	fx.app.mu.Lock()
	sess := fx.app.sess
	fx.app.mu.Unlock()
	history := fx.app.agent.History()
	if sess == nil {
		if mustExist || len(history) > 0 {
			t.Errorf("no session file, but the history has %d messages", len(history))
		}
		return
	}
	f, err := os.Open(sess.Path())
	if err != nil {
		t.Fatalf("opening the session file: %v", err)
	}
	defer f.Close()
	c, err := session.Read(f)
	if err != nil {
		t.Fatalf("reading the session file back: %v", err)
	}
	if w := c.Warnings(); len(w) > 0 {
		t.Errorf("the session file is damaged: %q", w)
	}
	if len(c.Messages) != len(history) {
		t.Fatalf("the session file has %d messages, the history %d", len(c.Messages), len(history))
	}
	for i := range history {
		want, _ := json.Marshal(history[i])
		got, _ := json.Marshal(c.Messages[i])
		if !bytes.Equal(got, want) {
			t.Errorf("session message %d (%s) differs from the history: %d bytes saved, %d in memory", i, history[i].Role, len(got), len(want))
		}
	}
}

// faultHang runs a shell command that outlives its timeout and checks that
// its whole process group is gone afterwards.
func faultHang(t *testing.T, fx *faultFixture) []string {
	done := make(chan faultTurn, 1)
	go func() { done <- fx.turn(t, "run the slow command") }()
	seen := map[int]bool{}
	var ft faultTurn
	for waiting := true; waiting; {
		select {
		case ft = <-done:
			waiting = false
		case <-time.After(20 * time.Millisecond):
			for pid, state := range faultSleeps() {
				if state != "Z" {
					seen[pid] = true
				}
			}
		}
	}
	if ft.err != nil || ft.done() != agent.DoneStop || ft.text() != "the command timed out" {
		t.Errorf("turn: err %v, done %q, text %q; want the turn to go on after the timeout", ft.err, ft.done(), ft.text())
	}
	if rs := ft.results(); len(rs) != 1 || rs[0].Error == nil || rs[0].Error.Kind != tools.KindTimeout {
		t.Errorf("tool results %+v, want one timeout", rs)
	} else if rs[0].Duration > 3*time.Second {
		t.Errorf("the timed-out call took %s, want about the 1s timeout", rs[0].Duration)
	}
	fx.checkToolMessage(t, 1, "call_hang", "timeout")
	if len(seen) != 2 {
		t.Errorf("saw %d sleep processes while the command ran, want 2 (the test cannot see the processes it checks)", len(seen))
	}
	// Every process of the group must be gone (a zombie is fine: PID 1
	// here may not reap orphans).
	deadline := time.Now().Add(time.Second)
	for {
		var alive []int
		now := faultSleeps()
		for pid := range seen {
			if st, ok := now[pid]; ok && st != "Z" {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the timed-out command still run: %v", alive)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return ft.messages()
}

// faultSleeps returns the state of every process running
// "sleep faultSleepArg", by pid.
func faultSleeps() map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	want := "sleep\x00" + faultSleepArg + "\x00"
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || string(cmdline) != want {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			out[pid] = string(stat[i+2])
		}
	}
	return out
}

// faultReload edits the config file into invalid YAML while the app runs
// and checks that reload refuses it and keeps the active tools.
func faultReload(t *testing.T, fx *faultFixture) []string {
	before := fx.app.executor.Registry()
	names := strings.Join(before.Names(), ",")
	cfgBefore := fx.app.cfg
	if _, ok := before.Get("shell"); !ok {
		t.Fatalf("the coding set is not active: %s", names)
	}
	// Two typical editing slips, both on line 3: a parser error (the
	// unclosed bracket, which yaml.v3 numbers from 0) and a scanner error.
	edits := []struct{ body, line string }{
		{"provider:\n  model: fake-model\ntool_sets: [default\nagent: {}\n", "line 3:"},
		{"provider:\n  model: fake-model\ntool_sets: default: coding\n", "line 3:"},
	}
	var msgs []string
	for _, e := range edits {
		writeFaultConfig(t, fx.cfgPath, e.body)
		notice, err := fx.app.reload(context.Background(), fx.loadOpts)
		if err == nil {
			t.Fatalf("reload accepted invalid YAML %q (notice %q)", e.body, notice)
		}
		if !strings.Contains(err.Error(), fx.cfgPath) || !strings.Contains(err.Error(), e.line) {
			t.Errorf("the reload error %q does not name the file %s and %q", err, fx.cfgPath, e.line)
		}
		if fx.app.executor.Registry() != before || strings.Join(fx.app.executor.Registry().Names(), ",") != names {
			t.Errorf("the active tools changed to %v after a failed reload; want %s", fx.app.executor.Registry().Names(), names)
		}
		if fx.app.cfg != cfgBefore {
			t.Error("the running config was replaced by a failed reload")
		}
		msgs = append(msgs, "error: "+err.Error())
	}
	// Fixing the file works again: the edit takes effect.
	writeFaultConfig(t, fx.cfgPath, strings.Replace(faultConfig(fx.baseURL, 0, "5s", "[]", "[]", filepath.Join(fx.dir, "tact.log")),
		"tool_sets: [coding]", "tool_sets: [default]", 1))
	if _, err := fx.app.reload(context.Background(), fx.loadOpts); err != nil {
		t.Fatalf("reload of the fixed file: %v", err)
	}
	if _, ok := fx.app.executor.Registry().Get("shell"); ok {
		t.Error("the fixed config (tool_sets: [default]) did not take effect: shell is still active")
	}
	return msgs
}

// faultPanicTool is a tool with a bug: it panics.
type faultPanicTool struct{}

func (faultPanicTool) Spec() tools.Spec {
	return tools.Spec{Name: "explode", Description: "Has a bug.", Source: "test",
		Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
		Annotations: tools.Annotations{ReadOnly: true}}
}

func (faultPanicTool) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	panic("simulated bug")
}

// faultArgs encodes tool-call arguments.
func faultArgs(m map[string]string) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// faultBigPrompt returns n bytes of numbered lines with some non-ASCII text,
// so any lost or reordered piece shows.
func faultBigPrompt(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %07d: pasted text «ünïcode» \"quoted\" \\ and a tab\t.\n", i)
	}
	s := b.String()
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func faultLen(raw [][]byte) int {
	if len(raw) == 0 {
		return 0
	}
	return len(raw[0])
}
