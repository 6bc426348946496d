package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent"
	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/internal/fakeopenai"
	"tact/tools"
)

// TestNativeToolCallFragmentedArguments: arguments streamed in 3-byte
// fragments reach the tool whole, and the second request carries the
// assistant tool call and the role:tool result with the right id.
func TestNativeToolCallFragmentedArguments(t *testing.T) {
	var got atomic.Value
	type calcIn struct {
		A         float64 `json:"a"`
		B         float64 `json:"b"`
		Operation string  `json:"operation"`
	}
	spy := tools.NewFunc(tools.Spec{Name: "mul", Description: "multiplies", Annotations: tools.Annotations{ReadOnly: true}},
		func(_ context.Context, in calcIn) (tools.Result, error) {
			got.Store(in)
			return tools.OK(fmt.Sprint(in.A * in.B)), nil
		})
	f := newFixture(t, setup{
		tools: []tools.Tool{spy},
		script: fakeopenai.Sequence(
			fakeopenai.Reply{Text: "Let me compute.", ToolCalls: []fakeopenai.ToolCall{{ID: "call_abc", Name: "mul", Args: calcArgs}}, Chunk: 3},
			fakeopenai.Reply{Text: "15 × 23 = 345"},
		),
	})
	if err := f.run(t, "what is 15*23"); err != nil {
		t.Fatalf("Run: %v\n%s", err, dump(f.rec.all()))
	}
	if in, _ := got.Load().(calcIn); in != (calcIn{15, 23, "mul"}) {
		t.Fatalf("tool got %+v, want {15 23 mul}", in)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) == 0 {
		t.Error("first request has no tools field")
	}
	for _, m := range reqs[0].Messages {
		if m.Role == openai.ChatMessageRoleSystem && strings.Contains(m.Content, `"operation"`) {
			t.Error("the system prompt holds tool JSON in native mode")
		}
	}
	second := reqs[1]
	var asst *openai.ChatCompletionMessage
	for i := range second.Messages {
		if second.Messages[i].Role == openai.ChatMessageRoleAssistant {
			asst = &second.Messages[i]
		}
	}
	if asst == nil || len(asst.ToolCalls) != 1 {
		t.Fatalf("second request lacks the assistant tool call: %+v", second.Messages)
	}
	tc := asst.ToolCalls[0]
	if tc.ID != "call_abc" || tc.Type != openai.ToolTypeFunction || tc.Function.Name != "mul" {
		t.Errorf("assistant tool call = %+v, want id call_abc, type function, name mul", tc)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil || args["operation"] != "mul" || args["a"] != 15.0 {
		t.Errorf("echoed arguments %q (%v), want the whole object", tc.Function.Arguments, err)
	}
	if got := toolResultFor(t, second, "call_abc"); got != "345" {
		t.Errorf("tool message content = %q, want 345", got)
	}
	if !strings.Contains(string(f.srv.RawRequests()[1]), `"type":"function"`) {
		t.Error(`raw second request lacks "type":"function" on the tool call`)
	}
	checkHistoryValid(t, f.agent.History())
}

// TestEventsOrder checks the order and content of a turn's events.
func TestEventsOrder(t *testing.T) {
	var msgs []llm.Message
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(
			fakeopenai.Reply{Text: "Let me compute.", ToolCalls: []fakeopenai.ToolCall{{ID: "call_1", Name: "calculator", Args: calcArgs}}, Chunk: 4},
			fakeopenai.Reply{Text: "It is 345.", Chunk: 4},
		),
		opts: agent.Options{OnMessage: func(m llm.Message) error { msgs = append(msgs, m); return nil }},
	})
	if err := f.run(t, "what is 15*23"); err != nil {
		t.Fatal(err)
	}
	evs := f.rec.all()
	var kinds []string
	for _, ev := range evs {
		k := string(ev.Type)
		if len(kinds) > 0 && kinds[len(kinds)-1] == k && k == "text" {
			continue
		}
		kinds = append(kinds, k)
	}
	want := "text usage tool_call approval tool_result text usage done"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("event kinds = %s, want %s%s", strings.Join(kinds, " "), want, dump(evs))
	}
	if n := len(f.rec.ofType(agent.EventText)); n < 4 {
		t.Errorf("%d text events; the text should stream in several deltas", n)
	}
	if got := f.rec.text(); got != "Let me compute.It is 345." {
		t.Errorf("text = %q", got)
	}
	call := f.rec.ofType(agent.EventToolCall)[0]
	if call.Call.ID != "call_1" || call.Call.Name != "calculator" || call.Spec == nil || !call.Spec.Annotations.ReadOnly {
		t.Errorf("tool_call event = %+v", call)
	}
	var args map[string]any
	if err := json.Unmarshal(call.Call.Arguments, &args); err != nil || args["b"] != 23.0 {
		t.Errorf("tool_call arguments = %s (%v)", call.Call.Arguments, err)
	}
	appr := f.rec.ofType(agent.EventApproval)[0]
	if appr.Decision == nil || !appr.Decision.Allow || appr.Call.ID != "call_1" {
		t.Errorf("approval event = %+v", appr)
	}
	res := f.rec.ofType(agent.EventToolResult)[0]
	if res.Result == nil || !res.Result.Success || res.Result.Output != "345" || res.Call.ID != "call_1" {
		t.Errorf("tool_result event = %+v", res)
	}
	u := f.rec.ofType(agent.EventUsage)[0]
	if u.Usage == nil || u.Usage.TotalTokens == 0 {
		t.Errorf("usage event = %+v", u)
	}
	if d := f.rec.done(t); d.Reason != agent.DoneStop || d.Iterations != 2 {
		t.Errorf("done = %s after %d, want stop after 2", d.Reason, d.Iterations)
	}

	// OnMessage saw every appended message, in order, equal to History.
	hist := f.agent.History()
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant" {
		t.Fatalf("OnMessage roles = %v", roles)
	}
	if len(hist) != len(msgs) {
		t.Fatalf("history has %d messages, OnMessage saw %d", len(hist), len(msgs))
	}
	for i := range hist {
		a, _ := json.Marshal(hist[i])
		b, _ := json.Marshal(msgs[i])
		if string(a) != string(b) {
			t.Errorf("message %d: history %s, OnMessage %s", i, a, b)
		}
	}
	if msgs[2].ToolCallID != "call_1" || msgs[2].Content != "345" || msgs[3].Content != "It is 345." {
		t.Errorf("messages = %+v", msgs)
	}
}

