package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/tools"
)

// Run sends input as a user message and runs the loop until the model
// answers, the iteration limit is hit, ctx is cancelled, or an error occurs.
// Every outcome ends with an EventDone sent to sink. Run returns the error
// reported in EventError, ctx's error when cancelled, and nil otherwise.
func (a *Agent) Run(ctx context.Context, input string, sink Sink) error {
	return a.run(ctx, input, false, sink)
}

// run is Run, or Retry when retry is set (no new user message).
func (a *Agent) run(ctx context.Context, input string, retry bool, sink Sink) error {
	a.runMu.Lock()
	defer a.runMu.Unlock()
	if sink == nil {
		sink = func(Event) {}
	}
	if obs := a.opts.Observer; obs != nil {
		next := sink
		sink = func(ev Event) {
			obs(ev)
			next(ev)
		}
	}
	var mu sync.Mutex // Warn may emit from another goroutine
	inner := sink
	sink = func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		inner(ev)
	}
	a.mu.Lock()
	a.current = sink
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.current = nil
		a.mu.Unlock()
	}()
	t := &turn{a: a, sink: sink, retry: retry}
	return t.run(ctx, input)
}

// Retry runs the loop again after a turn failed, on the history as it is:
// the user's message is not added a second time, and a partial answer the
// failure left at the end (marked "[answer cut off…]") is dropped from the
// history sent to the model (the session file keeps it). Events and the
// result are as for Run.
func (a *Agent) Retry(ctx context.Context, sink Sink) error {
	a.mu.Lock()
	if n := len(a.history); n > 0 {
		last := a.history[n-1]
		if last.Role == openai.ChatMessageRoleAssistant && len(last.ToolCalls) == 0 && strings.Contains(last.Content, "\n\n[answer cut off") {
			a.history = a.history[:n-1]
		}
	}
	empty := len(a.history) == 0 || a.history[len(a.history)-1].Role == openai.ChatMessageRoleAssistant
	a.mu.Unlock()
	if empty {
		return errors.New("nothing to retry: the conversation ends with an answer")
	}
	return a.run(ctx, "", true, sink)
}

// turn is the state of one Run.
type turn struct {
	a          *Agent
	sink       Sink
	iterations int
	retry      bool // the user message is already in the history
}

// response is one model response with what the detector found in it.
type response struct {
	llm.Response
	proto protocol.Protocol
	// held are the segments that came after the first tool call in the
	// text; they are shown in order as the calls run.
	held []protocol.Segment
	// names maps the names sent to the model back to tool names.
	names map[string]string
}

func (t *turn) run(ctx context.Context, input string) error {
	if !t.retry {
		if err := t.a.appendMessage(llm.Message{Role: openai.ChatMessageRoleUser, Content: input}); err != nil {
			return t.fail(err)
		}
	}
	for {
		t.iterations++
		resp, err := t.request(ctx)
		if err != nil {
			if t.fallBack(err, resp) {
				t.iterations--
				continue
			}
			return t.streamFailed(ctx, resp, err)
		}
		if resp.Usage != nil {
			t.sink(Event{Type: EventUsage, Usage: &Usage{
				PromptTokens:     resp.Usage.PromptTokens,
				CompletionTokens: resp.Usage.CompletionTokens,
				TotalTokens:      resp.Usage.TotalTokens,
			}})
		}
		calls, native := t.calls(resp)
		assistant := llm.Message{Role: openai.ChatMessageRoleAssistant, Content: resp.Content}
		if native {
			assistant.ToolCalls = resp.ToolCalls
		}
		if err := t.a.appendMessage(assistant); err != nil {
			return t.fail(err)
		}
		if len(calls) == 0 {
			t.showHeld(resp.held, false)
			return t.done(DoneStop)
		}
		if t.iterations >= t.a.opts.MaxIterations {
			return t.stopAtLimit(resp, calls, native)
		}
		var stop bool
		if native {
			t.showHeld(resp.held, true)
			stop, err = t.runNative(ctx, calls)
		} else {
			stop, err = t.runText(ctx, resp)
		}
		if err != nil {
			return t.fail(err)
		}
		if ctx.Err() != nil {
			return t.cancelled(ctx)
		}
		if stop {
			return t.done(DoneCancelled)
		}
	}
}

