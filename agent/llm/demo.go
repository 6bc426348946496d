package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DemoModel is the name of the built-in offline demo model.
const DemoModel = "tact-demo (offline)"

// DemoBaseURL is the base URL to pair with DemoTransport. Nothing is ever
// sent there: the transport answers in-process.
const DemoBaseURL = "http://tact-demo.invalid/v1"

// DemoTransport returns the offline demo model: an http.RoundTripper that
// answers POST …/chat/completions in-process, without a socket, streaming
// OpenAI-style SSE with a short pause between chunks. Use it with
// Options{BaseURL: DemoBaseURL, Model: DemoModel, Transport: DemoTransport()}.
func DemoTransport() http.RoundTripper {
	return &Demo{Delay: 12 * time.Millisecond}
}

// Demo is the offline demo model as an http.RoundTripper. It understands a
// few requests (arithmetic, the time, listing and reading files, running a
// command), calls the matching tool when the request offers it (natively, or
// as a <tool_action> tag when the system prompt teaches that format),
// answers from tool results, and otherwise explains in markdown how to
// connect a real model. Every answer is labelled "(offline demo)".
type Demo struct {
	// Delay is the pause between two streamed chunks; 0 sends them at once.
	Delay time.Duration

	seq atomic.Int64
}

// RoundTrip implements http.RoundTripper.
func (d *Demo) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("offline demo: reading request: %w", err)
		}
	}
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		return demoError(req, http.StatusNotFound, "the offline demo model only serves POST /chat/completions"), nil
	}
	var r demoRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return demoError(req, http.StatusBadRequest, "invalid request JSON: "+err.Error()), nil
	}
	reply := planDemo(r)
	model := r.Model
	if model == "" {
		model = DemoModel
	}
	id := fmt.Sprintf("chatcmpl-demo-%d", d.seq.Add(1))
	usage := openai.Usage{PromptTokens: demoPromptTokens(r)}
	if !r.Stream {
		return demoJSON(req, id, model, reply, usage), nil
	}
	events := demoEvents(id, model, reply, usage, r.StreamOptions != nil && r.StreamOptions.IncludeUsage)
	resp := &http.Response{
		Status:     "200 OK",
		StatusCode: http.StatusOK,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Request:    req,
	}
	if d.Delay <= 0 {
		resp.Body = io.NopCloser(strings.NewReader(strings.Join(events, "")))
		return resp, nil
	}
	pr, pw := io.Pipe()
	go writeEvents(req.Context(), pw, events, d.Delay) // ends when done, cancelled, or the body is closed
	resp.Body = pr
	return resp, nil
}

// writeEvents writes events to pw, pausing between them.
func writeEvents(ctx context.Context, pw *io.PipeWriter, events []string, delay time.Duration) {
	t := time.NewTimer(delay)
	defer t.Stop()
	for i, e := range events {
		if i > 0 {
			t.Reset(delay)
			select {
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			case <-t.C:
			}
		}
		if _, err := io.WriteString(pw, e); err != nil {
			return // the reader closed the body
		}
	}
	pw.Close()
}

// demoRequest is the part of a chat completion request the demo reads.
type demoRequest struct {
	Model         string                         `json:"model"`
	Messages      []openai.ChatCompletionMessage `json:"messages"`
	Tools         []openai.Tool                  `json:"tools"`
	Stream        bool                           `json:"stream"`
	StreamOptions *openai.StreamOptions          `json:"stream_options"`
}

func demoPromptTokens(r demoRequest) int {
	n := 0
	for _, m := range r.Messages {
		n += len(m.Content)
	}
	return n/4 + 1
}

// demoChunk is one streamed chunk, with OpenAI's field order.
type demoChunk struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []demoChunkChoice `json:"choices"`
	Usage   *openai.Usage     `json:"usage,omitempty"`
}

