package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"tact/internal/fakeopenai"
)

const calcTag = `<tool_action name="calculator"><a value="15" /><b value="23" /><operation value="mul" /></tool_action>`

func shellCall(id, cmd string) fakeopenai.Reply {
	return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: id, Name: "shell", Args: `{"command":"` + cmd + `"}`}}}
}

func TestStreamedAnswerHidesToolMarkup(t *testing.T) {
	h := start(t, fakeopenai.Sequence(
		fakeopenai.Reply{Text: "Let me compute that.\n\n" + calcTag + "\n\nOne moment.", Chunk: 3},
		fakeopenai.Reply{Text: "## Result\n\nThe product is 345.\n\n- checked twice", Chunk: 4},
	), setup{proto: "tool_action"})
	h.typeLine("what is 15*23")
	h.waitNew("Let me compute that.")
	h.waitNew("calculator")
	h.waitNew("345")
	h.waitNew("The product is 345.")
	h.waitNew("checked twice")
	all := h.all()
	for _, bad := range []string{"<tool_action", "tool_action>", `value="15"`, "operation value"} {
		if strings.Contains(all, bad) {
			t.Errorf("the screen showed tool markup %q", bad)
		}
	}
	// The result went back to the model in the text protocol.
	h.waitRequests(2)
	last := fakeopenai.LastMessage(h.srv.Requests()[1])
	if !strings.Contains(last.Content, "345") {
		t.Errorf("the model did not get the result: %q", last.Content)
	}
}

func TestApprovalAllowOnce(t *testing.T) {
	h := start(t, fakeopenai.Sequence(shellCall("c1", "echo hello-from-shell"), fakeopenai.Reply{Text: "all done"}), setup{})
	h.typeLine("say hello")
	h.waitNew("Approve shell?")
	h.waitNew("destructive")
	h.waitNew("$ echo hello-from-shell")
	h.waitNew("allow `echo *` for this session")
	h.rune('y')
	h.waitNew("allowed by you")
	h.waitNew("all done")
	h.waitRequests(2)
	if got := h.lastToolMessage(1); !strings.Contains(got, "hello-from-shell") {
		t.Errorf("tool message = %q, want the command's output", got)
	}
	if n := len(h.policy.SessionRules()); n != 0 {
		t.Errorf("allow once added %d session rules", n)
	}
}

// TestApprovalQueuePosition: a response with two calls asks about each in
// turn and says which of the two it is.
func TestApprovalQueuePosition(t *testing.T) {
	two := fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{
		{ID: "c1", Name: "shell", Args: `{"command":"echo one"}`},
		{ID: "c2", Name: "shell", Args: `{"command":"echo two"}`},
	}}
	h := start(t, fakeopenai.Sequence(two, fakeopenai.Reply{Text: "both ran"}), setup{})
	h.typeLine("run both")
	h.waitNew("(call 1 of 2)")
	h.waitNew("$ echo one")
	h.rune('y')
	h.waitNew("(call 2 of 2)")
	h.waitNew("$ echo two")
	h.rune('n')
	h.waitNew("both ran")
	h.waitRequests(2)
	if got := h.lastToolMessage(1); !strings.Contains(got, "denied") {
		t.Errorf("the second call's tool message = %q, want the denial", got)
	}
}

func TestApprovalAllowForSession(t *testing.T) {
	h := start(t, fakeopenai.Sequence(
		shellCall("c1", "echo one"),
		shellCall("c2", "echo two"),
		fakeopenai.Reply{Text: "both ran"},
	), setup{})
	h.typeLine("run twice")
	h.waitNew("allow `echo *` for this session")
	h.rune('s')
	// The second call matches the session rule: no pane, the turn finishes.
	h.waitNew("both ran")
	h.waitRequests(3)
	if got := h.lastToolMessage(2); !strings.Contains(got, "two") {
		t.Errorf("second tool message = %q, want it to have run", got)
	}
	rules := h.policy.SessionRules()
	if len(rules) != 1 || rules[0].Command != "echo *" || rules[0].Tool != "shell" {
		t.Fatalf("session rules = %+v, want one shell rule \"echo *\"", rules)
	}
	h.typeLine("/permissions")
	h.waitNew(`1. allow shell command "echo *"`)
	h.typeLine("/permissions rm 1")
	h.waitNew("session rule 1 removed")
	if n := len(h.policy.SessionRules()); n != 0 {
		t.Errorf("rule not removed: %d left", n)
	}
}

func TestApprovalDeny(t *testing.T) {
	h := start(t, fakeopenai.Sequence(shellCall("c1", "rm -rf build"), fakeopenai.Reply{Text: "ok, not deleting"}), setup{})
	h.typeLine("clean up")
	h.waitNew("$ rm -rf build")
	h.rune('n')
	h.waitNew("denied by you")
	h.waitNew("ok, not deleting")
	h.waitRequests(2)
	if got := h.lastToolMessage(1); !strings.Contains(got, "denied") {
		t.Errorf("tool message = %q, want a denial", got)
	}
}

func TestApprovalDenyWithReason(t *testing.T) {
	h := start(t, fakeopenai.Sequence(shellCall("c1", "rm -rf build"), fakeopenai.Reply{Text: "understood"}), setup{})
	h.typeLine("clean up")
	h.waitNew("$ rm -rf build")
	h.rune('d')
	h.waitNew("reason:")
	h.tm.Type("use make clean instead")
	h.key(tea.KeyEnter)
	h.waitNew("understood")
	h.waitRequests(2)
	if got := h.lastToolMessage(1); !strings.Contains(got, "use make clean instead") {
		t.Errorf("tool message = %q, want the typed reason", got)
	}
}