// request sends the history and streams the answer, showing text as it
// arrives until the first tool call in the text.
func (t *turn) request(ctx context.Context) (*response, error) {
	a := t.a
	a.mu.Lock()
	opts := a.opts
	history := append([]llm.Message(nil), a.history...)
	a.mu.Unlock()

	specs := a.specs()
	proto := opts.Protocol
	system := opts.SystemPrompt
	if extra := proto.Prompt(specs); extra != "" {
		system = strings.TrimSpace(system + "\n\n" + extra)
	}
	req := llm.Request{Model: opts.Model}
	if system != "" {
		req.Messages = append(req.Messages, llm.Message{Role: openai.ChatMessageRoleSystem, Content: system})
	}
	req.Messages = append(req.Messages, history...)
	out := &response{proto: proto}
	if proto.Native() && len(specs) > 0 {
		req.Tools, out.names = openAITools(specs)
		req.ToolChoice = opts.ToolChoice
		if t.iterations > 1 && req.ToolChoice != "none" {
			// "required" or a tool name forces a call on every request; once
			// the results are back the model must be free to answer.
			req.ToolChoice = "auto"
		}
		req.ParallelToolCalls = opts.ParallelToolCalls
	}

	var det protocol.Detector = passthrough{}
	if !opts.DisableTextCalls {
		det = proto.NewDetector(specs)
	}
	holding := false
	take := func(segs []protocol.Segment) {
		for _, s := range segs {
			if s.Warning != "" {
				t.sink(Event{Type: EventWarning, Message: s.Warning})
				opts.Logger.Warn("tool markup", "warning", s.Warning)
			}
			if s.Call != nil {
				holding = true
			}
			if holding {
				s.Warning = ""
				out.held = append(out.held, s)
				continue
			}
			if s.Text != "" {
				t.sink(Event{Type: EventText, Text: s.Text})
			}
		}
	}
	resp, err := opts.Provider.Stream(ctx, req, func(delta string) { take(det.Feed(delta)) })
	take(det.Flush())
	out.Response = resp
	return out, err
}

// fallBack switches to the text protocol when the server rejected native
// tools, and reports whether the request should be sent again.
func (t *turn) fallBack(err error, resp *response) bool {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if !llm.IsToolsUnsupported(err) || !a.opts.Protocol.Native() || a.opts.Fallback == nil || resp.Content != "" {
		return false
	}
	a.opts.Protocol = a.opts.Fallback
	msg := fmt.Sprintf("native function calling unavailable for %s; using %s tool calls in the text from now on",
		a.opts.Model, a.opts.Fallback.Name())
	a.opts.Logger.Warn("protocol fallback", "model", a.opts.Model, "protocol", a.opts.Fallback.Name(), "err", err)
	t.sink(Event{Type: EventWarning, Message: msg})
	if a.opts.OnFallback != nil {
		a.opts.OnFallback(a.opts.Model)
	}
	return true
}

// streamFailed ends the turn after a failed request, keeping any partial answer.
func (t *turn) streamFailed(ctx context.Context, resp *response, err error) error {
	t.showHeld(resp.held, false)
	partial := resp.Content
	if ctx.Err() != nil {
		if partial != "" {
			if perr := t.a.appendMessage(llm.Message{Role: openai.ChatMessageRoleAssistant, Content: partial + "\n\n[interrupted by the user]"}); perr != nil {
				return t.fail(perr)
			}
		}
		return t.cancelled(ctx)
	}
	if llm.IsToolsUnsupported(err) {
		err = fmt.Errorf("%w (enable output_strategy.fallback_to_structured_output or pass --protocol tool_action)", err)
	}
	if partial != "" {
		if perr := t.a.appendMessage(llm.Message{Role: openai.ChatMessageRoleAssistant, Content: partial + "\n\n[answer cut off: the response did not finish]"}); perr != nil {
			return t.fail(perr)
		}
		err = fmt.Errorf("%w (the partial answer was kept; send your message again or say \"continue\" to retry)", err)
	}
	return t.fail(err)
}

// calls returns the tool calls of a response and whether they are native.
// Native calls win: tags written beside them are shown as text.
func (t *turn) calls(resp *response) ([]tools.Call, bool) {
	if len(resp.ToolCalls) > 0 {
		calls := make([]tools.Call, 0, len(resp.ToolCalls))
		for _, tc := range resp.ToolCalls {
			calls = append(calls, nativeCall(tc, resp.names))
		}
		return calls, true
	}
	var calls []tools.Call
	for _, s := range resp.held {
		if s.Call != nil {
			calls = append(calls, *s.Call)
		}
	}
	return calls, false
}

