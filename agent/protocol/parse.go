package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"tact/tools"
)

// parseTag reads a complete <tool_action> or <tool_call> element.
func (d *detector) parseTag(raw string) []tools.Call {
	el, end, ok := scanOpenTag(raw, 0)
	if !ok {
		// Keep the tool's name when the tag shows one, so the error names it.
		name := ""
		open, _, _ := strings.Cut(raw, ">")
		if m := tagName.FindStringSubmatch(open); m != nil {
			name = m[1]
		}
		return []tools.Call{d.makeCall("", name, raw, nil, "the opening tag could not be read; write <tool_action name=\"TOOL\"> … </tool_action>")}
	}
	body := ""
	if closeLit := "</" + el.name + ">"; !el.self && strings.HasSuffix(raw, closeLit) && end <= len(raw)-len(closeLit) {
		body = raw[end : len(raw)-len(closeLit)]
	}
	if el.name == "tool_action" {
		return []tools.Call{d.parseToolAction(el, body)}
	}
	return d.parseToolCall(el, body)
}

// parseToolAction reads <tool_action name="T"><p value="v" /></tool_action>.
func (d *detector) parseToolAction(el element, body string) tools.Call {
	name := firstAttr(el, "name", "tool")
	if name == "" {
		return d.makeCall(el.attr("id"), "", body, nil,
			`the <tool_action> tag has no name attribute; write <tool_action name="TOOL"> with one child <PARAM value="VALUE" /> per parameter`)
	}
	if t := strings.TrimSpace(body); strings.HasPrefix(t, "{") {
		args, err := decodeJSON(t)
		if err != nil {
			return d.makeCall(el.attr("id"), name, body, nil, "the arguments are not valid JSON: "+err.Error())
		}
		return d.makeCall(el.attr("id"), name, body, args, "")
	}
	kids, _ := parseElements(body)
	args, problem := argsFromElements(kids)
	return d.makeCall(el.attr("id"), name, body, args, problem)
}

var (
	nameElements  = []string{"name", "tool_name", "tool", "function"}
	paramWrappers = []string{"parameters", "arguments", "params", "args", "input"}
)

// parseToolCall reads an XML <tool_call id="…" name="…"><parameters>…
// element or the Hermes/Qwen form <tool_call>{"name": …}</tool_call>.
func (d *detector) parseToolCall(el element, body string) []tools.Call {
	name, id := firstAttr(el, "name", "tool"), el.attr("id")
	t := strings.TrimSpace(body)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		calls, _, _ := d.parseJSONBlock(t, name, true)
		if len(calls) == 1 && id != "" {
			calls[0].ID = id
		}
		return calls
	}
	kids, _ := parseElements(body)
	var params *element
	rest := kids[:0:0]
	for k := range kids {
		switch {
		case name == "" && oneOf(kids[k].name, nameElements):
			name = textValue(kids[k].content)
		case id == "" && kids[k].name == "id":
			id = textValue(kids[k].content)
		case params == nil && oneOf(kids[k].name, paramWrappers):
			params = &kids[k]
		default:
			rest = append(rest, kids[k])
		}
	}
	if name == "" {
		return []tools.Call{d.makeCall(id, "", body, nil,
			`the <tool_call> element has no name; write <tool_call name="TOOL"><parameters>…</parameters></tool_call>`)}
	}
	if params == nil {
		args, problem := argsFromElements(rest)
		return []tools.Call{d.makeCall(id, name, body, args, problem)}
	}
	if pt := strings.TrimSpace(params.content); strings.HasPrefix(pt, "{") {
		args, err := decodeJSON(pt)
		if err != nil {
			return []tools.Call{d.makeCall(id, name, body, nil, "the parameters are not valid JSON: "+err.Error())}
		}
		return []tools.Call{d.makeCall(id, name, body, args, "")}
	}
	pkids, _ := parseElements(params.content)
	args, problem := argsFromElements(pkids)
	return []tools.Call{d.makeCall(id, name, body, args, problem)}
}

