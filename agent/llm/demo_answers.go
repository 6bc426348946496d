package llm

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// demoReply is what the demo answers: text, or one native tool call.
type demoReply struct {
	text string
	call *demoCall
}

type demoCall struct {
	id, name, args string
}

// demoArg is one argument of an intended call, in order.
type demoArg struct {
	key string
	val any // string or float64
}

// demoIntent is a tool the user's message asks for.
type demoIntent struct {
	tool string
	args []demoArg
}

func (in demoIntent) argsJSON() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, a := range in.args {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(a.key)
		v, _ := json.Marshal(a.val)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// tag writes the call in the tool_action text protocol.
func (in demoIntent) tag() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<tool_action name="%s">`, in.tool)
	for _, a := range in.args {
		fmt.Fprintf(&b, `<%s value="%s" />`, a.key, html.EscapeString(argString(a.val)))
	}
	b.WriteString("</tool_action>")
	return b.String()
}

func argString(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

const demoToolResultPrefix = "[Tool result for "

// planDemo decides the demo's reply to a request.
func planDemo(r demoRequest) demoReply {
	if len(r.Messages) == 0 {
		return demoReply{text: demoIntro}
	}
	var system strings.Builder
	for _, m := range r.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			system.WriteString(m.Content)
		}
	}
	tools := map[string]bool{}
	for _, t := range r.Tools {
		if t.Function != nil {
			tools[t.Function.Name] = true
		}
	}
	textProtocol := len(r.Tools) == 0 && strings.Contains(system.String(), "<tool_action")
	available := func(name string) bool {
		if textProtocol {
			return strings.Contains(system.String(), name)
		}
		return tools[name]
	}

	last := r.Messages[len(r.Messages)-1]
	switch {
	case last.Role == openai.ChatMessageRoleTool:
		// Answer every trailing tool result.
		var parts []string
		for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == openai.ChatMessageRoleTool; i-- {
			m := r.Messages[i]
			name, args := findNativeCall(r.Messages[:i], m.ToolCallID)
			if name == "" {
				name = m.Name
			}
			parts = append([]string{answerFromResult(name, args, m.Content)}, parts...)
		}
		return demoReply{text: strings.Join(parts, "\n\n")}
	case last.Role == openai.ChatMessageRoleUser && strings.HasPrefix(last.Content, demoToolResultPrefix):
		name, output, _ := strings.Cut(strings.TrimPrefix(last.Content, demoToolResultPrefix), "]")
		args := map[string]string{}
		if len(r.Messages) >= 2 {
			for _, m := range tagArgRE.FindAllStringSubmatch(r.Messages[len(r.Messages)-2].Content, -1) {
				args[m[1]] = html.UnescapeString(m[2])
			}
		}
		return demoReply{text: answerFromResult(name, args, strings.TrimSpace(output))}
	case last.Role == openai.ChatMessageRoleUser:
		in, ok := parseDemoIntent(last.Content)
		if !ok {
			return demoReply{text: demoIntro}
		}
		switch {
		case textProtocol && available(in.tool):
			return demoReply{text: fmt.Sprintf("(offline demo) Let me use the `%s` tool.\n\n%s", in.tool, in.tag())}
		case available(in.tool):
			return demoReply{call: &demoCall{id: newCallID(), name: in.tool, args: in.argsJSON()}}
		default:
			return demoReply{text: answerWithoutTool(in)}
		}
	}
	return demoReply{text: demoIntro}
}

var tagArgRE = regexp.MustCompile(`<(\w+) value="([^"]*)"\s*/>`)

// findNativeCall finds the name and arguments of the tool call with id in
// the assistant messages of history.
func findNativeCall(history []Message, id string) (string, map[string]string) {
	for i := len(history) - 1; i >= 0; i-- {
		for _, c := range history[i].ToolCalls {
			if c.ID != id {
				continue
			}
			args := map[string]string{}
			var raw map[string]any
			if json.Unmarshal([]byte(c.Function.Arguments), &raw) == nil {
				for k, v := range raw {
					args[k] = argString(v)
				}
			}
			return c.Function.Name, args
		}
	}
	return "", nil
}

