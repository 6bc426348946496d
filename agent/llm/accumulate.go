package llm

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// chunk is one decoded SSE data line of a chat completion stream.
//
// We decode the bytes of go-openai's RecvRaw ourselves instead of calling
// Recv. go-openai declares FunctionCall.Arguments as a string, so a server
// that sends "arguments": {"a": 1} (several OpenAI-compatible servers do)
// makes Recv fail for the whole chunk. Decoding into our own type, with the
// arguments as json.RawMessage, keeps the SSE framing, [DONE] handling and
// mid-stream error parsing of go-openai while accepting either form. A
// body-rewriting Transport would also work but would have to re-frame SSE.
type chunk struct {
	Choices []chunkChoice `json:"choices"`
	Usage   *openai.Usage `json:"usage"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Content   string          `json:"content"`
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

// toolCallDelta is one streamed fragment of a tool call.
type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// argumentsText returns the argument text of a delta and whether the server
// sent a complete JSON value (an object) rather than a string fragment.
func argumentsText(raw json.RawMessage) (text string, complete bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, false
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String(), true
	}
	return string(raw), true
}

// pendingCall is a tool call being assembled from deltas.
type pendingCall struct {
	index int // the server's index, or one we assigned
	seq   int // arrival order, to keep the sort stable
	id    string
	name  string
	args  strings.Builder
}

// complete reports whether the call has a name and its arguments already
// form a whole JSON value, so a new id or name must start another call.
func (p *pendingCall) complete() bool {
	return p.name != "" && json.Valid([]byte(p.args.String()))
}

// accumulator assembles streamed tool_calls deltas into whole calls. It is
// liberal in what it accepts; see add.
type accumulator struct {
	calls []*pendingCall
}

// add merges one delta:
//   - with an index, it continues the call with that index, unless it brings
//     a different id than that call already has (some servers restart index 0
//     for every call), which starts a new call;
//   - without an index, a known id continues that call; otherwise it continues
//     the last call unless an id or a name starts a new one;
//   - a first index above 0 is kept as is (calls are ordered by index);
//   - arguments sent as a JSON object replace what was gathered so far, since
//     an object is already the whole argument value.
func (a *accumulator) add(d toolCallDelta) {
	c := a.target(d)
	if c == nil {
		c = a.start(d)
	}
	if d.ID != "" && c.id == "" {
		c.id = d.ID
	}
	switch name := d.Function.Name; {
	case name == "" || name == c.name:
	case c.name == "":
		c.name = name
	default:
		c.name += name // a name streamed in fragments
	}
	text, whole := argumentsText(d.Function.Arguments)
	if whole {
		c.args.Reset()
	}
	c.args.WriteString(text)
}

// target finds the call a delta continues, or nil for a new call.
func (a *accumulator) target(d toolCallDelta) *pendingCall {
	if d.Index != nil {
		var c *pendingCall
		for _, p := range a.calls {
			if p.index == *d.Index {
				c = p // the last call with this index
			}
		}
		if c != nil && d.ID != "" && c.id != "" && d.ID != c.id {
			return nil
		}
		return c
	}
	if d.ID != "" {
		for _, p := range a.calls {
			if p.id == d.ID {
				return p
			}
		}
	}
	if len(a.calls) == 0 {
		return nil
	}
	last := a.calls[len(a.calls)-1]
	name := d.Function.Name
	switch {
	case d.ID != "" && last.id != "": // a new id (a known one matched above)
		return nil
	case name != "" && last.name != "" && name != last.name:
		return nil
	case (d.ID != "" || name != "") && last.complete():
		return nil
	}
	return last
}

// start opens a new call for d and returns it.
func (a *accumulator) start(d toolCallDelta) *pendingCall {
	next := 0
	taken := false
	for _, p := range a.calls {
		if p.index >= next {
			next = p.index + 1
		}
		if d.Index != nil && p.index == *d.Index {
			taken = true
		}
	}
	idx := next
	if d.Index != nil && !taken {
		idx = *d.Index
	}
	c := &pendingCall{index: idx, seq: len(a.calls)}
	a.calls = append(a.calls, c)
	return c
}

// result returns the calls in index order, with type "function", a
// generated id where the server sent none, and "{}" for empty arguments.
// Fragments with neither a name nor arguments are dropped.
func (a *accumulator) result() []openai.ToolCall {
	calls := make([]*pendingCall, 0, len(a.calls))
	for _, p := range a.calls {
		if p.name == "" && strings.TrimSpace(p.args.String()) == "" {
			continue
		}
		calls = append(calls, p)
	}
	sort.SliceStable(calls, func(i, j int) bool {
		if calls[i].index != calls[j].index {
			return calls[i].index < calls[j].index
		}
		return calls[i].seq < calls[j].seq
	})
	var out []openai.ToolCall
	for _, p := range calls {
		if p.id == "" {
			p.id = newCallID()
		}
		args := p.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		out = append(out, openai.ToolCall{
			ID:       p.id,
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: p.name, Arguments: args},
		})
	}
	return out
}

// newCallID returns "call_" followed by 24 random letters and digits.
func newCallID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "call_" + string(b)
}
