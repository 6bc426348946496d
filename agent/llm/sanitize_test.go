package llm

import (
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func TestSanitize(t *testing.T) {
	idx := 2
	in := []Message{
		{Role: "system", Content: "sys"},
		{Role: "assistant", Content: "", ToolCalls: []openai.ToolCall{
			{Index: &idx, ID: "a", Function: openai.FunctionCall{Name: "t", Arguments: "  "}},
			{ID: "b", Type: "function", Function: openai.FunctionCall{Name: "u", Arguments: `{"x":1}`}},
		}},
		{Role: "tool", ToolCallID: "a", Content: ""},
		{Role: "tool", ToolCallID: "b", Content: " \n"},
		{Role: "tool", ToolCallID: "c", Content: "0"},
		{Role: "user", Content: ""},
	}
	out := Sanitize(in)
	if len(out) != len(in) {
		t.Fatalf("len %d", len(out))
	}
	calls := out[1].ToolCalls
	if calls[0].Type != "function" || calls[0].Function.Arguments != "{}" || calls[0].Index != nil {
		t.Errorf("call 0 %+v", calls[0])
	}
	if calls[1].Function.Arguments != `{"x":1}` || calls[1].Type != "function" {
		t.Errorf("call 1 %+v", calls[1])
	}
	if out[2].Content != "(no output)" || out[3].Content != "(no output)" || out[4].Content != "0" {
		t.Errorf("tool contents %q %q %q", out[2].Content, out[3].Content, out[4].Content)
	}
	if out[5].Content != "" || out[0].Content != "sys" {
		t.Errorf("non-tool messages changed: %+v %+v", out[0], out[5])
	}
	// The input is untouched.
	if in[1].ToolCalls[0].Type != "" || in[1].ToolCalls[0].Index == nil || in[2].Content != "" {
		t.Errorf("input modified: %+v %+v", in[1].ToolCalls[0], in[2])
	}
}

func TestSanitizeReplacesInvalidArguments(t *testing.T) {
	in := []Message{{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "calculator", Arguments: `{"a": 1, "b": oops}`}}}}}
	out := Sanitize(in)
	if got := out[0].ToolCalls[0].Function.Arguments; got != "{}" {
		t.Errorf("arguments = %q, want {} for invalid JSON", got)
	}
	if in[0].ToolCalls[0].Function.Arguments != `{"a": 1, "b": oops}` {
		t.Error("Sanitize modified its input")
	}
}
