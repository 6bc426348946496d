package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func TestSupportsFunctionCalling(t *testing.T) {
	cases := []struct {
		model            string
		supported, known bool
	}{
		{"gpt-4o-mini", true, true}, {"openai/gpt-4o", true, true}, {"gpt-4.1-nano", true, true},
		{"gpt-4-turbo", true, true}, {"gpt-5", true, true}, {"gpt-3.5-turbo-0125", true, true},
		{"gpt-3.5-turbo-instruct", false, true}, {"o1", true, true}, {"o3-mini", true, true},
		{"o4-mini", true, true}, {"o1-mini", false, true}, {"o1-preview", false, true},
		{"claude-3-5-sonnet-20241022", true, true}, {"anthropic/claude-sonnet-4", true, true},
		{"claude-opus-4-1", true, true}, {"gemini-1.5-pro", true, true}, {"google/gemini-2.0-flash", true, true},
		{"mistral-large-latest", true, true}, {"qwen2.5:7b", true, true}, {"Qwen/Qwen2.5-72B-Instruct", true, true},
		{"qwen3:8b", true, true}, {"llama3.1:8b", true, true}, {"llama3.2", true, true},
		{"meta-llama/Llama-3.3-70B-Instruct", true, true}, {"llama2:13b", false, true}, {"llama3:8b", false, true},
		{"gemma2:9b", false, true}, {"phi3:mini", false, true}, {"phi-3-mini-4k", false, true},
		{"deepseek-r1:14b", false, true}, {"deepseek-chat", true, true}, {"deepseek/deepseek-v3", true, true},
		{"my-finetune", false, false}, {"", false, false}, {"tact-demo (offline)", false, false},
	}
	for _, tc := range cases {
		s, k := SupportsFunctionCalling(tc.model)
		if s != tc.supported || k != tc.known {
			t.Errorf("SupportsFunctionCalling(%q) = %v,%v; want %v,%v", tc.model, s, k, tc.supported, tc.known)
		}
	}
}

// Real error bodies of servers that reject tools.
var toolRejections = []struct {
	name   string
	status int
	body   string
}{
	{"ollama", 400, `{"error":{"message":"registry.ollama.ai/library/llama2:latest does not support tools","type":"api_error","param":null,"code":null}}`},
	{"vllm", 400, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`},
	{"openrouter", 404, `{"error":{"message":"No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing","code":404}}`},
	{"ollama native", 400, `{"error":"llama2 does not support tools"}`},
	{"llama.cpp", 500, `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`},
}

func rejectingServer(t *testing.T, status int, body string) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

func TestToolsUnsupportedDetection(t *testing.T) {
	for _, tc := range toolRejections {
		t.Run(tc.name, func(t *testing.T) {
			s := rejectingServer(t, tc.status, tc.body)
			var w waits
			_, err := testClient(s, &w, nil).Stream(context.Background(),
				Request{Model: "llama2", Messages: userMsg("x"), Tools: []openai.Tool{calcTool}}, nil)
			var tu *ToolsUnsupportedError
			if !errors.As(err, &tu) || !IsToolsUnsupported(err) {
				t.Fatalf("err %v (%T) is not ToolsUnsupportedError", err, err)
			}
			if tu.Model != "llama2" || !strings.Contains(err.Error(), "llama2") || tu.Unwrap() == nil {
				t.Fatalf("error %+v", tu)
			}
			if len(s.requests()) != 1 || len(w.d) != 0 {
				t.Fatalf("%d requests, sleeps %v: rejection must not be retried", len(s.requests()), w.d)
			}
		})
	}
	t.Run("not without tools", func(t *testing.T) {
		s := rejectingServer(t, 400, toolRejections[0].body)
		_, err := testClient(s, &waits{}, nil).Stream(context.Background(), Request{Messages: userMsg("x")}, nil)
		if err == nil || IsToolsUnsupported(err) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("not for other 400s", func(t *testing.T) {
		s := rejectingServer(t, 400, `{"error":{"message":"Invalid schema for function 'calculator': tools[0] is bad"}}`)
		_, err := testClient(s, &waits{}, nil).Stream(context.Background(),
			Request{Messages: userMsg("x"), Tools: []openai.Tool{calcTool}}, nil)
		if err == nil || IsToolsUnsupported(err) {
			t.Fatalf("err %v", err)
		}
	})
}

func TestProbe(t *testing.T) {
	s := rejectingServer(t, 400, toolRejections[0].body)
	c := testClient(s, &waits{}, nil)
	for range 2 {
		ok, err := c.Probe(context.Background(), "llama2")
		if ok || err != nil {
			t.Fatalf("probe = %v, %v", ok, err)
		}
	}
	reqs := s.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests: the probe result is not cached", len(reqs))
	}
	if reqs[0]["max_tokens"] != float64(1) || len(reqs[0]["tools"].([]any)) != 1 {
		t.Fatalf("probe request %v", reqs[0])
	}

	ok := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeSSE(w, sse(true, textChunk("O"), finishChunk("length")))
	})
	c2 := testClient(ok, nil, nil)
	if v, err := c2.Probe(context.Background(), "whatever"); !v || err != nil {
		t.Fatalf("probe = %v, %v", v, err)
	}

	broken := rejectingServer(t, 401, `{"error":{"message":"bad key"}}`)
	c3 := testClient(broken, &waits{}, nil)
	for range 2 {
		if _, err := c3.Probe(context.Background(), "m"); err == nil || !strings.Contains(err.Error(), "401") {
			t.Fatalf("err %v", err)
		}
	}
	if len(broken.requests()) != 2 {
		t.Fatal("a failed probe was cached")
	}
}

func TestSupportsToolsUsesTableBeforeProbe(t *testing.T) {
	s := rejectingServer(t, 400, toolRejections[0].body)
	c := testClient(s, &waits{}, nil)
	if v, err := c.SupportsTools(context.Background(), "openai/gpt-4o"); !v || err != nil {
		t.Fatalf("gpt-4o: %v %v", v, err)
	}
	if len(s.requests()) != 0 {
		t.Fatal("a known model was probed")
	}
	if v, err := c.SupportsTools(context.Background(), "my-local-model"); v || err != nil {
		t.Fatalf("unknown model: %v %v", v, err)
	}
	if len(s.requests()) != 1 {
		t.Fatal("an unknown model was not probed")
	}
}
