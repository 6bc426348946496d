// Package llm talks to OpenAI-compatible chat servers over go-openai: it
// streams responses, accumulates streamed tool calls, retries transient
// failures, and serves the built-in offline demo model.
package llm

import (
	openai "github.com/sashabaranov/go-openai"
)

// Message is one chat message, in go-openai's form.
type Message = openai.ChatCompletionMessage

// Request is one chat completion request.
type Request struct {
	// Model overrides the client's default model when set.
	Model string
	// Messages is the whole history, system prompt first.
	Messages []Message
	// Tools are the native tool definitions; empty for text protocols.
	Tools []openai.Tool
	// ToolChoice is "auto", "none", "required", or a tool name. Ignored without Tools.
	ToolChoice string
	// ParallelToolCalls lets the model ask for several tools at once.
	ParallelToolCalls bool
	// MaxTokens caps the answer's length when above 0 (sent as max_tokens,
	// or max_completion_tokens for reasoning models).
	MaxTokens int
}

// Response is a complete (or, with an error, partial) streamed response.
type Response struct {
	// Content is the full assistant text.
	Content string
	// ToolCalls are the accumulated native tool calls, in index order.
	ToolCalls []openai.ToolCall
	// FinishReason is the server's finish reason ("stop", "tool_calls", "length", …).
	FinishReason string
	// Usage is set when the server reported token usage.
	Usage *openai.Usage
}