var (
	runRE    = regexp.MustCompile(`(?is)^(?:please\s+|can you\s+|could you\s+)?(?:run|execute)\s+(?:the\s+command\s+)?(.+)$`)
	listRE   = regexp.MustCompile(`(?i)^(?:please\s+)?(?:ls|dir)(?:\s+(\S+))?\s*$`)
	listRE2  = regexp.MustCompile(`(?i)\b(?:list|show)\b.*\b(?:files|directory|folder|dir)\b`)
	readRE   = regexp.MustCompile(`(?i)^(?:please\s+|can you\s+|could you\s+)?(?:read|cat|open|show)\s+(?:me\s+)?(?:the\s+)?(?:file\s+)?(\S+)\s*$`)
	arithRE  = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s*([-+*/x])\s*(-?\d+(?:\.\d+)?)`)
	timeRE   = regexp.MustCompile(`(?i)\b(?:time|date|day|clock)\b`)
	opWordRE = regexp.MustCompile(`(?i)\s+(times|multiplied by|plus|minus|divided by)\s+`)
)

// parseDemoIntent recognises the requests the demo understands.
func parseDemoIntent(msg string) (demoIntent, bool) {
	s := strings.TrimSpace(msg)
	if m := runRE.FindStringSubmatch(s); m != nil {
		cmd := strings.Trim(strings.TrimSpace(m[1]), "`\"'")
		if cmd != "" {
			return demoIntent{tool: "shell", args: []demoArg{{"command", cmd}}}, true
		}
	}
	if m := listRE.FindStringSubmatch(s); m != nil {
		path := "."
		if m[1] != "" {
			path = m[1]
		}
		return demoIntent{tool: "list_dir", args: []demoArg{{"path", path}}}, true
	}
	if listRE2.MatchString(s) {
		return demoIntent{tool: "list_dir", args: []demoArg{{"path", "."}}}, true
	}
	if m := readRE.FindStringSubmatch(s); m != nil {
		path := strings.Trim(m[1], "`\"'")
		path = strings.TrimRight(path, "?!,;:")
		if len(path) > 1 {
			path = strings.TrimSuffix(path, ".")
		}
		return demoIntent{tool: "read_file", args: []demoArg{{"path", path}}}, true
	}
	if a, op, b, ok := parseArithmetic(s); ok {
		return demoIntent{tool: "calculator", args: []demoArg{{"a", a}, {"b", b}, {"operation", op}}}, true
	}
	if timeRE.MatchString(s) {
		return demoIntent{tool: "current_time"}, true
	}
	return demoIntent{}, false
}

// parseArithmetic finds "A op B" with op in + - * / x × ÷ or the words
// plus, minus, times, multiplied by, divided by.
func parseArithmetic(s string) (a float64, op string, b float64, ok bool) {
	s = strings.NewReplacer("×", "*", "÷", "/", "·", "*").Replace(s)
	s = opWordRE.ReplaceAllStringFunc(s, func(w string) string {
		switch strings.ToLower(strings.TrimSpace(w)) {
		case "plus":
			return " + "
		case "minus":
			return " - "
		case "divided by":
			return " / "
		}
		return " * "
	})
	m := arithRE.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return 0, "", 0, false
	}
	a, err1 := strconv.ParseFloat(m[1], 64)
	b, err2 := strconv.ParseFloat(m[3], 64)
	if err1 != nil || err2 != nil {
		return 0, "", 0, false
	}
	op = map[string]string{"+": "add", "-": "sub", "*": "mul", "x": "mul", "/": "div"}[m[2]]
	return a, op, b, true
}

var opSymbol = map[string]string{"add": "+", "sub": "−", "mul": "×", "div": "÷"}