// nativeCall turns an API tool call into a tools.Call, parsing its arguments.
func nativeCall(tc openai.ToolCall, names map[string]string) tools.Call {
	name := tc.Function.Name
	if orig, ok := names[name]; ok {
		name = orig
	}
	call := tools.Call{ID: tc.ID, Name: name, RawArguments: tc.Function.Arguments}
	raw := strings.TrimSpace(tc.Function.Arguments)
	if raw == "" {
		raw = "{}"
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		why := "the arguments are not a JSON object; send an object such as {\"name\": value}"
		if err != nil {
			why = "the arguments are not valid JSON (" + err.Error() + "); send a JSON object"
		}
		call.ParseError = why
		return call
	}
	call.Arguments = json.RawMessage(raw)
	return call
}

// showHeld emits held segments as text. Calls are shown as their raw
// markup when asText is set (they were not run), and skipped otherwise.
func (t *turn) showHeld(held []protocol.Segment, asText bool) {
	for _, s := range held {
		text := s.Text
		if s.Call != nil {
			if !asText {
				continue
			}
			text = s.Raw
		}
		if text != "" {
			t.sink(Event{Type: EventText, Text: text})
		}
	}
}

// stopAtLimit ends a turn whose last allowed response still asks for tools.
func (t *turn) stopAtLimit(resp *response, calls []tools.Call, native bool) error {
	limit := t.a.opts.MaxIterations
	t.showHeld(resp.held, false)
	notRun := tools.Fail(tools.KindCancelled, fmt.Sprintf("not run: the limit of %d model requests per turn was reached; the user can say \"continue\"", limit))
	if native {
		for _, c := range calls {
			if err := t.a.appendMessage(toolMessage(c, notRun)); err != nil {
				return t.fail(err)
			}
		}
	} else {
		// Text protocols get the same answer, so after "continue" the model
		// does not see its own call without a result.
		parts := make([]string, 0, len(calls))
		for _, c := range calls {
			parts = append(parts, resp.proto.ResultMessage(c, notRun))
		}
		if err := t.a.appendMessage(llm.Message{Role: openai.ChatMessageRoleUser, Content: strings.Join(parts, "\n\n")}); err != nil {
			return t.fail(err)
		}
	}
	msg := fmt.Sprintf("stopped after %d model requests (agent.max_iterations); %d tool call(s) not run — say \"continue\" to go on", limit, len(calls))
	t.a.opts.Logger.Warn("max iterations reached", "limit", limit, "pending_calls", len(calls))
	t.sink(Event{Type: EventWarning, Message: msg})
	return t.done(DoneMaxIterations)
}

func (t *turn) cancelled(ctx context.Context) error {
	t.done(DoneCancelled)
	return ctx.Err()
}

func (t *turn) fail(err error) error {
	t.a.opts.Logger.Error("turn failed", "err", err)
	t.sink(Event{Type: EventError, Message: err.Error()})
	t.done(DoneError)
	return err
}

func (t *turn) done(reason string) error {
	t.sink(Event{Type: EventDone, Reason: reason, Iterations: t.iterations})
	return nil
}

// toolMessage is the role:tool message carrying a native call's result.
func toolMessage(c tools.Call, r tools.Result) llm.Message {
	return llm.Message{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID, Name: c.Name, Content: r.Text()}
}

// openAITools converts specs into API tool definitions, with names the API
// accepts, and returns the map back to the real names.
func openAITools(specs []tools.Spec) ([]openai.Tool, map[string]string) {
	out := make([]openai.Tool, 0, len(specs))
	names := make(map[string]string, len(specs))
	for _, s := range specs {
		name := protocol.SanitizeName(s.Name)
		names[name] = s.Name
		params := s.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: name, Description: s.Description, Parameters: params,
		}})
	}
	return out, names
}

// errStopped marks calls not run because the user stopped the turn.
var errStopped = errors.New("not run: the user stopped the turn")

// passthrough is the detector used when tool markup in text is disabled.
type passthrough struct{}

// Feed returns the chunk as text.
func (passthrough) Feed(chunk string) []protocol.Segment {
	return []protocol.Segment{{Text: chunk}}
}

// Flush has nothing held back.
func (passthrough) Flush() []protocol.Segment { return nil }
