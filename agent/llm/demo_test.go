package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func demoClient(delay time.Duration) *Client {
	return New(Options{BaseURL: DemoBaseURL, Model: DemoModel, Transport: &Demo{Delay: delay}})
}

var demoTools = func() []openai.Tool {
	var ts []openai.Tool
	for _, n := range []string{"calculator", "current_time", "list_dir", "read_file", "shell"} {
		ts = append(ts, openai.Tool{Type: "function", Function: &openai.FunctionDefinition{Name: n}})
	}
	return ts
}()

func TestDemoCalculatorRoundTrip(t *testing.T) {
	c := demoClient(0)
	msgs := []Message{{Role: "system", Content: "You are tact."}, {Role: "user", Content: "What is 15*23?"}}
	res, err := c.Stream(context.Background(), Request{Messages: msgs, Tools: demoTools, ToolChoice: "auto"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 || res.FinishReason != "tool_calls" || res.Content != "" || res.Usage == nil {
		t.Fatalf("response %+v", res)
	}
	call := res.ToolCalls[0]
	var args struct {
		A, B      float64
		Operation string
	}
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		t.Fatal(err)
	}
	if call.Function.Name != "calculator" || args.A != 15 || args.B != 23 || args.Operation != "mul" || call.ID == "" {
		t.Fatalf("call %+v args %+v", call, args)
	}

	msgs = append(msgs,
		Message{Role: "assistant", ToolCalls: res.ToolCalls},
		Message{Role: "tool", ToolCallID: call.ID, Content: "345"})
	var deltas []string
	res, err = c.Stream(context.Background(), Request{Messages: msgs, Tools: demoTools}, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, "15 × 23 = **345**") || !strings.Contains(res.Content, "(offline demo)") || len(res.ToolCalls) != 0 {
		t.Fatalf("answer %q", res.Content)
	}
	if len(deltas) < 4 {
		t.Fatalf("answer came in %d chunks, want word by word", len(deltas))
	}
}

// TestDemoWireFormat reads the demo's raw SSE: framing, several argument
// fragments, usage in the last chunk, [DONE] at the end.
func TestDemoWireFormat(t *testing.T) {
	body := `{"model":"tact-demo (offline)","stream":true,"stream_options":{"include_usage":true},` +
		`"messages":[{"role":"user","content":"15 times 23"}],"tools":[{"type":"function","function":{"name":"calculator"}}]}`
	req, _ := http.NewRequest(http.MethodPost, DemoBaseURL+"/chat/completions", strings.NewReader(body))
	resp, err := (&Demo{}).RoundTrip(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	raw, _ := io.ReadAll(resp.Body)
	s := string(raw)
	if !strings.HasPrefix(s, "data: {") || !strings.HasSuffix(s, "\n\ndata: [DONE]\n\n") {
		t.Fatalf("framing:\n%s", s)
	}
	events := strings.Split(strings.TrimSuffix(s, "\n\n"), "\n\n")
	var args []string
	for i, e := range events[:len(events)-1] {
		var ch struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct{ Arguments string }
					} `json:"tool_calls"`
				}
			}
			Usage *openai.Usage
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(e, "data: ")), &ch); err != nil {
			t.Fatalf("event %d %q: %v", i, e, err)
		}
		for _, c := range ch.Choices {
			for _, tc := range c.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					args = append(args, tc.Function.Arguments)
				}
			}
		}
		if (ch.Usage != nil) != (i == len(events)-2) {
			t.Errorf("event %d usage %v: want usage only in the last chunk", i, ch.Usage)
		}
	}
	if len(args) < 2 || len(args) > 3 || strings.Join(args, "") != `{"a":15,"b":23,"operation":"mul"}` {
		t.Fatalf("argument fragments %q", args)
	}
}

func TestDemoIntents(t *testing.T) {
	cases := []struct {
		msg, tool, args string
	}{
		{"what is 15*23", "calculator", `{"a":15,"b":23,"operation":"mul"}`},
		{"15 times 23", "calculator", `{"a":15,"b":23,"operation":"mul"}`},
		{"compute 2+2", "calculator", `{"a":2,"b":2,"operation":"add"}`},
		{"what's 10 ÷ 4?", "calculator", `{"a":10,"b":4,"operation":"div"}`},
		{"7 x 6", "calculator", `{"a":7,"b":6,"operation":"mul"}`},
		{"9 × 3", "calculator", `{"a":9,"b":3,"operation":"mul"}`},
		{"100 - 1", "calculator", `{"a":100,"b":1,"operation":"sub"}`},
		{"what time is it?", "current_time", `{}`},
		{"what's the date today", "current_time", `{}`},
		{"list files", "list_dir", `{"path":"."}`},
		{"ls", "list_dir", `{"path":"."}`},
		{"read README.md", "read_file", `{"path":"README.md"}`},
		{"run echo hi && ls", "shell", `{"command":"echo hi && ls"}`},
	}
	c := demoClient(0)
	for _, tc := range cases {
		res, err := c.Stream(context.Background(), Request{Messages: userMsg(tc.msg), Tools: demoTools}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.ToolCalls) != 1 || res.ToolCalls[0].Function.Name != tc.tool {
			t.Errorf("%q: calls %+v, content %q", tc.msg, res.ToolCalls, res.Content)
			continue
		}
		assertJSON(t, res.ToolCalls[0].Function.Arguments, tc.args)
	}
}

