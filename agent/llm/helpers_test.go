package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sse frames data lines the way OpenAI does: "data: X\n\n" each, then
// "data: [DONE]\n\n" when done is true.
func sse(done bool, data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	if done {
		b.WriteString("data: [DONE]\n\n")
	}
	return b.String()
}

// splitEvery cuts s into pieces of n bytes, so JSON and UTF-8 are split at
// awkward places.
func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// writeSSE writes the stream headers and then each piece with a flush.
func writeSSE(w http.ResponseWriter, pieces ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for _, p := range pieces {
		_, _ = io.WriteString(w, p)
		f.Flush()
	}
}

// Chunk builders, in OpenAI's wire shape.
func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` + string(b) + `},"logprobs":null,"finish_reason":null}]}`
}

func toolChunk(toolCalls string) string {
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":` + toolCalls + `},"logprobs":null,"finish_reason":null}]}`
}

func finishChunk(reason string) string {
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"` + reason + `"}]}`
}

const usageChunk = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`

// server is an httptest OpenAI server that records request bodies.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

func (s *server) requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// newServer serves /v1/chat/completions with handle; n is the 0-based
// number of the request.
func newServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

// waits records the client's sleeps instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

// testClient returns a client for s whose sleeps are recorded in w and whose
// jitter is the maximum.
func testClient(s *server, w *waits, mod func(*Options)) *Client {
	opts := Options{BaseURL: s.URL + "/v1", APIKey: "sk-test-secret-key-123", Model: "test-model"}
	if mod != nil {
		mod(&opts)
	}
	c := New(opts)
	if w != nil {
		c.sleep = w.sleep
	}
	c.jitter = func(d time.Duration) time.Duration { return d }
	return c
}

func userMsg(s string) []Message {
	return []Message{{Role: "user", Content: s}}
}