type demoChunkChoice struct {
	Index        int       `json:"index"`
	Delta        demoDelta `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type demoDelta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	ToolCalls []demoToolDelta `json:"tool_calls,omitempty"`
}

type demoToolDelta struct {
	Index    int              `json:"index"`
	ID       string           `json:"id,omitempty"`
	Type     string           `json:"type,omitempty"`
	Function demoFunctionPart `json:"function"`
}

type demoFunctionPart struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// demoEvents renders reply as SSE events: "data: {…}\n\n" each, ending
// with "data: [DONE]\n\n". Text goes word by word, tool-call arguments in
// a few fragments; the last chunk before [DONE] carries the usage.
func demoEvents(id, model string, reply demoReply, usage openai.Usage, separateUsage bool) []string {
	created := time.Now().Unix()
	var chunks []demoChunk
	add := func(delta demoDelta, finish *string) {
		chunks = append(chunks, demoChunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: model,
			Choices: []demoChunkChoice{{Delta: delta, FinishReason: finish}},
		})
	}
	empty := ""
	add(demoDelta{Role: openai.ChatMessageRoleAssistant, Content: &empty}, nil)
	finish := "stop"
	pieces := 0
	if reply.call != nil {
		finish = "tool_calls"
		add(demoDelta{ToolCalls: []demoToolDelta{{
			ID: reply.call.id, Type: "function",
			Function: demoFunctionPart{Name: reply.call.name},
		}}}, nil)
		for _, frag := range splitFragments(reply.call.args, 3) {
			add(demoDelta{ToolCalls: []demoToolDelta{{Function: demoFunctionPart{Arguments: frag}}}}, nil)
			pieces++
		}
	} else {
		for _, w := range splitWords(reply.text) {
			add(demoDelta{Content: &w}, nil)
			pieces++
		}
	}
	usage.CompletionTokens = pieces + 1
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	add(demoDelta{}, &finish)
	if separateUsage {
		chunks = append(chunks, demoChunk{
			ID: id, Object: "chat.completion.chunk", Created: created, Model: model,
			Choices: []demoChunkChoice{}, Usage: &usage,
		})
	} else {
		chunks[len(chunks)-1].Usage = &usage
	}
	events := make([]string, 0, len(chunks)+1)
	for _, c := range chunks {
		b, _ := json.Marshal(c) // plain structs: cannot fail
		events = append(events, "data: "+string(b)+"\n\n")
	}
	return append(events, "data: [DONE]\n\n")
}

// splitWords cuts s into pieces of one word and the spaces after it (the
// first piece also keeps leading spaces). Joined, they give s back.
func splitWords(s string) []string {
	var out []string
	start := 0
	inSpace := true // leading spaces stay with the first word
	for i, r := range s {
		space := r == ' ' || r == '\n' || r == '\t'
		if !space && inSpace && i > start && strings.TrimSpace(s[start:i]) != "" {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// splitFragments cuts s into up to n pieces of similar length, on rune
// boundaries.
func splitFragments(s string, n int) []string {
	r := []rune(s)
	if len(r) < n {
		return []string{s}
	}
	var out []string
	for i := range n {
		out = append(out, string(r[i*len(r)/n:(i+1)*len(r)/n]))
	}
	return out
}

// demoJSON answers a non-streaming request.
func demoJSON(req *http.Request, id, model string, reply demoReply, usage openai.Usage) *http.Response {
	msg := map[string]any{"role": "assistant", "content": reply.text}
	finish := "stop"
	if reply.call != nil {
		finish = "tool_calls"
		msg["content"] = nil
		msg["tool_calls"] = []map[string]any{{
			"id": reply.call.id, "type": "function",
			"function": map[string]string{"name": reply.call.name, "arguments": reply.call.args},
		}}
	}
	usage.CompletionTokens = len(splitWords(reply.text)) + 1
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   usage,
	})
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(b)),
		Request: req,
	}
}

// demoError answers with an OpenAI-style error body.
func demoError(req *http.Request, status int, msg string) *http.Response {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(b)),
		Request: req,
	}
}
