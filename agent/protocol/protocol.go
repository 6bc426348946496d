// Package protocol decides how tool calls travel between tact and a model:
// natively in the API's tools field, or written in the text as <tool_action>
// tags, a JSON decision, or XML <tool_call> elements.
//
// Every protocol's Detector is liberal: besides its own format it recognises
// the other text formats models drift into (<tool_action> tags, XML and
// Hermes/Qwen <tool_call> elements, a reply that starts with a JSON call).
// Parameter values written as text are converted to the types the tool's JSON
// Schema declares before the call is returned (see the Call's Arguments).
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
	// for these tools (see GenerateToolPrompt). Native returns "". Rebuild it
	// whenever the tool set changes.
	Prompt(specs []tools.Spec) string
	// NewDetector returns a streaming detector for one model response. Call
	// names written with SanitizeName's mapping are mapped back to the
	// spec's real name.
	NewDetector(specs []tools.Spec) Detector
	// ResultMessage formats a tool result as the text of the user message
	// that carries it back in a text protocol ("[Tool result for NAME]\n…").
	ResultMessage(call tools.Call, result tools.Result) string
}

// Segment is one piece of a response, in order: visible text, a complete tool
// call, or consumed markup.
//
// Lossless rule: for every input and chunking, concatenating, over all
// segments in order, Raw when it is not empty and Text otherwise gives back
// the input exactly.
//
// The kinds of segment:
//   - text: Call nil, Raw "", Text the visible text;
//   - call: Call set, Raw the markup, Text "". When one piece of markup holds
//     several calls (a JSON tool_calls array), the first call's segment
//     carries the whole markup in Raw and the following ones have Raw "";
//   - decision without a call (json protocol, {"tool": null, "reply": "x"}):
//     Call nil, Raw the JSON, Text the reply ("x") to show the user.
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
// that may still grow into markup is held back (and the bytes of a UTF-8
// character split across chunks, so Text is never cut mid-character).
//
// The slice returned by Feed and Flush is reused by the next call: consume
// (or copy) the segments before feeding again. A Detector is not safe for
// concurrent use.
type Detector interface {
	// Feed takes the next chunk of the stream and returns what is now certain.
	Feed(chunk string) []Segment
	// Flush ends the stream: anything held back is returned, an unclosed tag
	// as text with a warning.
	Flush() []Segment
}
