package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent"
	"tact/agent/llm"
	"tact/internal/fakeopenai"
)

// tagFor writes the 15*23 calculator call in each text format.
var tagFor = map[string]string{
	"tool_action": `<tool_action name="calculator"><a value="15" /><b value="23" /><operation value="mul" /></tool_action>`,
	"json":        `{"tool": "calculator", "arguments": {"a": 15, "b": 23, "operation": "mul"}}`,
	"xml":         `<tool_call id="call_1" name="calculator"><parameters><a>15</a><b>23</b><operation>mul</operation></parameters></tool_call>`,
}

// markupOf is what must never show in a text event for each format.
var markupOf = map[string][]string{
	"tool_action": {"<tool_action", "</tool_action>", `value="15"`},
	"json":        {`{"tool"`, `"arguments"`},
	"xml":         {"<tool_call", "<parameters>", "</tool_call>"},
}

// hasToolsField reports whether a raw request body has a "tools" key.
func hasToolsField(t *testing.T, body []byte) bool {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	_, ok := m["tools"]
	return ok
}

// TestTextProtocols: a tag split across 3-byte chunks is hidden from the
// text, runs the tool, and its result goes back as a user message in a
// request without a tools field.
func TestTextProtocols(t *testing.T) {
	for _, name := range []string{"tool_action", "json", "xml"} {
		t.Run(name, func(t *testing.T) {
			reply := tagFor[name]
			if name != "json" {
				reply = "Let me compute that. " + reply + " One moment."
			}
			f := newFixture(t, setup{
				script: fakeopenai.Sequence(
					fakeopenai.Reply{Text: reply, Chunk: 3},
					fakeopenai.Reply{Text: "15 × 23 = 345.", Chunk: 3},
				),
				opts: agent.Options{Protocol: proto(t, name)},
			})
			if err := f.run(t, "what is 15*23"); err != nil {
				t.Fatalf("Run: %v%s", err, dump(f.rec.all()))
			}
			for _, ev := range f.rec.ofType(agent.EventText) {
				for _, bad := range markupOf[name] {
					if strings.Contains(ev.Text, bad) {
						t.Errorf("text event %q shows markup %q", ev.Text, bad)
					}
				}
			}
			for _, bad := range markupOf[name] {
				if strings.Contains(f.rec.text(), bad) {
					t.Errorf("joined text %q shows markup %q", f.rec.text(), bad)
				}
			}
			if name != "json" && !strings.Contains(f.rec.text(), "Let me compute that.") {
				t.Errorf("text before the tag is missing: %q", f.rec.text())
			}
			res := f.rec.ofType(agent.EventToolResult)
			if len(res) != 1 || !res[0].Result.Success || res[0].Result.Output != "345" {
				t.Fatalf("tool results = %s", dump(res))
			}
			raws := f.srv.RawRequests()
			if len(raws) != 2 {
				t.Fatalf("%d requests, want 2", len(raws))
			}
			for i, raw := range raws {
				if hasToolsField(t, raw) {
					t.Errorf("request %d has a tools field in the %s protocol", i, name)
				}
			}
			reqs := f.srv.Requests()
			if sys := reqs[0].Messages[0]; sys.Role != openai.ChatMessageRoleSystem || !strings.Contains(sys.Content, "calculator") {
				t.Errorf("system prompt does not teach the tools: %q", sys.Content)
			}
			last := fakeopenai.LastMessage(reqs[1])
			if last.Role != openai.ChatMessageRoleUser || !strings.HasPrefix(last.Content, "[Tool result for calculator]") || !strings.Contains(last.Content, "345") {
				t.Errorf("result message = %+v", last)
			}
			if len(toolMessages(reqs[1])) != 0 {
				t.Error("a role:tool message was sent in a text protocol")
			}
			if d := f.rec.done(t); d.Reason != agent.DoneStop || d.Iterations != 2 {
				t.Errorf("done = %s/%d", d.Reason, d.Iterations)
			}
		})
	}
}

// TestNativeWinsOverTags: a response with native tool_calls and a tag runs
// only the native call and shows the tag as text.
func TestNativeWinsOverTags(t *testing.T) {
	tag := `<tool_action name="calculator"><a value="2" /><b value="2" /><operation value="add" /></tool_action>`
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(
			fakeopenai.Reply{Text: "Before " + tag + " after.", ToolCalls: []fakeopenai.ToolCall{{ID: "call_n", Name: "calculator", Args: calcArgs}}, Chunk: 3},
			fakeopenai.Reply{Text: "345"},
		),
	})
	if err := f.run(t, "compute"); err != nil {
		t.Fatal(err)
	}
	res := f.rec.ofType(agent.EventToolResult)
	if len(res) != 1 || res[0].Call.ID != "call_n" || res[0].Result.Output != "345" {
		t.Fatalf("tool results = %s, want only the native call", dump(res))
	}
	if !strings.Contains(f.rec.text(), tag) {
		t.Errorf("the tag is not shown as text: %q", f.rec.text())
	}
	req := f.srv.Requests()[1]
	if got := toolResultFor(t, req, "call_n"); got != "345" {
		t.Errorf("tool message = %q", got)
	}
	if last := fakeopenai.LastMessage(req); strings.Contains(last.Content, "[Tool result") {
		t.Errorf("a text-protocol result was sent too: %q", last.Content)
	}
}

