package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"
)

var calcTool = openai.Tool{
	Type: openai.ToolTypeFunction,
	Function: &openai.FunctionDefinition{
		Name: "calculator",
		Parameters: jsonschema.Definition{Type: jsonschema.Object, Properties: map[string]jsonschema.Definition{
			"a": {Type: jsonschema.Number}, "b": {Type: jsonschema.Number}, "operation": {Type: jsonschema.String},
		}},
	},
}

func TestStreamText(t *testing.T) {
	body := sse(true, textChunk("Héllo"), textChunk(" wörld"), textChunk(", 你好"), finishChunk("stop"), usageChunk)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, splitEvery(body, 7)...) // splits JSON and multi-byte runes
	})
	c := testClient(s, nil, nil)
	var deltas []string
	res, err := c.Stream(context.Background(), Request{Messages: userMsg("hi")}, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "Héllo wörld, 你好" || strings.Join(deltas, "") != res.Content || len(deltas) != 3 {
		t.Fatalf("content %q, deltas %q", res.Content, deltas)
	}
	if res.FinishReason != "stop" || len(res.ToolCalls) != 0 {
		t.Fatalf("finish %q calls %v", res.FinishReason, res.ToolCalls)
	}
	if res.Usage == nil || res.Usage.TotalTokens != 18 {
		t.Fatalf("usage %+v", res.Usage)
	}
	req := s.requests()[0]
	if req["stream"] != true || req["model"] != "test-model" {
		t.Fatalf("request %v", req)
	}
	if so, _ := req["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Fatalf("stream_options %v", req["stream_options"])
	}
	for _, k := range []string{"tools", "tool_choice", "parallel_tool_calls"} {
		if _, ok := req[k]; ok {
			t.Errorf("request without tools has %s", k)
		}
	}
}