// answerFromResult writes the demo's markdown answer to a tool's output.
func answerFromResult(name string, args map[string]string, output string) string {
	out := strings.TrimSpace(output)
	if out == "" || out == NoOutput {
		return fmt.Sprintf("(offline demo) The `%s` tool ran but produced no output.", name)
	}
	if name == "calculator" {
		if _, err := strconv.ParseFloat(out, 64); err != nil {
			return demoToolFailed(name, out)
		}
		if sym, ok := opSymbol[args["operation"]]; ok && args["a"] != "" && args["b"] != "" {
			return fmt.Sprintf("(offline demo) %s %s %s = **%s**", args["a"], sym, args["b"], out)
		}
		return fmt.Sprintf("(offline demo) The calculator says **%s**.", out)
	}
	if looksLikeError(out) {
		return demoToolFailed(name, out)
	}
	switch name {
	case "current_time":
		return fmt.Sprintf("(offline demo) The current time is **%s**.", out)
	case "shell":
		return fmt.Sprintf("(offline demo) I ran `%s`. Its output:\n\n```\n%s\n```", args["command"], clip(out))
	case "read_file":
		return fmt.Sprintf("(offline demo) Here is `%s`:\n\n```\n%s\n```", args["path"], clip(out))
	case "list_dir":
		return fmt.Sprintf("(offline demo) The files in `%s`:\n\n```\n%s\n```", args["path"], clip(out))
	}
	return fmt.Sprintf("(offline demo) The `%s` tool returned:\n\n```\n%s\n```", name, clip(out))
}

func demoToolFailed(name, out string) string {
	return fmt.Sprintf("(offline demo) The `%s` tool reported an error:\n\n> %s\n\nCheck the request (for example the path or the numbers) and ask again.",
		name, strings.ReplaceAll(clip(out), "\n", "\n> "))
}

func looksLikeError(out string) bool {
	l := strings.ToLower(out)
	if strings.Contains(l, `"success":false`) {
		return true
	}
	for _, p := range []string{"error", "tool not found", "denied", "timed out", "failed", "not permitted", "no such file"} {
		if strings.HasPrefix(l, p) || strings.Contains(l, p+":") {
			return true
		}
	}
	return false
}

func clip(s string) string {
	const n = 3000
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n… (cut)"
}

// answerWithoutTool answers an intent whose tool the request does not offer.
func answerWithoutTool(in demoIntent) string {
	if in.tool == "calculator" {
		a, _ := in.args[0].val.(float64)
		b, _ := in.args[1].val.(float64)
		op, _ := in.args[2].val.(string)
		var r float64
		switch op {
		case "add":
			r = a + b
		case "sub":
			r = a - b
		case "mul":
			r = a * b
		case "div":
			if b == 0 {
				return "(offline demo) Division by zero is undefined."
			}
			r = a / b
		}
		if !math.IsInf(r, 0) && !math.IsNaN(r) {
			return fmt.Sprintf("(offline demo) %s %s %s = **%s** (worked out without a tool: no `calculator` tool is available in this session).",
				argString(a), opSymbol[op], argString(b), argString(r))
		}
	}
	return fmt.Sprintf("(offline demo) I would use the `%s` tool for that, but it is not available in this session.", in.tool)
}

// demoIntro is the demo's answer to anything it does not understand.
const demoIntro = `## tact — offline demo

(offline demo) You are talking to tact's built-in **demo model**. It runs inside tact, needs no network or API key, and only understands a few requests:

- arithmetic — ` + "`what is 15*23`" + `
- the time — ` + "`what time is it?`" + `
- files — ` + "`list files`, `read README.md`" + `
- commands — ` + "`run ls -la`" + `

### Connect a real model

Any OpenAI-compatible server works. For OpenAI, set your key and pick a model:

` + "```sh" + `
export OPENAI_API_KEY=sk-...
tact --model gpt-4o-mini
` + "```" + `

For a local model with [Ollama](https://ollama.com):

` + "```sh" + `
ollama pull qwen2.5:7b
tact --base-url http://localhost:11434/v1 --model qwen2.5:7b
` + "```" + `

You can also set ` + "`OPENAI_BASE_URL`" + `, or ` + "`provider.base_url`" + ` and ` + "`provider.model`" + ` in ` + "`config.yaml`" + `.
`