// TestNativeModeTextMarkup: in native mode, a Hermes-style <tool_call> in
// the text is parsed and run, not shown raw.
func TestNativeModeTextMarkup(t *testing.T) {
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(
			fakeopenai.Reply{Text: `Sure. <tool_call>{"name": "calculator", "arguments": {"a": 15, "b": 23, "operation": "mul"}}</tool_call>`, Chunk: 3},
			fakeopenai.Reply{Text: "345"},
		),
	})
	if err := f.run(t, "compute"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.rec.text(), "<tool_call>") {
		t.Errorf("markup shown: %q", f.rec.text())
	}
	res := f.rec.ofType(agent.EventToolResult)
	if len(res) != 1 || res[0].Result.Output != "345" {
		t.Fatalf("tool results = %s", dump(res))
	}
	last := fakeopenai.LastMessage(f.srv.Requests()[1])
	if !strings.HasPrefix(last.Content, "[Tool result for calculator]") {
		t.Errorf("result message = %+v", last)
	}
}

// TestDisableTextCalls: with text calls disabled, tags are shown and nothing runs.
func TestDisableTextCalls(t *testing.T) {
	tag := tagFor["tool_action"]
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(fakeopenai.Reply{Text: "Here: " + tag, Chunk: 3}),
		opts:   agent.Options{Protocol: proto(t, "tool_action"), DisableTextCalls: true},
	})
	if err := f.run(t, "compute"); err != nil {
		t.Fatal(err)
	}
	if got := f.rec.text(); got != "Here: "+tag {
		t.Errorf("text = %q, want the tag shown verbatim", got)
	}
	if n := len(f.rec.ofType(agent.EventToolCall)); n != 0 {
		t.Errorf("%d tool calls with text calls disabled", n)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if d := f.rec.done(t); d.Reason != agent.DoneStop {
		t.Errorf("done reason %s", d.Reason)
	}
}

// ollamaNoTools is Ollama's answer to a request with tools for a model without them.
const ollamaNoTools = `{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error"}}`

// rejectTools answers 400 to requests with tools, a tagged call to the
// first one without, and a final answer once a result came back.
func rejectTools(_ int, req openai.ChatCompletionRequest) fakeopenai.Reply {
	if len(req.Tools) > 0 {
		return fakeopenai.Reply{Status: 400, Body: ollamaNoTools}
	}
	if strings.HasPrefix(fakeopenai.LastMessage(req).Content, "[Tool result for") {
		return fakeopenai.Reply{Text: "It is 345."}
	}
	return fakeopenai.Reply{Text: "Computing " + tagFor["tool_action"], Chunk: 4}
}

// TestFallbackWhenToolsRejected: a server rejecting tools switches the
// conversation to the fallback text protocol and retries.
func TestFallbackWhenToolsRejected(t *testing.T) {
	f := newFixture(t, setup{
		script: rejectTools,
		opts:   agent.Options{Model: "gemma:2b", Fallback: proto(t, "tool_action")},
	})
	if err := f.run(t, "what is 15*23"); err != nil {
		t.Fatalf("Run: %v%s", err, dump(f.rec.all()))
	}
	warns := f.rec.ofType(agent.EventWarning)
	if len(warns) != 1 || !strings.HasPrefix(warns[0].Message, "native function calling unavailable for gemma:2b") ||
		!strings.Contains(warns[0].Message, "tool_action") {
		t.Errorf("warnings = %s", dump(warns))
	}
	raws := f.srv.RawRequests()
	if len(raws) != 3 {
		t.Fatalf("%d requests, want 3 (rejected, retried, answer)", len(raws))
	}
	if !hasToolsField(t, raws[0]) || hasToolsField(t, raws[1]) || hasToolsField(t, raws[2]) {
		t.Error("only the first request may carry tools")
	}
	res := f.rec.ofType(agent.EventToolResult)
	if len(res) != 1 || res[0].Result.Output != "345" {
		t.Fatalf("tool results = %s", dump(res))
	}
	if d := f.rec.done(t); d.Reason != agent.DoneStop || d.Iterations != 2 {
		t.Errorf("done = %s/%d, want stop/2 (the rejected request does not count)", d.Reason, d.Iterations)
	}
	if got := f.agent.Protocol().Name(); got != "tool_action" {
		t.Errorf("protocol after fallback = %s", got)
	}
	// The next turn starts in the text protocol at once.
	f.rec = &recorder{}
	if err := f.run(t, "again"); err != nil {
		t.Fatal(err)
	}
	if raws := f.srv.RawRequests(); hasToolsField(t, raws[3]) {
		t.Error("the next turn sent tools again")
	}
}

// TestNoFallbackIsAClearError: without a fallback, the rejection is an error
// that says what to do.
func TestNoFallbackIsAClearError(t *testing.T) {
	f := newFixture(t, setup{script: rejectTools, opts: agent.Options{Model: "gemma:2b"}})
	err := f.run(t, "what is 15*23")
	if err == nil || !llm.IsToolsUnsupported(err) {
		t.Fatalf("Run error = %v, want a tools-unsupported error", err)
	}
	errs := f.rec.ofType(agent.EventError)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "does not support tools") || !strings.Contains(errs[0].Message, "--protocol") {
		t.Errorf("error events = %s", dump(errs))
	}
	if d := f.rec.done(t); d.Reason != agent.DoneError {
		t.Errorf("done reason %s", d.Reason)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