// TestOnMessageErrorEndsTurn: a failing OnMessage stops the turn with an error.
func TestOnMessageErrorEndsTurn(t *testing.T) {
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(callReply("call_1"), fakeopenai.Reply{Text: "done"}),
		opts:   agent.Options{OnMessage: func(m llm.Message) error { return errors.New("disk full") }},
	})
	err := f.run(t, "hi")
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Run error = %v, want disk full", err)
	}
	if d := f.rec.done(t); d.Reason != agent.DoneError {
		t.Errorf("done reason %s, want error", d.Reason)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent although the user message could not be saved", n)
	}
}

// TestMaxIterations: the limit counts requests; the last response's calls
// do not run, a warning is emitted, and every tool call stays answered.
func TestMaxIterations(t *testing.T) {
	var runs atomic.Int32
	counter := tools.NewFunc(tools.Spec{Name: "count", Description: "counts", Annotations: tools.Annotations{ReadOnly: true}},
		func(context.Context, struct{}) (tools.Result, error) {
			return tools.OK(fmt.Sprint(runs.Add(1))), nil
		})
	f := newFixture(t, setup{
		tools: []tools.Tool{counter},
		script: func(n int, _ openai.ChatCompletionRequest) fakeopenai.Reply {
			return fakeopenai.Reply{Text: "again", ToolCalls: []fakeopenai.ToolCall{{ID: fmt.Sprintf("call_%d", n), Name: "count", Args: "{}"}}}
		},
		opts: agent.Options{MaxIterations: 3},
	})
	if err := f.run(t, "loop forever"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want exactly 3", n)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("tool ran %d times, want 2 (the third response's call must not run)", n)
	}
	warns := f.rec.ofType(agent.EventWarning)
	if len(warns) != 1 || !strings.Contains(warns[0].Message, "3") {
		t.Errorf("warnings = %s", dump(warns))
	}
	if d := f.rec.done(t); d.Reason != agent.DoneMaxIterations || d.Iterations != 3 {
		t.Errorf("done = %s/%d, want max_iterations/3", d.Reason, d.Iterations)
	}
	hist := f.agent.History()
	checkHistoryValid(t, hist)
	var lastAsst llm.Message
	for _, m := range hist {
		if m.Role == openai.ChatMessageRoleAssistant {
			lastAsst = m
		}
	}
	if len(lastAsst.ToolCalls) != 1 || lastAsst.ToolCalls[0].ID != "call_2" {
		t.Errorf("the last response was not kept: %+v", lastAsst)
	}
	last := hist[len(hist)-1]
	if last.Role != openai.ChatMessageRoleTool || last.ToolCallID != "call_2" || !strings.Contains(last.Content, "cancelled") {
		t.Errorf("last message = %+v, want a cancelled tool result for call_2", last)
	}
	// A follow-up turn works with that history.
	f.rec = &recorder{}
	if err := f.run(t, "continue"); err != nil {
		t.Fatalf("second Run: %v", err)
	}
}

// TestCancelMidStream: cancelling while the answer streams returns
// promptly, ends with done cancelled and keeps the partial text.
func TestCancelMidStream(t *testing.T) {
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(fakeopenai.Reply{Text: strings.Repeat("slow words ", 8), Chunk: 4, Delay: 30 * time.Millisecond}),
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	cancelledAt := make(chan time.Time, 1)
	sink := func(ev agent.Event) {
		f.rec.sink(ev)
		if ev.Type == agent.EventText {
			once.Do(func() { cancelledAt <- time.Now(); cancel() })
		}
	}
	err := f.agent.Run(ctx, "talk slowly", sink)
	returned := time.Now()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	select {
	case at := <-cancelledAt:
		if d := returned.Sub(at); d > time.Second {
			t.Errorf("Run returned %s after cancel", d)
		}
	default:
		t.Fatal("no text event arrived")
	}
	if d := f.rec.done(t); d.Reason != agent.DoneCancelled {
		t.Errorf("done reason %s, want cancelled", d.Reason)
	}
	hist := f.agent.History()
	last := hist[len(hist)-1]
	if last.Role != openai.ChatMessageRoleAssistant || !strings.HasPrefix(last.Content, "slow") {
		t.Errorf("partial answer not kept: %+v", last)
	}
	if strings.Contains(last.Content, strings.Repeat("slow words ", 8)) {
		t.Error("the whole answer arrived; the stream was not stopped")
	}
}

// TestStreamCut: a stream ending before [DONE] is an error that keeps the partial text.
func TestStreamCut(t *testing.T) {
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(fakeopenai.Reply{Text: "Hello there, this is cut", CutAfter: 3}),
	})
	err := f.run(t, "hi")
	if err == nil || !errors.Is(err, llm.ErrStreamEndedEarly) {
		t.Fatalf("Run error = %v, want ErrStreamEndedEarly", err)
	}
	errs := f.rec.ofType(agent.EventError)
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "stream ended early") {
		t.Fatalf("error events = %s", dump(errs))
	}
	if d := f.rec.done(t); d.Reason != agent.DoneError {
		t.Errorf("done reason %s", d.Reason)
	}
	if got := f.rec.text(); got != "Hello ther" {
		t.Errorf("streamed text = %q, want the two chunks before the cut", got)
	}
	hist := f.agent.History()
	last := hist[len(hist)-1]
	if last.Role != openai.ChatMessageRoleAssistant || !strings.HasPrefix(last.Content, "Hello ther") {
		t.Errorf("partial text not kept: %+v", last)
	}
}

