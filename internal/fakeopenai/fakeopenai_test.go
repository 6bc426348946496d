package fakeopenai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

func client(url string) *openai.Client {
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = url + "/v1"
	return openai.NewClientWithConfig(cfg)
}

// stream reads a whole streamed answer with go-openai.
func stream(t *testing.T, c *openai.Client) (string, map[int]*openai.ToolCall, string, error) {
	t.Helper()
	s, err := c.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}, Stream: true,
	})
	if err != nil {
		return "", nil, "", err
	}
	defer s.Close()
	var text strings.Builder
	calls := map[int]*openai.ToolCall{}
	finish := ""
	for {
		r, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return text.String(), calls, finish, nil
		}
		if err != nil {
			return text.String(), calls, finish, err
		}
		for _, ch := range r.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.FinishReason != "" {
				finish = string(ch.FinishReason)
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := *tc.Index
				if calls[i] == nil {
					calls[i] = &openai.ToolCall{ID: tc.ID, Type: tc.Type}
					calls[i].Function.Name = tc.Function.Name
				}
				calls[i].Function.Arguments += tc.Function.Arguments
			}
		}
	}
}

// TestStreamDecodesWithGoOpenAI: text and fragmented tool calls come back
// whole through go-openai, and requests are recorded.
func TestStreamDecodesWithGoOpenAI(t *testing.T) {
	srv := New(Sequence(
		Reply{Text: "héllo wörld", ToolCalls: []ToolCall{{ID: "c1", Name: "calc", Args: `{"a": 1}`}, {Name: "other", Args: `{}`}}, Chunk: 2, SplitWrites: true},
		Reply{Text: "second"},
	))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c := client(hs.URL)
	text, calls, finish, err := stream(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if text != "héllo wörld" || finish != "tool_calls" {
		t.Errorf("text %q finish %q", text, finish)
	}
	if len(calls) != 2 || calls[0].ID != "c1" || calls[0].Function.Name != "calc" || calls[0].Function.Arguments != `{"a": 1}` ||
		calls[1].ID != "call_2" || calls[1].Function.Name != "other" {
		t.Errorf("calls = %+v %+v", calls[0], calls[1])
	}
	for i := range 2 { // the last reply repeats
		text, _, finish, err = stream(t, c)
		if err != nil || text != "second" || finish != "stop" {
			t.Errorf("request %d: %q %q %v", i+2, text, finish, err)
		}
	}
	if n := len(srv.Requests()); n != 3 || len(srv.RawRequests()) != 3 || srv.Requests()[0].Model != "m" {
		t.Errorf("recorded %d requests", n)
	}
	if LastMessage(srv.Requests()[0]).Content != "hi" {
		t.Error("LastMessage")
	}
}

// TestFaults: scripted statuses with headers, and a cut stream without [DONE].
func TestFaults(t *testing.T) {
	srv := New(Sequence(Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}}, Reply{Text: "abcdefghij", CutAfter: 2}))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(body), "scripted failure 429") {
		t.Errorf("status %d, Retry-After %q, body %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	resp, err = http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := strings.Count(string(body), "data: "); got != 2 || strings.Contains(string(body), "[DONE]") {
		t.Errorf("cut stream sent %d events: %s", got, body)
	}
	resp, err = http.Get(hs.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Error("other paths should answer 404")
	}
}

// TestSplitKeepsRunes: split never cuts a UTF-8 character.
func TestSplitKeepsRunes(t *testing.T) {
	in := "日本語のテキストと emoji 🎉🎉 mixed"
	for n := 1; n < 8; n++ {
		parts := split(in, n)
		if strings.Join(parts, "") != in {
			t.Fatalf("n=%d: pieces do not reassemble", n)
		}
		for _, p := range parts {
			if !utf8.ValidString(p) {
				t.Fatalf("n=%d: piece %q cuts a rune", n, p)
			}
		}
	}
}
