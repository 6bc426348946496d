// Package fakeopenai is an OpenAI-compatible chat server for tests: it
// answers POST /v1/chat/completions with scripted replies streamed as
// server-sent events exactly as OpenAI sends them, records every request,
// and can inject faults (error statuses, Retry-After, a cut stream, delays).
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ToolCall is a scripted native tool call.
type ToolCall struct {
	ID   string
	Name string
	// Args is the arguments JSON text, streamed in fragments.
	Args string
}

// Reply is one scripted response.
type Reply struct {
	// Text is streamed as content deltas.
	Text string
	// ToolCalls are streamed as tool_calls deltas after the text.
	ToolCalls []ToolCall
	// Chunk is the size in bytes of each content/argument fragment (default 5).
	Chunk int
	// Status, when not 0 or 200, answers with this status and Body instead of a stream.
	Status int
	// Body is the error body for Status (default an OpenAI error object).
	Body string
	// Header is added to the response (for example Retry-After).
	Header map[string]string
	// CutAfter, when > 0, ends the stream after that many events, without a
	// finish reason or [DONE].
	CutAfter int
	// Delay waits between events.
	Delay time.Duration
	// SplitWrites writes every event in two flushed pieces, split inside the JSON.
	SplitWrites bool
}

// Script chooses the reply to request n (0-based).
type Script func(n int, req openai.ChatCompletionRequest) Reply

// Sequence answers requests with replies in order, repeating the last.
func Sequence(replies ...Reply) Script {
	return func(n int, _ openai.ChatCompletionRequest) Reply {
		if n >= len(replies) {
			n = len(replies) - 1
		}
		return replies[n]
	}
}

// Server is the fake; it implements http.Handler.
type Server struct {
	script Script
	model  string

	mu   sync.Mutex
	reqs []openai.ChatCompletionRequest
	raw  [][]byte
}

// New returns a server answering with script.
func New(script Script) *Server { return &Server{script: script, model: "fake-model"} }

// Requests returns the decoded requests received so far.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), s.reqs...)
}

// RawRequests returns the request bodies received so far.
func (s *Server) RawRequests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.raw...)
}

// ServeHTTP answers chat completion requests.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.raw = append(s.raw, body)
	s.mu.Unlock()

	reply := s.script(n, req)
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		b := reply.Body
		if b == "" {
			b = fmt.Sprintf(`{"error":{"message":"scripted failure %d","type":"server_error","param":null,"code":null}}`, reply.Status)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		io.WriteString(w, b)
		return
	}
	model := req.Model
	if model == "" {
		model = s.model
	}
	s.stream(w, r, reply, model, n)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, reply Reply, model string, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	events := Events(reply, model, fmt.Sprintf("chatcmpl-%d", n+1))
	for i, ev := range events {
		if reply.CutAfter > 0 && i >= reply.CutAfter {
			return
		}
		if reply.Delay > 0 {
			select {
			case <-time.After(reply.Delay):
			case <-r.Context().Done():
				return // the client went away
			}
		}
		if reply.SplitWrites && len(ev) > 8 {
			half := len(ev) / 2
			io.WriteString(w, ev[:half])
			if flusher != nil {
				flusher.Flush()
			}
			ev = ev[half:]
		}
		io.WriteString(w, ev)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// Events returns the SSE events ("data: …\n\n") of a reply, ending with [DONE].
func Events(reply Reply, model, id string) []string {
	chunk := reply.Chunk
	if chunk <= 0 {
		chunk = 5
	}
	created := int64(1764115200)
	head := fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,"system_fingerprint":"fp_fake","choices":[`, id, created, model)
	event := func(delta string, finish string) string {
		fin := "null"
		if finish != "" {
			fin = `"` + finish + `"`
		}
		return "data: " + head + `{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + fin + "}]}\n\n"
	}
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var out []string
	out = append(out, event(`{"role":"assistant","content":"","refusal":null}`, ""))
	for _, piece := range split(reply.Text, chunk) {
		out = append(out, event(`{"content":`+str(piece)+`}`, ""))
	}
	for i, tc := range reply.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		out = append(out, event(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, i, id, tc.Name), ""))
		for _, piece := range split(tc.Args, chunk) {
			out = append(out, event(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, str(piece)), ""))
		}
	}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	out = append(out, event(`{}`, finish))
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, 20, len(reply.Text)/4+1, 20+len(reply.Text)/4+1)
	out = append(out, "data: "+head+`],"usage":`+usage+"}\n\n")
	out = append(out, "data: [DONE]\n\n")
	return out
}

// split cuts s into pieces of about n bytes without splitting a UTF-8 rune.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := n
		if end >= len(s) {
			out = append(out, s)
			break
		}
		for end < len(s) && !isRuneStart(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// LastMessage returns the last message of a request.
func LastMessage(req openai.ChatCompletionRequest) openai.ChatCompletionMessage {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionMessage{}
	}
	return req.Messages[len(req.Messages)-1]
}
