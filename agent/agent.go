// Package agent runs the conversation loop: it sends the history to the
// model, streams text to a Sink, finds tool calls (natively or in the text),
// asks an Approver, runs the tools through a tools.Executor, feeds the results
// back, and repeats until the model answers or the iteration limit is hit.
package agent

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/tools"
)

// Provider streams one model response. *llm.Client implements it.
type Provider interface {
	Stream(ctx context.Context, req llm.Request, onText func(string)) (llm.Response, error)
}

// Options configure an Agent.
type Options struct {
	// Provider talks to the model.
	Provider Provider
	// Model is the model name sent with each request.
	Model string
	// Executor runs tools; its registry holds the active tools.
	Executor *tools.Executor
	// Protocol carries tool calls; nil means native.
	Protocol protocol.Protocol
	// Fallback is the text protocol to switch to when the server rejects
	// native tools; nil disables the fallback.
	Fallback protocol.Protocol
	// SystemPrompt starts every request.
	SystemPrompt string
	// MaxIterations caps model requests per user turn (default 5).
	MaxIterations int
	// ToolChoice is auto, none, required or a tool name (default auto).
	ToolChoice string
	// ParallelToolCalls runs the calls of one response in parallel.
	ParallelToolCalls bool
	// Approver decides whether each tool call may run; nil allows read-only
	// tools and denies the rest.
	Approver Approver
	// Logger receives the loop's logs; nil discards them.
	Logger *slog.Logger
	// OnMessage is called with each message appended to the history, before
	// the next request goes out (sessions persist through it). An error stops
	// the turn.
	OnMessage func(llm.Message) error
}

// Agent holds one conversation. Run may not be called concurrently.
type Agent struct {
	mu      sync.Mutex
	opts    Options
	history []llm.Message
}

// New returns an Agent with the given options.
func New(opts Options) *Agent {
	return &Agent{opts: opts}
}

// Run sends input as a user message and runs the loop until the model
// answers, the iteration limit is hit, ctx is cancelled, or an error occurs.
// Every outcome ends with an EventDone sent to sink. The returned error is
// the one reported in EventError, or ctx's error when cancelled.
func (a *Agent) Run(ctx context.Context, input string, sink Sink) error {
	return errors.New("agent: not implemented yet")
}