func TestStreamToolCallFragments(t *testing.T) {
	body := sse(true,
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"calculator","arguments":""}}]},"finish_reason":null}]}`,
		toolChunk(`[{"index":0,"function":{"arguments":"{\"a\":"}}]`),
		toolChunk(`[{"index":0,"function":{"arguments":"15,\"b\""}}]`),
		toolChunk(`[{"index":0,"function":{"arguments":":23,\"operation\":\"mul\"}"}}]`),
		finishChunk("tool_calls"))
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { writeSSE(w, splitEvery(body, 5)...) })
	res, err := testClient(s, nil, nil).Stream(context.Background(),
		Request{Messages: userMsg("15*23"), Tools: []openai.Tool{calcTool}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 1 {
		t.Fatalf("calls %+v", res.ToolCalls)
	}
	tc := res.ToolCalls[0]
	if tc.ID != "call_1" || tc.Type != "function" || tc.Function.Name != "calculator" || tc.Index != nil {
		t.Fatalf("call %+v", tc)
	}
	assertJSON(t, tc.Function.Arguments, `{"a":15,"b":23,"operation":"mul"}`)
}

// TestStreamToolCallQuirks feeds the quirks of real servers through the wire.
func TestStreamToolCallQuirks(t *testing.T) {
	type want struct{ id, name, args string }
	cases := []struct {
		name   string
		chunks []string
		want   []want
	}{
		{"missing index", []string{
			toolChunk(`[{"id":"call_a","type":"function","function":{"name":"calculator","arguments":"{\"a\":1,"}}]`),
			toolChunk(`[{"function":{"arguments":"\"b\":2}"}}]`),
			toolChunk(`[{"id":"call_b","type":"function","function":{"name":"current_time","arguments":"{}"}}]`),
		}, []want{{"call_a", "calculator", `{"a":1,"b":2}`}, {"call_b", "current_time", `{}`}}},
		{"first index 2", []string{
			toolChunk(`[{"index":2,"id":"call_x","type":"function","function":{"name":"calculator","arguments":"{\"a\""}}]`),
			toolChunk(`[{"index":2,"function":{"arguments":":1}"}}]`),
		}, []want{{"call_x", "calculator", `{"a":1}`}}},
		{"arguments as object", []string{
			toolChunk(`[{"index":0,"id":"call_o","type":"function","function":{"name":"calculator","arguments":{"a":15,"b":23,"operation":"mul"}}}]`),
		}, []want{{"call_o", "calculator", `{"a":15,"b":23,"operation":"mul"}`}}},
		{"repeated id", []string{
			toolChunk(`[{"index":0,"id":"call_r","type":"function","function":{"name":"calculator","arguments":"{\"a\":"}}]`),
			toolChunk(`[{"index":0,"id":"call_r","type":"function","function":{"arguments":"3}"}}]`),
			toolChunk(`[{"id":"call_r","function":{"arguments":""}}]`),
		}, []want{{"call_r", "calculator", `{"a":3}`}}},
		{"parallel, interleaved, out of order", []string{
			toolChunk(`[{"index":1,"id":"call_2","type":"function","function":{"name":"current_time","arguments":""}}]`),
			toolChunk(`[{"index":0,"id":"call_1","type":"function","function":{"name":"calculator","arguments":"{\"a\":"}}]`),
			toolChunk(`[{"index":1,"function":{"arguments":"{}"}},{"index":0,"function":{"arguments":"2}"}}]`),
		}, []want{{"call_1", "calculator", `{"a":2}`}, {"call_2", "current_time", `{}`}}},
		{"same index, new id", []string{
			toolChunk(`[{"index":0,"id":"call_p","type":"function","function":{"name":"calculator","arguments":"{\"a\":1}"}}]`),
			toolChunk(`[{"index":0,"id":"call_q","type":"function","function":{"name":"calculator","arguments":"{\"a\":2}"}}]`),
		}, []want{{"call_p", "calculator", `{"a":1}`}, {"call_q", "calculator", `{"a":2}`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := sse(true, append(tc.chunks, finishChunk("stop"))...)
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { writeSSE(w, splitEvery(body, 9)...) })
			res, err := testClient(s, nil, nil).Stream(context.Background(),
				Request{Messages: userMsg("x"), Tools: []openai.Tool{calcTool}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ToolCalls) != len(tc.want) {
				t.Fatalf("got %d calls %+v, want %d", len(res.ToolCalls), res.ToolCalls, len(tc.want))
			}
			for i, w := range tc.want {
				got := res.ToolCalls[i]
				if got.ID != w.id || got.Function.Name != w.name || got.Type != "function" {
					t.Errorf("call %d = %+v, want %+v", i, got, w)
				}
				assertJSON(t, got.Function.Arguments, w.args)
			}
		})
	}
}

func TestStreamEmptyIDGenerated(t *testing.T) {
	body := sse(true,
		toolChunk(`[{"index":0,"id":"","type":"function","function":{"name":"current_time","arguments":""}}]`),
		toolChunk(`[{"index":1,"function":{"name":"current_time"}}]`),
		finishChunk("stop")) // finish_reason "stop" with calls: calls still count
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { writeSSE(w, body) })
	res, err := testClient(s, nil, nil).Stream(context.Background(), Request{Messages: userMsg("x"), Tools: []openai.Tool{calcTool}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 2 {
		t.Fatalf("calls %+v", res.ToolCalls)
	}
	a, b := res.ToolCalls[0].ID, res.ToolCalls[1].ID
	if !strings.HasPrefix(a, "call_") || len(a) < 15 || a == b {
		t.Fatalf("generated ids %q %q", a, b)
	}
	if res.ToolCalls[0].Function.Arguments != "{}" {
		t.Fatalf("empty arguments became %q", res.ToolCalls[0].Function.Arguments)
	}
}

func TestRetry429RetryAfter(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"rate_limit"}}`))
			return
		}
		writeSSE(w, sse(true, textChunk("ok"), finishChunk("stop")))
	})
	var w waits
	var retries []time.Duration
	c := testClient(s, &w, func(o *Options) {
		o.OnRetry = func(attempt int, wait time.Duration, err error) {
			if attempt != 1 || !strings.Contains(err.Error(), "429") {
				t.Errorf("OnRetry(%d, %v, %v)", attempt, wait, err)
			}
			retries = append(retries, wait)
		}
	})
	res, err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
	if err != nil || res.Content != "ok" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if len(retries) != 1 || retries[0] != time.Second || len(w.d) != 1 || w.d[0] != time.Second {
		t.Fatalf("retries %v sleeps %v, want one of 1s", retries, w.d)
	}
	if len(s.requests()) != 2 {
		t.Fatalf("%d requests", len(s.requests()))
	}
}