func TestApprovalEscStopsTurn(t *testing.T) {
	h := start(t, fakeopenai.Sequence(shellCall("c1", "rm -rf build"), fakeopenai.Reply{Text: "should never be asked"}), setup{})
	h.typeLine("clean up")
	h.waitNew("$ rm -rf build")
	h.key(tea.KeyEsc)
	h.waitNew("turn stopped")
	time.Sleep(100 * time.Millisecond)
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("the model got %d requests after esc, want 1", n)
	}
	hist := h.model.opts.Agent.History()
	if last := hist[len(hist)-1]; last.Role != "tool" || !strings.Contains(last.Content, "stopped") {
		t.Errorf("last history message = %+v, want the stopped tool result", last)
	}
}

func TestResultPaneOpensAndCloses(t *testing.T) {
	h := start(t, fakeopenai.Sequence(
		fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: "c1", Name: "calculator", Args: `{"a":15,"b":23,"operation":"mul"}`}}},
		fakeopenai.Reply{Text: "it is 345"},
	), setup{})
	h.typeLine("what is 15*23")
	h.waitNew("it is 345")
	h.key(tea.KeyCtrlO)
	h.waitNew(`"operation": "mul"`)
	h.waitNew("esc close")
	h.key(tea.KeyEsc)
	h.waitNew("tokens")
	// Tab focuses the block, Enter opens it.
	h.key(tea.KeyTab)
	h.waitNew("enter: open the full result")
	h.key(tea.KeyEnter)
	h.waitNew("esc close")
	h.key(tea.KeyEsc)
	h.waitNew("tokens")
}

func TestToolsetSwap(t *testing.T) {
	cat := &fakeCatalog{active: map[string]bool{"coding": true}}
	h := start(t, fakeopenai.Sequence(fakeopenai.Reply{Text: "hi"}), setup{catalog: cat})
	h.waitNew("coding (2 tools)")
	h.typeLine("/toolsets")
	h.waitNew("* coding")
	h.typeLine("/toolset web")
	h.waitNew("tool sets: web — 3 tools")
	h.waitNew("web (3 tools)")
	h.typeLine("/tools")
	h.waitNew("http_fetch")
	h.typeLine("/toolset nope")
	h.waitNew("no tool set nope")
	// Tab completes commands.
	h.tm.Type("/toolse")
	h.key(tea.KeyTab)
	h.waitNew("/toolset")
}

func TestCancelMidStream(t *testing.T) {
	long := strings.Repeat("streaming words go here. ", 60)
	h := start(t, fakeopenai.Sequence(fakeopenai.Reply{Text: "BEGIN " + long, Chunk: 20, Delay: 20 * time.Millisecond}), setup{})
	h.typeLine("talk")
	h.waitNew("BEGIN")
	h.key(tea.KeyEsc)
	h.waitNew("turn stopped")
	hist := h.model.opts.Agent.History()
	last := hist[len(hist)-1]
	if !strings.HasPrefix(last.Content, "BEGIN") || !strings.Contains(last.Content, "interrupted") || len(last.Content) > len(long) {
		t.Errorf("history kept %q, want the partial answer marked interrupted", last.Content)
	}
}

func TestRetryAfterStreamError(t *testing.T) {
	h := start(t, fakeopenai.Sequence(
		fakeopenai.Reply{Text: "partial answer that will be cut", CutAfter: 3},
		fakeopenai.Reply{Text: "complete answer"},
	), setup{})
	h.typeLine("question")
	h.waitNew("press ctrl+r to retry")
	h.key(tea.KeyCtrlR)
	h.waitNew("complete answer")
	h.waitRequests(2)
	req := h.srv.Requests()[1]
	if last := fakeopenai.LastMessage(req); last.Content != "question" {
		t.Errorf("retry sent %q, want the last prompt", last.Content)
	}
	// The prompt goes once, and the cut-off partial answer is not sent back.
	users := 0
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			users++
		}
		if strings.Contains(msg.Content, "answer cut off") {
			t.Errorf("the retry sent the cut-off partial answer: %q", msg.Content)
		}
	}
	if users != 1 {
		t.Errorf("the retry request has %d user messages, want 1", users)
	}
}

func TestConfigUpdates(t *testing.T) {
	h := start(t, fakeopenai.Sequence(fakeopenai.Reply{Text: "hi"}), setup{})
	h.updates <- ConfigUpdate{Err: errors.New("config.yaml:3: tool_sets: expected a list")}
	h.waitNew("config not applied (the old config stays): config.yaml:3: tool_sets: expected a list")
	h.updates <- ConfigUpdate{Notice: "tool sets: coding, web — 9 tools"}
	h.waitNew("tool sets: coding, web — 9 tools")
}

func TestHistoryWalkAndQuit(t *testing.T) {
	h := start(t, fakeopenai.Sequence(fakeopenai.Reply{Text: "first reply"}), setup{})
	h.typeLine("first prompt")
	h.waitNew("first reply")
	h.key(tea.KeyUp)
	h.waitNew("│ first prompt")
	h.key(tea.KeyDown)
	h.key(tea.KeyCtrlD) // input is empty again: quits
	h.tm.WaitFinished(t, teatestTimeout())
}
