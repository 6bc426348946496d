package agent

import (
	"context"

	"tact/tools"
)

// EventType names the kind of an Event.
type EventType string

// The event types the loop emits, in the order a turn usually produces them.
const (
	EventText       EventType = "text"        // a piece of visible assistant text
	EventToolCall   EventType = "tool_call"   // the model asked for a tool
	EventApproval   EventType = "approval"    // a decision on a tool call
	EventToolResult EventType = "tool_result" // a tool finished
	EventWarning    EventType = "warning"     // something the user should know; the turn goes on
	EventUsage      EventType = "usage"       // token counts of one model request
	EventError      EventType = "error"       // the turn failed
	EventDone       EventType = "done"        // the turn ended; always the last event
)

// Done reasons.
const (
	DoneStop          = "stop"
	DoneMaxIterations = "max_iterations"
	DoneCancelled     = "cancelled"
	DoneError         = "error"
)

// Usage counts tokens of one model request.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Event is one thing that happened during a turn. Only the fields that belong
// to its Type are set.
type Event struct {
	Type EventType
	// Text is set for EventText.
	Text string
	// Call is set for EventToolCall, EventApproval and EventToolResult.
	Call *tools.Call
	// Spec is the called tool's spec when the tool exists (EventToolCall, EventApproval, EventToolResult).
	Spec *tools.Spec
	// Decision is set for EventApproval.
	Decision *Decision
	// Result is set for EventToolResult.
	Result *tools.Result
	// Message is set for EventWarning and EventError.
	Message string
	// Usage is set for EventUsage.
	Usage *Usage
	// Reason and Iterations are set for EventDone.
	Reason     string
	Iterations int
}

// Sink receives the events of a turn. The loop calls it from one goroutine at
// a time, in order; it must not block for long.
type Sink func(Event)

// Decision sources.
const (
	SourceFlag    = "flag"
	SourceRule    = "rule"
	SourceUser    = "user"
	SourceDefault = "default"
)

// Decision is the answer to an ApprovalRequest.
type Decision struct {
	// Allow runs the call; otherwise it gets a denied result.
	Allow bool `json:"allow"`
	// Source says who decided: flag, rule, user or default.
	Source string `json:"source"`
	// Reason is shown to the user and, on deny, sent to the model as the result.
	Reason string `json:"reason,omitempty"`
	// Rule describes the rule that matched, when one did.
	Rule string `json:"rule,omitempty"`
	// StopTurn, with a deny, also ends the turn (the user pressed Esc).
	StopTurn bool `json:"-"`
}

// ApprovalRequest asks whether a tool call may run.
type ApprovalRequest struct {
	Call tools.Call
	Spec tools.Spec
	// Index (1-based) and Total place the call among the tool calls of the
	// model response it came from, so a front end can say "call 2 of 3".
	Index, Total int
}

// Approver decides whether a tool call may run. It may block (a TUI asks the
// user); it must return when ctx is cancelled.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// ApproverFunc adapts a function to the Approver interface.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}