// argsFromElements turns parameter elements into an arguments object.
// <p value="v" /> and <p>v</p> both give p; <parameter name="p">v</parameter> too.
// A parameter whose closing tag is missing (and that has no value attribute)
// makes the whole call unreadable: problem says which, and args is nil.
func argsFromElements(kids []element) (args map[string]any, problem string) {
	for _, k := range kids {
		if _, hasValue := k.attrs["value"]; k.unclosed && !hasValue {
			return nil, fmt.Sprintf("the parameter element <%s> is never closed, so its value is unknown; write <%s>VALUE</%s>", k.name, k.name, k.name)
		}
	}
	args = make(map[string]any, len(kids))
	for _, k := range kids {
		key := k.name
		if oneOf(key, []string{"parameter", "param", "arg", "argument"}) && k.attr("name") != "" {
			key = k.attr("name")
		}
		addMember(args, key, elementValue(k))
	}
	return args, ""
}

// addMember sets m[key], turning repeated keys into an array.
func addMember(m map[string]any, key string, v any) {
	old, ok := m[key]
	if !ok {
		m[key] = v
		return
	}
	if arr, ok := old.(repeated); ok {
		m[key] = append(arr, v)
		return
	}
	m[key] = repeated{old, v}
}

// repeated marks an array built from repeated XML elements (as opposed to one
// written as JSON); it is encoded like any []any.
type repeated = []any

// elementValue is the value an element holds: its value attribute, nested
// elements as an object (or an array when they repeat one name or are
// <item> elements), or its text.
func elementValue(el element) any {
	if v, ok := el.attrs["value"]; ok && strings.TrimSpace(el.content) == "" {
		return v
	}
	kids, hasText := parseElements(el.content)
	if len(kids) == 0 || hasText {
		return textValue(el.content)
	}
	if len(kids) > 1 || kids[0].name == "item" {
		same := true
		for _, k := range kids[1:] {
			same = same && k.name == kids[0].name
		}
		if same {
			arr := make([]any, len(kids))
			for i, k := range kids {
				arr[i] = elementValue(k)
			}
			return arr
		}
	}
	if obj, problem := argsFromElements(kids); problem == "" {
		return obj
	}
	// Broken nesting: keep the raw text, which then fails validation
	// with a clear message instead of becoming a half-read object.
	return textValue(el.content)
}

// textValue decodes element text: entities, CDATA sections, and the
// whitespace a model puts around a value on its own line.
func textValue(s string) string {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "<![CDATA[") && strings.HasSuffix(t, "]]>") {
		return t[len("<![CDATA[") : len(t)-len("]]>")]
	}
	s = unescape(s)
	if !strings.Contains(s, "\n") {
		return strings.TrimSpace(s)
	}
	for {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || strings.TrimSpace(s[:nl]) != "" {
			break
		}
		s = s[nl+1:]
	}
	return strings.TrimRight(s, " \t\r\n")
}

// parseJSONBlock reads JSON decisions: {"tool": …, "arguments": …},
// {"tool": null, "reply": …}, {"name": …, "arguments": …},
// {"tool_calls": [...]}, an array of calls, or several objects in a row.
// mustCall says the text was inside a <tool_call> element, so it must be a call:
// broken JSON there becomes a call with a ParseError. It returns the calls,
// the reply text, and whether the text was a reply decision.
func (d *detector) parseJSONBlock(text, fallbackName string, mustCall bool) ([]tools.Call, string, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var vals []json.RawMessage
	var decErr error
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if !errors.Is(err, io.EOF) {
				decErr = err
			}
			break
		}
		vals = append(vals, v)
	}
	if decErr != nil {
		if !mustCall && !callLike.MatchString(text) {
			return nil, "", false
		}
		name := fallbackName
		if m := callName.FindStringSubmatch(text); name == "" && m != nil {
			name = m[1]
		}
		return []tools.Call{d.makeCall("", name, text, nil, "the tool call is not valid JSON: "+decErr.Error())}, "", false
	}
	var (
		calls   []tools.Call
		reply   string
		isReply bool
	)
	for _, v := range vals {
		var list []json.RawMessage
		if err := json.Unmarshal(v, &list); err != nil {
			list = []json.RawMessage{v}
		}
		for _, item := range list {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(item, &m); err != nil || m == nil {
				continue
			}
			if tc, ok := m["tool_calls"]; ok {
				var arr []map[string]json.RawMessage
				if err := json.Unmarshal(tc, &arr); err == nil {
					for _, c := range arr {
						calls = append(calls, d.callFromObject(c, ""))
					}
				}
				continue
			}
			if t, ok := m["tool"]; ok && string(t) == "null" || !ok && !isCallObject(m, d.specs, mustCall) {
				keys := []string{"reply"}
				if ok {
					keys = append(keys, "response", "answer", "content", "text")
				}
				if r, found := firstKey(m, keys...); found || ok {
					isReply = true
					reply += jsonText(r)
				}
				continue
			}
			calls = append(calls, d.callFromObject(m, fallbackName))
		}
	}
	if len(calls) == 0 && !isReply && mustCall {
		return []tools.Call{d.makeCall("", fallbackName, text, nil,
			`the <tool_call> element holds no call; write <tool_call>{"name": "TOOL", "arguments": {…}}</tool_call>`)}, "", false
	}
	return calls, reply, isReply
}