func TestDemoToolNotOffered(t *testing.T) {
	c := demoClient(0)
	res, err := c.Stream(context.Background(), Request{Messages: userMsg("what is 6*7")}, nil)
	if err != nil || len(res.ToolCalls) != 0 || !strings.Contains(res.Content, "**42**") || !strings.Contains(res.Content, "(offline demo)") {
		t.Fatalf("res %+v err %v", res, err)
	}
	res, _ = c.Stream(context.Background(), Request{Messages: userMsg("list files")}, nil)
	if !strings.Contains(res.Content, "list_dir") || !strings.Contains(res.Content, "(offline demo)") {
		t.Fatalf("content %q", res.Content)
	}
}

func TestDemoToolActionProtocol(t *testing.T) {
	c := demoClient(0)
	sys := `Call tools like <tool_action name="NAME"><param value="…" /></tool_action>. Tools: calculator, current_time.`
	msgs := []Message{{Role: "system", Content: sys}, {Role: "user", Content: "what is 15*23"}}
	res, err := c.Stream(context.Background(), Request{Messages: msgs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tag := `<tool_action name="calculator"><a value="15" /><b value="23" /><operation value="mul" /></tool_action>`
	if !strings.Contains(res.Content, tag) || len(res.ToolCalls) != 0 {
		t.Fatalf("content %q", res.Content)
	}
	msgs = append(msgs, Message{Role: "assistant", Content: res.Content},
		Message{Role: "user", Content: "[Tool result for calculator]\n345"})
	res, err = c.Stream(context.Background(), Request{Messages: msgs}, nil)
	if err != nil || !strings.Contains(res.Content, "15 × 23 = **345**") || strings.Contains(res.Content, "<tool_action") {
		t.Fatalf("res %q err %v", res.Content, err)
	}
}

func TestDemoToolErrorsAndOutputs(t *testing.T) {
	c := demoClient(0)
	ask := func(name, args, output string) string {
		t.Helper()
		msgs := []Message{
			{Role: "user", Content: "x"},
			{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: name, Arguments: args}}}},
			{Role: "tool", ToolCallID: "c1", Content: output},
		}
		res, err := c.Stream(context.Background(), Request{Messages: msgs, Tools: demoTools}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Content
	}
	if got := ask("calculator", `{"a":1,"b":0,"operation":"div"}`, "division by zero"); !strings.Contains(got, "error") ||
		!strings.Contains(got, "division by zero") {
		t.Errorf("calculator error answer %q", got)
	}
	if got := ask("list_dir", `{"path":"."}`, "go.mod\nmain.go"); !strings.Contains(got, "```\ngo.mod\nmain.go\n```") {
		t.Errorf("list answer %q", got)
	}
	if got := ask("read_file", `{"path":"x"}`, "Error: no such file: x"); !strings.Contains(got, "reported an error") {
		t.Errorf("read error answer %q", got)
	}
	if got := ask("current_time", `{}`, "2025-01-01T12:00:00Z"); !strings.Contains(got, "**2025-01-01T12:00:00Z**") {
		t.Errorf("time answer %q", got)
	}
}

func TestDemoIntro(t *testing.T) {
	var n int
	res, err := demoClient(0).Stream(context.Background(), Request{Messages: userMsg("hello there"), Tools: demoTools}, func(string) { n++ })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(offline demo)", "## ", "- ", "```sh", "OPENAI_API_KEY", "provider.base_url", "--model", "ollama", "OPENAI_BASE_URL"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("intro lacks %q", want)
		}
	}
	if n < 20 {
		t.Errorf("intro streamed in %d chunks", n)
	}
}

func TestDemoStreamsWithDelayAndCancels(t *testing.T) {
	c := demoClient(2 * time.Millisecond)
	var n int
	res, err := c.Stream(context.Background(), Request{Messages: userMsg("what is 2+3")}, func(string) { n++ })
	if err != nil || !strings.Contains(res.Content, "**5**") || n < 3 {
		t.Fatalf("res %q err %v chunks %d", res.Content, err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	_, err = demoClient(50*time.Millisecond).Stream(ctx, Request{Messages: userMsg("hi")}, func(string) { cancel() })
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("cancel: err %v after %v", err, time.Since(start))
	}
}

func TestDemoRejectsOtherEndpoints(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, DemoBaseURL+"/models", nil)
	resp, err := (&Demo{}).RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("resp %v err %v", resp, err)
	}
}

func TestSplitWordsLossless(t *testing.T) {
	for _, s := range []string{"", "a", "  lead", "a b\n\nc  ", "```go\nx := 1\n```\n", "你好 世界"} {
		parts := splitWords(s)
		if strings.Join(parts, "") != s {
			t.Errorf("splitWords(%q) = %q", s, parts)
		}
		for _, p := range parts {
			if strings.TrimSpace(p) == "" && len(parts) > 1 {
				t.Errorf("splitWords(%q) has a blank piece %q", s, p)
			}
		}
	}
}