// TestRetryAfter429: a 429 with Retry-After: 1 is retried after a second.
func TestRetryAfter429(t *testing.T) {
	f := newFixture(t, setup{
		retries: 2,
		script: fakeopenai.Sequence(
			fakeopenai.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}},
			fakeopenai.Reply{Text: "finally"},
		),
	})
	start := time.Now()
	if err := f.run(t, "hi"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if el := time.Since(start); el < 950*time.Millisecond {
		t.Errorf("answered after %s; Retry-After 1 was not honoured", el)
	}
	if got := f.rec.text(); got != "finally" {
		t.Errorf("text = %q", got)
	}
	if n := len(f.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestParallelToolCalls: 8 calls sleeping 200 ms each run at once and their
// results come back in call order.
func TestParallelToolCalls(t *testing.T) {
	var mu sync.Mutex
	var spans [][2]time.Time
	var calls []fakeopenai.ToolCall
	for i := range 8 {
		calls = append(calls, fakeopenai.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "sleep", Args: fmt.Sprintf(`{"ms": %d}`, 200+i)})
	}
	f := newFixture(t, setup{
		parallel: true,
		tools:    []tools.Tool{sleeper("sleep", 0, &mu, &spans)},
		script:   fakeopenai.Sequence(fakeopenai.Reply{ToolCalls: calls}, fakeopenai.Reply{Text: "rested"}),
		opts:     agent.Options{ParallelToolCalls: true},
	})
	start := time.Now()
	if err := f.run(t, "sleep 8 times"); err != nil {
		t.Fatal(err)
	}
	// One after another they would take 1.6 s; the whole turn (two model
	// requests under -race on a busy CI machine included) must stay below.
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Errorf("turn took %s; 8×200 ms calls did not run in parallel", el)
	}
	if len(spans) != 8 {
		t.Fatalf("%d calls finished, want 8", len(spans))
	}
	first, last := spans[0][0], spans[0][1]
	for _, s := range spans {
		if s[1].After(last) {
			last = s[1]
		}
		if s[0].Before(first) {
			first = s[0]
		}
	}
	if d := last.Sub(first); d > 700*time.Millisecond {
		t.Errorf("tool phase took %s, want well under 1 s", d)
	}
	req := f.srv.Requests()[1]
	msgs := toolMessages(req)
	if len(msgs) != 8 {
		t.Fatalf("%d tool messages, want 8", len(msgs))
	}
	for i, m := range msgs {
		if m.ToolCallID != fmt.Sprintf("call_%d", i) || m.Content != fmt.Sprintf("slept %d", 200+i) {
			t.Errorf("tool message %d = %s %q, want call_%d slept %d", i, m.ToolCallID, m.Content, i, 200+i)
		}
	}
	res := f.rec.ofType(agent.EventToolResult)
	for i, ev := range res {
		if ev.Call.ID != fmt.Sprintf("call_%d", i) {
			t.Errorf("tool_result event %d is for %s", i, ev.Call.ID)
		}
	}
}

