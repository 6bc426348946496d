package agent_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent"
	"tact/internal/fakeopenai"
	"tact/tools"
)

// TestToolErrorsReachTheModel: each error kind goes back to the model as the
// call's tool message, and the loop continues to a final answer.
func TestToolErrorsReachTheModel(t *testing.T) {
	var panicked atomic.Bool
	crasher := tools.NewFunc(tools.Spec{Name: "crash", Description: "panics", Annotations: tools.Annotations{ReadOnly: true}},
		func(context.Context, struct{}) (tools.Result, error) {
			panicked.Store(true)
			panic("boom in the tool")
		})
	var ranDenied atomic.Bool
	guarded := tools.NewFunc(tools.Spec{Name: "rm_all", Description: "destructive", Annotations: tools.Annotations{Destructive: true}},
		func(context.Context, struct{}) (tools.Result, error) {
			ranDenied.Store(true)
			return tools.OK("deleted"), nil
		})
	denyAll := agent.ApproverFunc(func(_ context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
		if req.Spec.Annotations.ReadOnly {
			return agent.Decision{Allow: true, Source: agent.SourceDefault}, nil
		}
		return agent.Decision{Allow: false, Source: agent.SourceRule, Reason: "policy forbids rm_all here"}, nil
	})
	const badJSON = `{"a": 15, "b": `
	cases := []struct {
		name, tool, args string
		kind             tools.ErrorKind
		want             []string // substrings of the tool message
		maxDur           time.Duration
	}{
		{"parse_error", "calculator", badJSON, tools.KindParseError,
			[]string{"parse_error", "calculator", strconv.Quote(badJSON)}, 0},
		{"not_found", "nosuch", `{}`, tools.KindNotFound,
			[]string{"Tool not found: nosuch", "calculator"}, 0},
		{"invalid_parameters", "calculator", `{"a": "x", "b": 2, "operation": "pow"}`, tools.KindInvalidParameters,
			[]string{"invalid_parameters", "operation"}, 0},
		{"timeout", "slow", `{"ms": 3000}`, tools.KindTimeout,
			[]string{"timeout", "slow"}, time.Second},
		{"execution_failed", "crash", `{}`, tools.KindExecutionFailed,
			[]string{"execution_failed", "boom in the tool"}, 0},
		{"denied", "rm_all", `{}`, tools.KindDenied,
			[]string{"denied", "policy forbids rm_all here"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, setup{
				tools: []tools.Tool{crasher, guarded, sleeper("slow", 50*time.Millisecond, nil, nil)},
				script: fakeopenai.Sequence(
					fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "call_x", Name: tc.tool, Args: tc.args}}, Chunk: 4},
					fakeopenai.Reply{Text: "I see the error."},
				),
				opts: agent.Options{Approver: denyAll},
			})
			start := time.Now()
			if err := f.run(t, "go"); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if tc.maxDur > 0 && time.Since(start) > tc.maxDur {
				t.Errorf("turn took %s", time.Since(start))
			}
			res := f.rec.ofType(agent.EventToolResult)
			if len(res) != 1 || res[0].Result.Success || res[0].Result.Error == nil || res[0].Result.Error.Kind != tc.kind {
				t.Fatalf("tool_result events = %s; want one of kind %s", dump(res), tc.kind)
			}
			reqs := f.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2 (the loop must continue after a tool error)", len(reqs))
			}
			content := toolResultFor(t, reqs[1], "call_x")
			for _, w := range tc.want {
				if !strings.Contains(content, w) {
					t.Errorf("tool message %q lacks %q", content, w)
				}
			}
			if d := f.rec.done(t); d.Reason != agent.DoneStop {
				t.Errorf("done reason %s", d.Reason)
			}
		})
	}
	if !panicked.Load() {
		t.Error("the crash tool never ran")
	}
	if ranDenied.Load() {
		t.Error("a denied tool ran")
	}
}

