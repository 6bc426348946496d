// Package protocol decides how tool calls travel between tact and a model:
// natively in the API's tools field, or written in the text as <tool_action>
// tags, a JSON decision, or XML <tool_call> elements.
package protocol

import (
	"tact/tools"
)

// Protocol is one way of carrying tool calls.
type Protocol interface {
	// Name is the protocol's config name: native, tool_action, json or xml.
	Name() string
	// Native reports whether tool definitions travel in the request's tools
	// field and results as role:tool messages.
	Native() bool
	// Prompt is the system-prompt section that teaches the model the format
	// for these tools. Native returns "".
	Prompt(specs []tools.Spec) string
	// NewDetector returns a streaming detector for one model response.
	NewDetector(specs []tools.Spec) Detector
	// ResultMessage formats a tool result as the text of the user message
	// that carries it back in a text protocol ("[Tool result for NAME]\n…").
	ResultMessage(call tools.Call, result tools.Result) string
}

// Segment is one piece of a response, in order: either visible text or a
// complete tool call.
type Segment struct {
	// Text is visible text to show the user (empty for a call).
	Text string
	// Call is a complete tool call found in the text (nil for text).
	Call *tools.Call
	// Raw is the exact markup of the call as the model wrote it.
	Raw string
	// Warning, when set, tells the user something about this segment (for
	// example that a tag was never closed and was shown as text).
	Warning string
}

// Detector finds tool-call markup in streamed text. Text that cannot start
// markup is returned in the same Feed call that received it; only a suffix
// that may still grow into markup is held back.
type Detector interface {
	// Feed takes the next chunk of the stream and returns what is now certain.
	Feed(chunk string) []Segment
	// Flush ends the stream: anything held back is returned, an unclosed tag
	// as text with a warning.
	Flush() []Segment
}