func TestRetry500ThenSuccessAndGiveUp(t *testing.T) {
	var mu sync.Mutex
	fails := 1
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		failing := n < fails
		mu.Unlock()
		if failing {
			http.Error(w, "upstream exploded", http.StatusInternalServerError)
			return
		}
		writeSSE(w, sse(true, textChunk("ok"), finishChunk("stop")))
	})
	var w waits
	c := testClient(s, &w, nil)
	if _, err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, nil); err != nil {
		t.Fatal(err)
	}
	if len(w.d) != 1 || w.d[0] != 500*time.Millisecond {
		t.Fatalf("sleeps %v, want [500ms]", w.d)
	}

	mu.Lock()
	fails = 100 // now always failing: 1 + 3 retries, growing waits
	mu.Unlock()
	s.mu.Lock()
	s.bodies = nil
	s.mu.Unlock()
	w.d = nil
	_, err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "after 4 attempts") ||
		!strings.Contains(err.Error(), "upstream exploded") {
		t.Fatalf("err %v", err)
	}
	if len(s.requests()) != 4 || len(w.d) != 3 || w.d[1] != time.Second || w.d[2] != 2*time.Second {
		t.Fatalf("%d requests, sleeps %v", len(s.requests()), w.d)
	}
}

func TestBadRequestNotRetried(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"messages: field required","type":"invalid_request_error"}}`))
	})
	var w waits
	_, err := testClient(s, &w, nil).Stream(context.Background(), Request{Messages: userMsg("x"), Tools: []openai.Tool{calcTool}}, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), "messages: field required") {
		t.Fatalf("err %v", err)
	}
	if IsToolsUnsupported(err) || len(s.requests()) != 1 || len(w.d) != 0 {
		t.Fatalf("tools-unsupported %v, %d requests, sleeps %v", IsToolsUnsupported(err), len(s.requests()), w.d)
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close()
	var w waits
	c := New(Options{BaseURL: base, Model: "m", APIKey: "sk-secret-abcdef"})
	c.sleep = w.sleep
	_, err = c.Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
	want := "cannot reach " + base + ": connection refused — is the server running? set provider.base_url"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v\nwant %s", err, want)
	}
	if len(w.d) != 0 {
		t.Fatalf("refused connection was retried: %v", w.d)
	}
}

func TestStreamEndedEarly(t *testing.T) {
	t.Run("clean close", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			writeSSE(w, splitEvery(sse(false, textChunk("partial "), textChunk("answer")), 10)...)
		})
		var w waits
		res, err := testClient(s, &w, nil).Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
		if !errors.Is(err, ErrStreamEndedEarly) || !strings.Contains(err.Error(), "stream ended early") {
			t.Fatalf("err %v", err)
		}
		if res.Content != "partial answer" || len(w.d) != 0 {
			t.Fatalf("partial %q, sleeps %v (text was delivered: no retry)", res.Content, w.d)
		}
	})
	t.Run("connection dropped", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			writeSSE(w, sse(false, textChunk("cut")), `data: {"choices":[{"index":0,"del`)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		res, err := testClient(s, &waits{}, nil).Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
		if !errors.Is(err, ErrStreamEndedEarly) || res.Content != "cut" {
			t.Fatalf("res %q err %v", res.Content, err)
		}
	})
	t.Run("empty body is retried", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 0 {
				writeSSE(w)
				return
			}
			writeSSE(w, sse(true, textChunk("ok"), finishChunk("stop")))
		})
		var w waits
		res, err := testClient(s, &w, nil).Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
		if err != nil || res.Content != "ok" || len(w.d) != 1 {
			t.Fatalf("res %q err %v sleeps %v", res.Content, err, w.d)
		}
	})
	t.Run("finish reason without DONE is complete", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			writeSSE(w, sse(false, textChunk("fine"), finishChunk("stop")))
		})
		if _, err := testClient(s, nil, nil).Stream(context.Background(), Request{Messages: userMsg("x")}, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("DONE without finish reason is complete", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			writeSSE(w, splitEvery(sse(true, textChunk("fine")), 3)...)
		})
		if _, err := testClient(s, nil, nil).Stream(context.Background(), Request{Messages: userMsg("x")}, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMidStreamErrorChunk(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, sse(false, textChunk("a")), `data: {"error":{"message":"model overloaded","type":"server_error"}}`+"\n\n")
	})
	_, err := testClient(s, &waits{}, nil).Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
	if err == nil || !strings.Contains(err.Error(), "model overloaded") {
		t.Fatalf("err %v", err)
	}
}