// TestCancelDuringTool: cancelling while a tool runs gives it a cancelled
// result, answers every call, and ends the turn as cancelled.
func TestCancelDuringTool(t *testing.T) {
	started := make(chan struct{}, 4)
	blocker := tools.NewFunc(tools.Spec{Name: "block", Description: "waits", Annotations: tools.Annotations{ReadOnly: true}},
		func(ctx context.Context, _ struct{}) (tools.Result, error) {
			started <- struct{}{}
			<-ctx.Done()
			return tools.Result{}, ctx.Err()
		})
	f := newFixture(t, setup{
		tools: []tools.Tool{blocker},
		script: fakeopenai.Sequence(fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
			{ID: "call_1", Name: "block", Args: "{}"}, {ID: "call_2", Name: "block", Args: "{}"},
		}}),
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-started; cancel() }()
	start := time.Now()
	err := f.agent.Run(ctx, "wait", f.rec.sink)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Run took %s after cancel", el)
	}
	if d := f.rec.done(t); d.Reason != agent.DoneCancelled {
		t.Errorf("done reason %s", d.Reason)
	}
	res := f.rec.ofType(agent.EventToolResult)
	if len(res) != 2 {
		t.Fatalf("tool results = %s", dump(res))
	}
	for _, r := range res {
		if r.Result.Error == nil || r.Result.Error.Kind != tools.KindCancelled {
			t.Errorf("result of %s = %+v, want cancelled", r.Call.ID, r.Result)
		}
	}
	hist := f.agent.History()
	checkHistoryValid(t, hist)
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests after cancel, want 1", n)
	}
}

// TestApproverStopTurn: a deny with StopTurn ends the turn as cancelled;
// the calls after it get a cancelled result and the history stays valid.
func TestApproverStopTurn(t *testing.T) {
	var asked atomic.Int32
	stopper := agent.ApproverFunc(func(context.Context, agent.ApprovalRequest) (agent.Decision, error) {
		asked.Add(1)
		return agent.Decision{Allow: false, Source: agent.SourceUser, Reason: "user pressed Esc", StopTurn: true}, nil
	})
	calls := []fakeopenai.ToolCall{{ID: "call_1", Name: "calculator", Args: calcArgs}, {ID: "call_2", Name: "calculator", Args: calcArgs}}
	f := newFixture(t, setup{
		script: fakeopenai.Sequence(fakeopenai.Reply{ToolCalls: calls}, fakeopenai.Reply{Text: "unexpected"}),
		opts:   agent.Options{Approver: stopper},
	})
	if err := f.run(t, "go"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if d := f.rec.done(t); d.Reason != agent.DoneCancelled {
		t.Errorf("done reason %s, want cancelled", d.Reason)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("approver asked %d times, want 1", n)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	hist := f.agent.History()
	checkHistoryValid(t, hist)
	var kinds []string
	for _, m := range hist {
		if m.Role == openai.ChatMessageRoleTool {
			kinds = append(kinds, m.Content)
		}
	}
	if len(kinds) != 2 || !strings.Contains(kinds[0], "denied") || !strings.Contains(kinds[1], "cancelled") {
		t.Errorf("tool messages = %q, want denied then cancelled", kinds)
	}
}

// TestDefaultApproverDeniesDestructive: with no Approver, a destructive tool
// is denied with a reason that names --yes.
func TestDefaultApproverDeniesDestructive(t *testing.T) {
	var ran atomic.Bool
	w := tools.NewFunc(tools.Spec{Name: "writer", Description: "writes", Annotations: tools.Annotations{Destructive: true}},
		func(context.Context, struct{}) (tools.Result, error) { ran.Store(true); return tools.OK("ok"), nil })
	f := newFixture(t, setup{
		tools:  []tools.Tool{w},
		script: fakeopenai.Sequence(fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "c", Name: "writer", Args: "{}"}}}, fakeopenai.Reply{Text: "ok"}),
	})
	if err := f.run(t, "write"); err != nil {
		t.Fatal(err)
	}
	if ran.Load() {
		t.Fatal("destructive tool ran without approval")
	}
	appr := f.rec.ofType(agent.EventApproval)
	if len(appr) != 1 || appr[0].Decision.Allow || !strings.Contains(appr[0].Decision.Reason, "--yes") {
		t.Errorf("approval events = %+v", appr)
	}
	if got := toolResultFor(t, f.srv.Requests()[1], "c"); !strings.Contains(got, "denied") {
		t.Errorf("tool message = %q", got)
	}
}
