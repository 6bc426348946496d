package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tact/internal/fakeopenai"
)

// TestDemoHeadless: with no key and no base URL, the offline demo model
// answers 15*23 through a calculator call.
func TestDemoHeadless(t *testing.T) {
	e := newEnv(t)
	r := e.run(t, "-p", "what is 15*23")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "345") {
		t.Errorf("stdout lacks 345: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "calculator") || !strings.Contains(r.stderr, "offline demo") {
		t.Errorf("stderr lacks the calculator call or the demo label:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "calculator") {
		t.Errorf("tool activity went to stdout: %q", r.stdout)
	}

	r = e.run(t, "-p", "what is 15*23", "--json")
	if r.code != 0 {
		t.Fatalf("--json exit %d; stderr:\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	calls := ofType(evs, "tool_call")
	if len(calls) != 1 || calls[0].str("name") != "calculator" || calls[0].str("id") == "" {
		t.Fatalf("tool_call events = %v", calls)
	}
	if args, _ := calls[0]["arguments"].(map[string]any); args["operation"] != "mul" {
		t.Errorf("tool_call arguments = %v, want an object", calls[0]["arguments"])
	}
	res := ofType(evs, "tool_result")
	if len(res) != 1 || res[0].str("output") != "345" || res[0]["success"] != true || res[0]["error"] != nil || res[0].str("id") != calls[0].str("id") {
		t.Errorf("tool_result events = %v", res)
	}
	if _, ok := res[0]["duration_ms"].(float64); !ok {
		t.Errorf("tool_result lacks duration_ms: %v", res[0])
	}
	if d := lastDone(t, evs); d.str("reason") != "stop" || d["iterations"] != 2.0 {
		t.Errorf("done = %v", d)
	}
	if !strings.Contains(joinedText(evs), "345") {
		t.Errorf("text events lack 345: %q", joinedText(evs))
	}
}

// TestVersionAndHelp: --version and --help exit 0 without loading anything.
func TestVersionAndHelp(t *testing.T) {
	e := newEnv(t)
	if r := e.run(t, "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "tact ") {
		t.Errorf("--version: exit %d, %q", r.code, r.stdout)
	}
	if r := e.run(t, "--help"); r.code != 0 || !strings.Contains(r.stdout, "--base-url") {
		t.Errorf("--help: exit %d, %q", r.code, r.stdout)
	}
	if r := e.run(t, "--bogus-flag"); r.code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", r.code)
	}
}

// TestNativeFlowBinary: against a fake server, streamed argument fragments
// make one calculator call whose result goes back as a role:tool message.
func TestNativeFlowBinary(t *testing.T) {
	srv, url := fakeServer(t, fakeopenai.Sequence(
		fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_e2e", Name: "calculator", Args: `{"a": 15, "b": 23, "operation": "mul"}`}}, Chunk: 3},
		fakeopenai.Reply{Text: "15 × 23 = 345", Chunk: 3},
	))
	e := newEnv(t)
	e.vars["OPENAI_API_KEY"] = "test"
	r := e.run(t, "-p", "what is 15*23", "--json", "--base-url", url)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	res := ofType(evs, "tool_result")
	if len(res) != 1 || res[0].str("id") != "call_e2e" || res[0].str("output") != "345" {
		t.Fatalf("tool_result events = %v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) == 0 {
		t.Error("the first request carries no tools")
	}
	var found bool
	for _, m := range reqs[1].Messages {
		if m.Role == openai.ChatMessageRoleTool {
			found = true
			if m.ToolCallID != "call_e2e" || m.Content != "345" {
				t.Errorf("tool message = %+v", m)
			}
		}
	}
	if !found {
		t.Fatalf("second request has no tool message: %+v", reqs[1].Messages)
	}
	if strings.Contains(r.stderr, "offline demo") {
		t.Error("labelled as the demo although a server was configured")
	}
}

var (
	e2eTags = map[string]string{
		"tool_action": `Let me compute. <tool_action name="calculator"><a value="15" /><b value="23" /><operation value="mul" /></tool_action>`,
		"json":        `{"tool": "calculator", "arguments": {"a": 15, "b": 23, "operation": "mul"}}`,
		"xml":         `Let me compute. <tool_call id="c1" name="calculator"><parameters><a>15</a><b>23</b><operation>mul</operation></parameters></tool_call>`,
	}
	e2eMarkup = map[string]string{"tool_action": "<tool_action", "json": `{"tool"`, "xml": "<tool_call"}
)

// textProtocolScript streams the tagged reply until a result came back,
// then answers; requests with tools are rejected when rejectTools is set.
func textProtocolScript(tag string, rejectTools bool) fakeopenai.Script {
	return func(_ int, req openai.ChatCompletionRequest) fakeopenai.Reply {
		if rejectTools && len(req.Tools) > 0 {
			return fakeopenai.Reply{Status: 400, Body: `{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error"}}`}
		}
		if strings.HasPrefix(fakeopenai.LastMessage(req).Content, "[Tool result for") {
			return fakeopenai.Reply{Text: "The answer is 345."}
		}
		return fakeopenai.Reply{Text: tag, Chunk: 3}
	}
}

// checkTextProtocolRun checks a headless run in a text protocol.
func checkTextProtocolRun(t *testing.T, srv *fakeopenai.Server, r result, markup string) []event {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	for _, ev := range ofType(evs, "text") {
		if strings.Contains(ev.str("text"), markup) {
			t.Errorf("text event shows markup: %q", ev.str("text"))
		}
	}
	if strings.Contains(joinedText(evs), markup) {
		t.Errorf("joined text shows markup: %q", joinedText(evs))
	}
	res := ofType(evs, "tool_result")
	if len(res) != 1 || res[0].str("output") != "345" {
		t.Fatalf("tool_result events = %v", res)
	}
	raws := srv.RawRequests()
	reqs := srv.Requests()
	last := len(reqs) - 1
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raws[last], &body); err != nil {
		t.Fatal(err)
	}
	if _, ok := body["tools"]; ok {
		t.Error("the request after the tool call has a tools field")
	}
	msg := fakeopenai.LastMessage(reqs[last])
	if msg.Role != openai.ChatMessageRoleUser || !strings.HasPrefix(msg.Content, "[Tool result for calculator]") || !strings.Contains(msg.Content, "345") {
		t.Errorf("result message = %+v", msg)
	}
	if d := lastDone(t, evs); d.str("reason") != "stop" {
		t.Errorf("done = %v", d)
	}
	return evs
}

// TestTextProtocolsBinary drives --protocol tool_action|json|xml.
func TestTextProtocolsBinary(t *testing.T) {
	for _, name := range []string{"tool_action", "json", "xml"} {
		t.Run(name, func(t *testing.T) {
			srv, url := fakeServer(t, textProtocolScript(e2eTags[name], false))
			e := newEnv(t)
			e.vars["OPENAI_API_KEY"] = "test"
			r := e.run(t, "-p", "what is 15*23", "--json", "--protocol", name, "--base-url", url)
			checkTextProtocolRun(t, srv, r, e2eMarkup[name])
			for i, raw := range srv.RawRequests() {
				if strings.Contains(string(raw), `"tools"`) {
					t.Errorf("request %d has a tools field", i)
				}
			}
		})
	}
}

// TestProtocolAutoFallbackBinary: --protocol auto against a server that
// rejects tools falls back to tool_action tags with a warning.
func TestProtocolAutoFallbackBinary(t *testing.T) {
	srv, url := fakeServer(t, textProtocolScript(e2eTags["tool_action"], true))
	e := newEnv(t)
	e.vars["OPENAI_API_KEY"] = "test"
	r := e.run(t, "-p", "what is 15*23", "--json", "--protocol", "auto", "--model", "my-local-model", "--base-url", url)
	evs := checkTextProtocolRun(t, srv, r, "<tool_action")
	warns := ofType(evs, "warning")
	if len(warns) != 1 || !strings.Contains(warns[0].str("message"), "native function calling unavailable for my-local-model") {
		t.Errorf("warnings = %v", warns)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if len(srv.Requests()[0].Tools) == 0 {
		t.Error("auto did not try native tools first")
	}

	// The rejection is remembered (capabilities.json in the state folder):
	// the next run starts on the text protocol without a failing request.
	r = e.run(t, "-p", "what is 15*23", "--json", "--protocol", "auto", "--model", "my-local-model", "--base-url", url)
	if r.code != 0 {
		t.Fatalf("second run exit %d; stderr:\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if n := len(reqs); n != 5 {
		t.Fatalf("%d requests after the second run, want 5 (no rejected request this time)", n)
	}
	if len(reqs[3].Tools) != 0 || len(ofType(parseEvents(t, r.stdout), "warning")) != 0 {
		t.Error("the second run should start on the fallback, with no tools and no warning")
	}
}

// TestShellApproval: shell is denied headless without --yes, with a reason
// naming --yes, and runs with it.
func TestShellApproval(t *testing.T) {
	e := newEnv(t)
	r := e.run(t, "-p", "run echo tact-$((6*7))", "--json", "--toolset", "coding")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	evs := parseEvents(t, r.stdout)
	appr := ofType(evs, "approval")
	if len(appr) != 1 || appr[0].str("name") != "shell" || appr[0].str("decision") != "deny" || !strings.Contains(appr[0].str("reason"), "--yes") {
		t.Fatalf("approval events = %v", appr)
	}
	res := ofType(evs, "tool_result")
	if len(res) != 1 || res[0]["success"] != false {
		t.Fatalf("tool_result events = %v", res)
	}
	if errObj, _ := res[0]["error"].(map[string]any); errObj["kind"] != "denied" {
		t.Errorf("error = %v, want kind denied", res[0]["error"])
	}

	r = e.run(t, "-p", "run echo tact-$((6*7))", "--json", "--toolset", "coding", "--yes")
	if r.code != 0 {
		t.Fatalf("--yes exit %d; stderr:\n%s", r.code, r.stderr)
	}
	evs = parseEvents(t, r.stdout)
	appr = ofType(evs, "approval")
	if len(appr) != 1 || appr[0].str("decision") != "allow" || appr[0].str("source") != "flag" {
		t.Fatalf("approval events = %v", appr)
	}
	res = ofType(evs, "tool_result")
	if len(res) != 1 || res[0]["success"] != true || !strings.Contains(res[0].str("output"), "tact-42") {
		t.Fatalf("tool_result events = %v", res)
	}
}

// TestExitCodes covers config errors (2), unknown tool sets (2) and server errors (1).
func TestExitCodes(t *testing.T) {
	t.Run("bad value", func(t *testing.T) {
		e := newEnv(t)
		cfg := e.writeConfig(t, "bad.yaml", "provider: {timeout: banana}\n")
		r := e.run(t, "--config", cfg, "-p", "hi")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2; stderr:\n%s", r.code, r.stderr)
		}
		for _, want := range []string{cfg, "provider.timeout"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "goroutine") {
			t.Errorf("stack trace on a config error:\n%s", r.stderr)
		}
	})
	t.Run("invalid yaml", func(t *testing.T) {
		e := newEnv(t)
		cfg := e.writeConfig(t, "broken.yaml", "agent:\n  max_iterations: 5\n provider: [\n")
		r := e.run(t, "--config", cfg, "-p", "hi")
		if r.code != 2 || !strings.Contains(r.stderr, cfg) || !regexp.MustCompile(`line \d+`).MatchString(r.stderr) || strings.Contains(r.stderr, "goroutine") {
			t.Fatalf("exit %d, stderr:\n%s\nwant 2, the file and the line", r.code, r.stderr)
		}
	})
	t.Run("unknown toolset", func(t *testing.T) {
		e := newEnv(t)
		r := e.run(t, "--toolset", "nope", "-p", "hi")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2; stderr:\n%s", r.code, r.stderr)
		}
		for _, want := range []string{"nope", "default", "coding"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
	t.Run("server error", func(t *testing.T) {
		srv, url := fakeServer(t, fakeopenai.Sequence(fakeopenai.Reply{Status: 500}))
		e := newEnv(t)
		e.vars["OPENAI_API_KEY"] = "test"
		cfg := e.writeConfig(t, "retry.yaml", "provider: {max_retries: 1}\n")
		start := time.Now()
		r := e.run(t, "--config", cfg, "--base-url", url, "-p", "hi")
		if r.code != 1 {
			t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "500") || strings.Contains(r.stderr, "test") && strings.Contains(r.stderr, "Bearer") {
			t.Errorf("stderr = %s", r.stderr)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests with max_retries 1, want 2", n)
		}
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("took %s", el)
		}
	})
	t.Run("max_retries 0", func(t *testing.T) {
		srv, url := fakeServer(t, fakeopenai.Sequence(fakeopenai.Reply{Status: 503}))
		e := newEnv(t)
		e.vars["OPENAI_API_KEY"] = "test"
		cfg := e.writeConfig(t, "noretry.yaml", "provider: {max_retries: 0}\n")
		if r := e.run(t, "--config", cfg, "--base-url", url, "-p", "hi"); r.code != 1 {
			t.Fatalf("exit %d, want 1", r.code)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests with max_retries 0, want 1", n)
		}
	})
}

// TestInterruptExits130: SIGINT during a slow stream exits 130 promptly.
func TestInterruptExits130(t *testing.T) {
	_, url := fakeServer(t, fakeopenai.Sequence(fakeopenai.Reply{Text: strings.Repeat("slow ", 12), Chunk: 5, Delay: 100 * time.Millisecond}))
	e := newEnv(t)
	e.vars["OPENAI_API_KEY"] = "test"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := e.command(ctx, "-p", "talk", "--json", "--base-url", url)
	var out, errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the first text event", func() bool { return strings.Contains(out.String(), `"type":"text"`) })
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if el := time.Since(sent); el > 2*time.Second {
		t.Errorf("exited %s after SIGINT", el)
	}
	code := 0
	if ee, ok := err.(interface{ ExitCode() int }); ok {
		code = ee.ExitCode()
	}
	if code != 130 {
		t.Fatalf("exit %d (%v), want 130; stderr:\n%s", code, err, errb.String())
	}
	evs := parseEvents(t, out.String())
	if d := lastDone(t, evs); d.str("reason") != "cancelled" {
		t.Errorf("done = %v", d)
	}
}

// TestToolsCommand: `tact tools --json` lists the active tools; flags work
// before and after the subcommand.
func TestToolsCommand(t *testing.T) {
	type info struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		ReadOnly    bool   `json:"read_only"`
		Destructive bool   `json:"destructive"`
	}
	list := func(t *testing.T, args ...string) map[string]info {
		t.Helper()
		r := newEnv(t).run(t, args...)
		if r.code != 0 {
			t.Fatalf("tact %v: exit %d; stderr:\n%s", args, r.code, r.stderr)
		}
		var infos []info
		if err := json.Unmarshal([]byte(r.stdout), &infos); err != nil {
			t.Fatalf("tact %v: stdout is not a JSON list: %v\n%s", args, err, r.stdout)
		}
		out := map[string]info{}
		for _, i := range infos {
			out[i.Name] = i
		}
		return out
	}
	def := list(t, "tools", "--json")
	if c, ok := def["calculator"]; !ok || c.Source != "builtin" || !c.ReadOnly || c.Destructive {
		t.Errorf("calculator = %+v (present %v)", c, ok)
	}
	if _, ok := list(t, "tools", "--json", "--toolset", "default")["shell"]; ok {
		t.Error("shell is active with --toolset default")
	}
	for _, args := range [][]string{{"--toolset", "coding", "tools", "--json"}, {"tools", "--json", "--toolset", "coding"}} {
		set := list(t, args...)
		if s, ok := set["shell"]; !ok || !s.Destructive || s.ReadOnly {
			t.Errorf("tact %v: shell = %+v (present %v)", args, s, ok)
		}
	}
}

// sessionFiles returns the session files (not audit files) under state.
func sessionFiles(state string) []string {
	all, _ := filepath.Glob(filepath.Join(state, "tact", "sessions", "*.jsonl"))
	var out []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".audit.jsonl") {
			out = append(out, f)
		}
	}
	return out
}

// TestKillSafety: a process killed after a tool round trip leaves a
// session that --continue resumes with every earlier message.
func TestKillSafety(t *testing.T) {
	srv, url := fakeServer(t, func(n int, _ openai.ChatCompletionRequest) fakeopenai.Reply {
		switch n {
		case 0:
			return fakeopenai.Reply{Text: "Computing.", ToolCalls: []fakeopenai.ToolCall{{ID: "call_k1", Name: "calculator", Args: `{"a": 15, "b": 23, "operation": "mul"}`}}}
		case 1:
			return fakeopenai.Reply{Text: strings.Repeat("slowly ", 10), Chunk: 7, Delay: 150 * time.Millisecond}
		}
		return fakeopenai.Reply{Text: "Resumed fine."}
	})
	e := newEnv(t)
	e.vars["OPENAI_API_KEY"] = "test"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := e.command(ctx, "-p", "what is 15*23", "--json", "--base-url", url)
	var out, errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the tool result in the session file", func() bool {
		files := sessionFiles(e.state)
		if len(files) != 1 {
			return false
		}
		data, _ := os.ReadFile(files[0])
		return strings.Count(string(data), "\n") >= 4 && strings.Contains(string(data), "call_k1") && len(srv.Requests()) >= 2
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	r := e.run(t, "--continue", "-p", "next", "--json", "--base-url", url)
	if r.code != 0 {
		t.Fatalf("--continue exit %d; stderr:\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	var roles []string
	var sawCall, sawResult bool
	for _, m := range reqs[2].Messages {
		roles = append(roles, m.Role)
		if m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) == 1 && m.ToolCalls[0].ID == "call_k1" {
			sawCall = true
		}
		if m.Role == openai.ChatMessageRoleTool && m.ToolCallID == "call_k1" && m.Content == "345" {
			sawResult = true
		}
	}
	got := strings.Join(roles, ",")
	if !strings.HasPrefix(got, "system,user,assistant,tool") || !strings.HasSuffix(got, ",user") {
		t.Errorf("resumed request roles = %s", got)
	}
	if reqs[2].Messages[1].Content != "what is 15*23" || fakeopenai.LastMessage(reqs[2]).Content != "next" {
		t.Errorf("resumed request lacks the prompts: %+v", reqs[2].Messages)
	}
	if !sawCall || !sawResult {
		t.Errorf("resumed request lacks the tool call (%v) or its result (%v): %+v", sawCall, sawResult, reqs[2].Messages)
	}
}