// TestToolChoiceForcedOnlyOnce: tool_choice "required" (or a tool name)
// applies to the first request of a turn; once results are back the model
// gets "auto", or it could never answer.
func TestToolChoiceForcedOnlyOnce(t *testing.T) {
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(
			fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "c1", Name: "calculator", Args: `{"a":1,"b":2,"operation":"add"}`}}},
			fakeopenai.Reply{Text: "3"},
		),
		opts: agent.Options{ToolChoice: "required"},
	})
	if err := f.run(t, "add"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	raw := f.srv.RawRequests()
	if len(raw) != 2 {
		t.Fatalf("%d requests, want 2", len(raw))
	}
	if !strings.Contains(string(raw[0]), `"tool_choice":"required"`) {
		t.Errorf("first request should force a tool: %s", raw[0])
	}
	if !strings.Contains(string(raw[1]), `"tool_choice":"auto"`) {
		t.Errorf("second request should let the model answer: %s", raw[1])
	}
}

// TestMaxIterationsTextProtocol: in a text protocol the calls left at the
// limit also get a "not run" result message, so the history reads right
// after "continue".
func TestMaxIterationsTextProtocol(t *testing.T) {
	p, err := protocol.ForName("tool_action")
	if err != nil {
		t.Fatal(err)
	}
	tag := `<tool_action name="calculator"><a value="1" /><b value="2" /><operation value="add" /></tool_action>`
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(fakeopenai.Reply{Text: "again " + tag}),
		opts:   agent.Options{MaxIterations: 2, Protocol: p},
	})
	if err := f.run(t, "loop"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	hist := f.agent.History()
	last := hist[len(hist)-1]
	if last.Role != openai.ChatMessageRoleUser || !strings.Contains(last.Content, "[Tool result for calculator]") || !strings.Contains(last.Content, "not run") {
		t.Fatalf("last message = %+v, want a user message with the not-run result", last)
	}
}
