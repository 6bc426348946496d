// Package agent runs the conversation loop: it sends the history to the
// model, streams text to a Sink, finds tool calls (natively or in the text),
// asks an Approver, runs the tools through a tools.Executor, feeds the results
// back, and repeats until the model answers or the iteration limit is hit.
package agent

import (
	"context"
	"errors"
	"fmt"
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

// DefaultMaxIterations is the number of model requests one user turn may make.
const DefaultMaxIterations = 5

// Options configure an Agent.
type Options struct {
	// Provider talks to the model.
	Provider Provider
	// Model is the model name sent with each request.
	Model string
	// Executor runs tools; its registry holds the active tools. Nil means no tools.
	Executor *tools.Executor
	// Protocol carries tool calls; nil means native.
	Protocol protocol.Protocol
	// Fallback is the text protocol to switch to when the server rejects
	// native tools; nil makes that rejection an error.
	Fallback protocol.Protocol
	// OnFallback is called when the server rejected native tools and the
	// conversation switched to Fallback (main remembers it for next time).
	OnFallback func(model string)
	// SystemPrompt starts every request.
	SystemPrompt string
	// MaxIterations caps model requests per user turn (default 5).
	MaxIterations int
	// ToolChoice is auto, none, required or a tool name (default auto).
	ToolChoice string
	// ParallelToolCalls runs the approved native calls of one response in parallel
	// (the Executor's own Parallel option decides how).
	ParallelToolCalls bool
	// DisableTextCalls turns off tool markup in the text: it is shown as
	// text and never runs (output_strategy.enable_tool_action_parsing: false).
	DisableTextCalls bool
	// Approver decides whether each tool call may run; nil allows read-only
	// tools and denies the rest.
	Approver Approver
	// Logger receives the loop's logs; nil discards them.
	Logger *slog.Logger
	// Redact, when set, is applied to every tool result's output and error
	// message before the model, the user or the session sees it (secret
	// values a tool printed become "[redacted]").
	Redact func(string) string
	// Observer, when set, sees every event before the Run's sink does (the
	// audit log listens here, whichever front end runs the turn).
	Observer Sink
	// OnMessage is called with each message appended to the history, before
	// the next request goes out (sessions persist through it). An error ends
	// the turn with that error.
	OnMessage func(llm.Message) error
}

// Agent holds one conversation. Run calls are serialised; settings may be
// changed between turns.
type Agent struct {
	runMu sync.Mutex // held for a whole turn

	mu      sync.Mutex // guards the fields below
	opts    Options
	history []llm.Message
	current Sink // the running turn's sink, for Warn
}

// Warn shows a warning in the running turn (for example "retrying in 2s");
// without a running turn it is only logged.
func (a *Agent) Warn(msg string) {
	a.mu.Lock()
	sink := a.current
	a.mu.Unlock()
	a.opts.Logger.Warn(msg)
	if sink != nil {
		sink(Event{Type: EventWarning, Message: msg})
	}
}

// New returns an Agent with the given options.
func New(opts Options) *Agent {
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = DefaultMaxIterations
	}
	if opts.ToolChoice == "" {
		opts.ToolChoice = "auto"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Protocol == nil {
		opts.Protocol = nativeProtocol()
	}
	if opts.Approver == nil {
		opts.Approver = ApproverFunc(readOnlyApprover)
	}
	return &Agent{opts: opts}
}

func nativeProtocol() protocol.Protocol {
	p, err := protocol.ForName("native")
	if err != nil {
		panic(fmt.Sprintf("agent: the native protocol is missing: %v", err))
	}
	return p
}

// readOnlyApprover is the approver used when none is configured.
func readOnlyApprover(_ context.Context, req ApprovalRequest) (Decision, error) {
	a := req.Spec.Annotations
	if a.ReadOnly && !a.Destructive {
		return Decision{Allow: true, Source: SourceDefault}, nil
	}
	return Decision{Allow: false, Source: SourceDefault,
		Reason: req.Call.Name + " needs approval: pass --yes or change the approval config"}, nil
}

// History returns a copy of the conversation so far.
func (a *Agent) History() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]llm.Message(nil), a.history...)
}

// SetHistory replaces the conversation (a resumed session).
func (a *Agent) SetHistory(msgs []llm.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = append([]llm.Message(nil), msgs...)
}

// Reset starts a new conversation.
func (a *Agent) Reset() { a.SetHistory(nil) }

// Model returns the model name in use.
func (a *Agent) Model() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opts.Model
}

// SetModel changes the model for the next turn.
func (a *Agent) SetModel(model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts.Model = model
}

// Protocol returns the protocol in use.
func (a *Agent) Protocol() protocol.Protocol {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.opts.Protocol
}

// SetProtocol changes how tool calls travel, from the next request on.
func (a *Agent) SetProtocol(p protocol.Protocol) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts.Protocol = p
}

// SetOnMessage changes where appended messages are persisted.
func (a *Agent) SetOnMessage(f func(llm.Message) error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opts.OnMessage = f
}

// Executor returns the tool executor (nil when there are no tools).
func (a *Agent) Executor() *tools.Executor { return a.opts.Executor }

// specs returns the active tools' specs.
func (a *Agent) specs() []tools.Spec {
	if a.opts.Executor == nil {
		return nil
	}
	return a.opts.Executor.Registry().Specs()
}

// appendMessage adds msg to the history and persists it.
func (a *Agent) appendMessage(msg llm.Message) error {
	a.mu.Lock()
	a.history = append(a.history, msg)
	onMessage := a.opts.OnMessage
	a.mu.Unlock()
	if onMessage != nil {
		if err := onMessage(msg); err != nil {
			return fmt.Errorf("saving the conversation: %w", err)
		}
	}
	return nil
}

// ErrMaxIterations is reported when the iteration limit stops a turn.
var ErrMaxIterations = errors.New("iteration limit reached")
