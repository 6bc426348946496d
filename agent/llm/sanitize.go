package llm

import (
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// NoOutput is the content Sanitize gives a tool result that has none.
const NoOutput = "(no output)"

// Sanitize returns a copy of msgs shaped the way strict OpenAI-compatible
// servers accept history: a tool result never has empty content (it becomes
// "(no output)"; go-openai would otherwise omit the field), every tool call
// has type "function" and JSON arguments ("{}" when there were none or they
// were not valid JSON),
// and the stream-only index field is dropped from echoed calls. msgs itself
// is not modified. Stream applies it to every request.
func Sanitize(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool && len(m.MultiContent) == 0 &&
			strings.TrimSpace(m.Content) == "" {
			m.Content = NoOutput
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]openai.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Index = nil
				c.Type = openai.ToolTypeFunction
				if args := strings.TrimSpace(c.Function.Arguments); args == "" || !json.Valid([]byte(args)) {
					// Servers such as llama.cpp reject history whose arguments
					// are not JSON; the call's parse_error result already
					// quotes what the model wrote.
					c.Function.Arguments = "{}"
				}
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	return out
}