func TestToolChoiceMapping(t *testing.T) {
	cases := []struct {
		choice string
		want   string // JSON of tool_choice, "" for absent
	}{
		{"auto", `"auto"`}, {"none", `"none"`}, {"required", `"required"`}, {"", ``},
		{"calculator", `{"type":"function","function":{"name":"calculator"}}`},
	}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, sse(true, textChunk("ok"), finishChunk("stop")))
	})
	c := testClient(s, nil, nil)
	for i, tc := range cases {
		if _, err := c.Stream(context.Background(), Request{Messages: userMsg("x"), Tools: []openai.Tool{calcTool},
			ToolChoice: tc.choice, ParallelToolCalls: true}, nil); err != nil {
			t.Fatal(err)
		}
		req := s.requests()[i]
		got, ok := req["tool_choice"]
		if tc.want == "" {
			if ok {
				t.Errorf("%q: tool_choice %v, want absent", tc.choice, got)
			}
		} else {
			b, _ := json.Marshal(got)
			assertJSON(t, string(b), tc.want)
		}
		if req["parallel_tool_calls"] != true || req["tools"] == nil {
			t.Errorf("%q: parallel %v tools %v", tc.choice, req["parallel_tool_calls"], req["tools"])
		}
	}
	// Without tools, neither tool_choice nor parallel_tool_calls is sent.
	if _, err := c.Stream(context.Background(), Request{Messages: userMsg("x"), ToolChoice: "required", ParallelToolCalls: true}, nil); err != nil {
		t.Fatal(err)
	}
	last := s.requests()[len(cases)]
	if _, ok := last["tool_choice"]; ok {
		t.Error("tool_choice sent without tools")
	}
	if _, ok := last["parallel_tool_calls"]; ok {
		t.Error("parallel_tool_calls sent without tools")
	}
}

func TestStreamAppliesSanitize(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, sse(true, textChunk("ok"), finishChunk("stop")))
	})
	msgs := []Message{
		{Role: "user", Content: "x"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "call_1", Function: openai.FunctionCall{Name: "current_time"}}}},
		{Role: "tool", ToolCallID: "call_1"},
	}
	if _, err := testClient(s, nil, nil).Stream(context.Background(), Request{Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.requests()[0]["messages"])
	assertJSON(t, string(b), `[{"role":"user","content":"x"},
		{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"current_time","arguments":"{}"}}]},
		{"role":"tool","content":"(no output)","tool_call_id":"call_1"}]`)
}

func TestStreamOptionsRejectedFallsBack(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		if _, ok := body["stream_options"]; ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"Unrecognized request argument supplied: stream_options"}}`))
			return
		}
		writeSSE(w, sse(true, textChunk("ok"), finishChunk("stop")))
	})
	c := testClient(s, &waits{}, nil)
	for range 2 {
		if _, err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.requests()); n != 3 {
		t.Fatalf("%d requests, want 3 (rejected, retried, then remembered)", n)
	}
}

func TestAPIKeyNeverShown(t *testing.T) {
	const key = "sk-test-secret-key-123"
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			t.Errorf("auth header %q", r.Header.Get("Authorization"))
		}
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + key + `"}}`))
	})
	var logs bytes.Buffer
	c := testClient(s, &waits{}, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	_, err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "HTTP 401") ||
		!strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("err %v", err)
	}
	if logs.Len() == 0 || strings.Contains(logs.String(), key) {
		t.Fatalf("logs leak the key or are empty:\n%s", logs.String())
	}
}

func TestIdleTimeout(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, sse(false, textChunk("slow")))
		<-r.Context().Done()
	})
	c := testClient(s, &waits{}, func(o *Options) { o.Timeout = 100 * time.Millisecond })
	start := time.Now()
	res, err := c.Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "provider.timeout") || res.Content != "slow" {
		t.Fatalf("res %q err %v", res.Content, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestCancel(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, sse(false, textChunk("a")))
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := testClient(s, nil, nil).Stream(ctx, Request{Messages: userMsg("x")}, func(string) { cancel() })
	if !errors.Is(err, context.Canceled) || res.Content != "a" {
		t.Fatalf("res %q err %v", res.Content, err)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second, true},
		{http.Header{"Retry-After": {"3600"}}, 60 * time.Second, true},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{}, 0, false},
	}
	for _, tc := range cases {
		got, ok := retryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v: got %v %v, want %v %v", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	info := &attemptInfo{}
	top := func(d time.Duration) time.Duration { return d }
	zero := func(time.Duration) time.Duration { return 0 }
	for n, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 10: 30 * time.Second} {
		if got := backoff(n, info, top); got != want {
			t.Errorf("backoff(%d) = %v, want %v", n, got, want)
		}
		if got := backoff(n, info, zero); got != want/2 {
			t.Errorf("backoff(%d) low = %v, want %v", n, got, want/2)
		}
	}
	for range 100 {
		if d := backoff(2, info, randomDuration); d < 500*time.Millisecond || d > time.Second {
			t.Fatalf("jittered backoff %v out of range", d)
		}
	}
}

// assertJSON compares two JSON texts semantically.
func assertJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("invalid JSON %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %q: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("JSON mismatch\n got: %s\nwant: %s", gb, wb)
	}
}
