package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"tact/agent"
	"tact/tools"
)

// textSink writes a turn for people: answer text to stdout, tool activity,
// warnings and errors to stderr.
func textSink(stdout, stderr io.Writer) agent.Sink {
	var mu sync.Mutex
	atLineStart := true
	return func(ev agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Type {
		case agent.EventText:
			io.WriteString(stdout, ev.Text)
			atLineStart = strings.HasSuffix(ev.Text, "\n")
		case agent.EventToolCall:
			if !atLineStart {
				io.WriteString(stdout, "\n")
				atLineStart = true
			}
			fmt.Fprintf(stderr, "⚙ %s %s\n", ev.Call.Name, oneLine(argumentsText(*ev.Call), 200))
		case agent.EventApproval:
			verdict := "allowed"
			if !ev.Decision.Allow {
				verdict = "denied"
			}
			line := fmt.Sprintf("  %s (%s)", verdict, ev.Decision.Source)
			if ev.Decision.Reason != "" {
				line += ": " + ev.Decision.Reason
			}
			fmt.Fprintln(stderr, line)
		case agent.EventToolResult:
			r := ev.Result
			if r.Success {
				fmt.Fprintf(stderr, "  ✓ %s %s: %s\n", ev.Call.Name, r.Duration.Round(100_000), oneLine(r.Output, 160))
			} else {
				fmt.Fprintf(stderr, "  ✗ %s %s: %s\n", ev.Call.Name, r.Error.Kind, oneLine(r.Error.Message, 300))
			}
		case agent.EventWarning:
			fmt.Fprintln(stderr, "warning:", ev.Message)
		case agent.EventError:
			if !atLineStart {
				io.WriteString(stdout, "\n")
				atLineStart = true
			}
			fmt.Fprintln(stderr, "error:", ev.Message)
		case agent.EventDone:
			if !atLineStart {
				io.WriteString(stdout, "\n")
			}
		}
	}
}

func argumentsText(c tools.Call) string {
	if c.ParseError != "" || len(c.Arguments) == 0 {
		return c.RawArguments
	}
	return string(c.Arguments)
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

// jsonSink writes one JSON object per event and line to w.
func jsonSink(w io.Writer) agent.Sink {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(ev agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(typeFirst(toJSONEvent(ev)))
	}
}

func toJSONEvent(ev agent.Event) map[string]any {
	switch ev.Type {
	case agent.EventText:
		return map[string]any{"type": "text", "text": ev.Text}
	case agent.EventToolCall:
		args := ev.Call.Arguments
		if len(args) == 0 {
			// Unparsable arguments are shown as the raw string the model sent.
			raw, _ := json.Marshal(ev.Call.RawArguments)
			args = raw
		}
		return map[string]any{"type": "tool_call", "id": ev.Call.ID, "name": ev.Call.Name, "arguments": args}
	case agent.EventApproval:
		d := "deny"
		if ev.Decision.Allow {
			d = "allow"
		}
		m := map[string]any{"type": "approval", "id": ev.Call.ID, "name": ev.Call.Name, "decision": d,
			"source": ev.Decision.Source, "reason": ev.Decision.Reason}
		if ev.Decision.Rule != "" {
			m["rule"] = ev.Decision.Rule
		}
		return m
	case agent.EventToolResult:
		r := ev.Result
		var errVal any
		if r.Error != nil {
			errVal = map[string]any{"kind": r.Error.Kind, "message": r.Error.Message}
		}
		return map[string]any{"type": "tool_result", "id": ev.Call.ID, "name": ev.Call.Name, "success": r.Success,
			"output": r.Output, "error": errVal, "duration_ms": float64(r.Duration.Microseconds()) / 1000}
	case agent.EventUsage:
		return map[string]any{"type": "usage", "prompt_tokens": ev.Usage.PromptTokens,
			"completion_tokens": ev.Usage.CompletionTokens, "total_tokens": ev.Usage.TotalTokens}
	case agent.EventWarning, agent.EventError:
		return map[string]any{"type": string(ev.Type), "message": ev.Message}
	case agent.EventDone:
		return map[string]any{"type": "done", "reason": ev.Reason, "iterations": ev.Iterations}
	}
	return map[string]any{"type": string(ev.Type)}
}

// typeFirst encodes an event object with its "type" key first, so the lines
// read well; the other keys keep encoding/json's sorted order. Like the
// encoder around it, it leaves <, > and & as they are.
func typeFirst(ev map[string]any) json.RawMessage {
	typ := marshalNoEscape(ev["type"])
	rest := make(map[string]any, len(ev))
	for k, v := range ev {
		if k != "type" {
			rest[k] = v
		}
	}
	body := marshalNoEscape(rest)
	out := append([]byte(`{"type":`), typ...)
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out
}

// marshalNoEscape is json.Marshal without HTML escaping.
func marshalNoEscape(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
