package agent_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent"
	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/internal/fakeopenai"
	"tact/tools"
	"tact/tools/builtin"
)

// fixture is an agent wired to a fake OpenAI server.
type fixture struct {
	srv   *fakeopenai.Server
	url   string
	reg   *tools.Registry
	exec  *tools.Executor
	agent *agent.Agent
	rec   *recorder
}

// setup describes a fixture; zero values give sensible defaults.
type setup struct {
	script     fakeopenai.Script
	tools      []tools.Tool // added after the builtin tools
	noBuiltins bool
	retries    int // llm MaxRetries; 0 means none (-1 to the client)
	parallel   bool
	opts       agent.Options // Provider and Executor are filled in
}

func newFixture(t *testing.T, s setup) *fixture {
	t.Helper()
	srv := fakeopenai.New(s.script)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	retries := s.retries
	if retries == 0 {
		retries = -1
	}
	client := llm.New(llm.Options{BaseURL: hs.URL + "/v1", APIKey: "k", Model: "m", MaxRetries: retries, Timeout: 10 * time.Second})
	reg := tools.NewRegistry(nil)
	if !s.noBuiltins {
		for _, tl := range builtin.New(builtin.Options{Workdir: t.TempDir()}) {
			reg.Register(tl)
		}
	}
	for _, tl := range s.tools {
		reg.Register(tl)
	}
	ex := tools.NewExecutor(reg, tools.ExecutorOptions{Parallel: s.parallel, DefaultTimeout: 5 * time.Second})
	opts := s.opts
	opts.Provider = client
	opts.Executor = ex
	if opts.Model == "" {
		opts.Model = "m"
	}
	return &fixture{srv: srv, url: hs.URL, reg: reg, exec: ex, agent: agent.New(opts), rec: &recorder{}}
}

// run runs one turn with a 10 s safety timeout.
func (f *fixture) run(t *testing.T, input string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.agent.Run(ctx, input, f.rec.sink)
}

// recorder keeps every event of a turn.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) sink(ev agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) all() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

func (r *recorder) ofType(typ agent.EventType) []agent.Event {
	var out []agent.Event
	for _, ev := range r.all() {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// text joins all text events.
func (r *recorder) text() string {
	var b strings.Builder
	for _, ev := range r.ofType(agent.EventText) {
		b.WriteString(ev.Text)
	}
	return b.String()
}

// done returns the last event, which must be EventDone.
func (r *recorder) done(t *testing.T) agent.Event {
	t.Helper()
	evs := r.all()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	last := evs[len(evs)-1]
	if last.Type != agent.EventDone {
		t.Fatalf("last event is %s, want done; events: %s", last.Type, dump(evs))
	}
	for _, ev := range evs[:len(evs)-1] {
		if ev.Type == agent.EventDone {
			t.Fatalf("done event before the end: %s", dump(evs))
		}
	}
	return last
}

// dump renders events for failure messages.
func dump(evs []agent.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString("\n  " + string(ev.Type))
		switch {
		case ev.Text != "":
			b.WriteString(" " + strings.TrimSpace(ev.Text))
		case ev.Message != "":
			b.WriteString(" " + ev.Message)
		case ev.Result != nil:
			b.WriteString(" " + ev.Call.Name + " → " + ev.Result.Text())
		case ev.Call != nil:
			b.WriteString(" " + ev.Call.Name + " " + ev.Call.RawArguments)
		case ev.Type == agent.EventDone:
			b.WriteString(" " + ev.Reason)
		}
	}
	return b.String()
}

// toolMessages returns the role:tool messages of a request.
func toolMessages(req openai.ChatCompletionRequest) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m)
		}
	}
	return out
}

// toolResultFor returns the content of the tool message answering id in
// the given request, failing the test when there is none.
func toolResultFor(t *testing.T, req openai.ChatCompletionRequest, id string) string {
	t.Helper()
	for _, m := range toolMessages(req) {
		if m.ToolCallID == id {
			return m.Content
		}
	}
	t.Fatalf("no tool message for %s in request: %+v", id, req.Messages)
	return ""
}

// checkHistoryValid checks that every assistant tool call has a tool message
// after it, before the next assistant message.
func checkHistoryValid(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for _, n := range msgs[i+1:] {
			if n.Role != openai.ChatMessageRoleTool {
				break
			}
			answered[n.ToolCallID] = true
		}
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				t.Errorf("message %d: tool call %s (%s) has no tool message after it", i, tc.ID, tc.Function.Name)
			}
		}
	}
}

// calcArgs is the calculator's argument JSON for 15*23.
const calcArgs = `{"a": 15, "b": 23, "operation": "mul"}`

// callReply asks for one native calculator call.
func callReply(id string) fakeopenai.Reply {
	return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: id, Name: "calculator", Args: calcArgs}}, Chunk: 3}
}

// proto returns a protocol by name.
func proto(t *testing.T, name string) protocol.Protocol {
	t.Helper()
	p, err := protocol.ForName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sleepArgs are the arguments of the sleeper test tool.
type sleepArgs struct {
	MS int `json:"ms"`
}

// sleeper returns a read-only tool that sleeps (honouring ctx) and reports
// when it started and ended.
func sleeper(name string, timeout time.Duration, mu *sync.Mutex, spans *[][2]time.Time) tools.Tool {
	spec := tools.Spec{Name: name, Description: "sleeps", Annotations: tools.Annotations{ReadOnly: true}, Timeout: timeout}
	return tools.NewFunc(spec, func(ctx context.Context, a sleepArgs) (tools.Result, error) {
		start := time.Now()
		select {
		case <-time.After(time.Duration(a.MS) * time.Millisecond):
		case <-ctx.Done():
			return tools.Result{}, ctx.Err()
		}
		if mu != nil {
			mu.Lock()
			*spans = append(*spans, [2]time.Time{start, time.Now()})
			mu.Unlock()
		}
		b, _ := json.Marshal(a.MS)
		return tools.OK("slept " + string(b)), nil
	})
}