var (
	tagName  = regexp.MustCompile(`\s(?:name|tool)\s*=\s*["']?([^"'\s>/]+)`)
	callLike = regexp.MustCompile(`"(?:tool|name|tool_calls)"\s*:`)
	callName = regexp.MustCompile(`"(?:tool|name)"\s*:\s*"([^"\\]*)"`)
)

// isCallObject reports whether an object without a "tool" key is a call:
// it names a function and carries arguments, or names a known tool.
func isCallObject(m map[string]json.RawMessage, ix *specIndex, inTag bool) bool {
	if _, ok := m["function"]; ok {
		return true
	}
	raw, ok := m["name"]
	if !ok {
		return false
	}
	if inTag {
		return true
	}
	if _, ok := firstKey(m, "arguments", "parameters", "args", "input"); ok {
		return true
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		if _, ok := ix.schemas[name]; ok {
			return true
		}
		_, ok := ix.sanitized[name]
		return ok
	}
	return false
}

// callFromObject builds a call from one JSON call object.
func (d *detector) callFromObject(m map[string]json.RawMessage, fallbackName string) tools.Call {
	var id string
	_ = json.Unmarshal(m["id"], &id)
	nameRaw, hasName := firstKey(m, "tool", "name")
	argsRaw, hasArgs := firstKey(m, "arguments", "parameters", "args", "input")
	if fn, ok := m["function"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(fn, &inner) == nil && inner != nil {
			if r, ok := inner["name"]; ok && !hasName {
				nameRaw, hasName = r, true
			}
			if r, ok := firstKey(inner, "arguments", "parameters"); ok && !hasArgs {
				argsRaw, hasArgs = r, true
			}
		} else if !hasName {
			nameRaw, hasName = fn, true
		}
	}
	name := fallbackName
	if hasName {
		if err := json.Unmarshal(nameRaw, &name); err != nil {
			return d.makeCall(id, string(nameRaw), string(argsRaw), nil, "the tool name must be a JSON string")
		}
	}
	if !hasArgs {
		return d.makeCall(id, name, "", nil, "")
	}
	rawArgs := string(argsRaw)
	var s string
	if json.Unmarshal(argsRaw, &s) == nil {
		// OpenAI style: the arguments object encoded as a string.
		rawArgs = s
		if strings.TrimSpace(s) == "" {
			return d.makeCall(id, name, rawArgs, nil, "")
		}
	}
	args, err := decodeJSON(rawArgs)
	if err != nil {
		return d.makeCall(id, name, rawArgs, nil, "the arguments are not valid JSON: "+err.Error())
	}
	return d.makeCall(id, name, rawArgs, args, "")
}

func firstKey(m map[string]json.RawMessage, keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v, true
		}
	}
	return nil, false
}

// jsonText is the text of a JSON value: a string's content, otherwise the JSON.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func firstAttr(el element, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(el.attr(n)); v != "" {
			return v
		}
	}
	return ""
}
