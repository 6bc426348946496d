package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"sort"
	"strings"

	"tact/tools"
)

// GenerateToolPrompt is the system-prompt section that teaches a model to
// call tools in the text format named by format (tool_action, json or xml):
// every tool with its name (as SanitizeName writes it), description and
// parameters (type, required or optional, allowed values, description), a
// worked example built from the first tool's schema, how results come back,
// and that the model must stop after writing a call. With no tools it says
// plainly that none are available and the model must answer directly. It
// returns "" for native, whose tools travel in the request.
func GenerateToolPrompt(format string, specs []tools.Spec) string {
	if format == "native" {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	if len(specs) == 0 {
		b.WriteString("No tools are available in this conversation. Do not write tool calls or tool markup; answer the user directly.\n")
		return b.String()
	}
	b.WriteString("You can call the tools below. Use only these tools, with the exact names shown.\n\n")
	for _, s := range specs {
		writeTool(&b, s)
	}
	first := specs[0]
	example := encodeExample(format, SanitizeName(first.Name), exampleArgs(first.Parameters))
	b.WriteString("## How to call a tool\n\n")
	switch format {
	case "json":
		b.WriteString("To call a tool, reply with only a JSON object and no other text:\n" +
			"{\"tool\": \"TOOL_NAME\", \"arguments\": {\"PARAMETER\": VALUE}}\n" +
			"When you are ready to answer the user, reply with:\n" +
			"{\"tool\": null, \"reply\": \"your answer\"}\n" +
			"Arguments use JSON types: numbers and booleans unquoted, arrays and objects as JSON.\n")
	case "xml":
		b.WriteString("To call a tool, write a <tool_call> element:\n" +
			"<tool_call name=\"TOOL_NAME\">\n<parameters>\n<PARAMETER>VALUE</PARAMETER>\n</parameters>\n</tool_call>\n" +
			"Write each parameter as one element. Numbers and booleans are plain text (5, true); " +
			"arrays and objects are JSON text ([\"a\", \"b\"]) or nested elements. Escape & and < in values as &amp; and &lt;.\n")
	default:
		b.WriteString("To call a tool, write a <tool_action> tag:\n" +
			"<tool_action name=\"TOOL_NAME\">\n  <PARAMETER value=\"VALUE\" />\n</tool_action>\n" +
			"Write each parameter as one child element whose value attribute holds the value. Numbers and booleans " +
			"are plain text (value=\"5\", value=\"true\"); arrays and objects are JSON text (value='[\"a\", \"b\"]'). " +
			"Escape &, < and the attribute's quote character in values as &amp;, &lt; and &quot; (or &apos;).\n")
	}
	fmt.Fprintf(&b, "\nExample, calling %s:\n%s\n\n", SanitizeName(first.Name), example)
	b.WriteString("After writing a tool call, stop and wait: do not write the result yourself. " +
		"The tool runs and its result comes back in a user message that starts with \"[Tool result for TOOL_NAME]\"; " +
		"an error result tells you what to fix. Then continue: call another tool or answer the user. " +
		"You may write several tool calls in one reply; they run in order. " +
		"If no tool is needed, answer directly without any tool markup.\n")
	return b.String()
}

// writeTool lists one tool and its parameters.
func writeTool(b *strings.Builder, s tools.Spec) {
	fmt.Fprintf(b, "## %s\n", SanitizeName(s.Name))
	if d := strings.TrimSpace(s.Description); d != "" {
		b.WriteString(d + "\n")
	}
	schema, order := parseSchema(s.Parameters)
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		b.WriteString("Parameters: none.\n\n")
		return
	}
	required := requiredSet(schema)
	b.WriteString("Parameters:\n")
	for _, name := range order {
		p, _ := props[name].(map[string]any)
		need := "optional"
		if required[name] {
			need = "required"
		}
		fmt.Fprintf(b, "- %s (%s, %s)", name, typeSummary(p, 0), need)
		if d, _ := p["description"].(string); strings.TrimSpace(d) != "" {
			b.WriteString(": " + strings.TrimSpace(d))
		}
		if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
			b.WriteString(" One of: " + joinJSON(enum) + ".")
		}
		if def, ok := p["default"]; ok {
			b.WriteString(" Default: " + joinJSON([]any{def}) + ".")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// parseSchema decodes a parameter schema and returns its property names in
// the order the schema writes them.
func parseSchema(raw json.RawMessage) (map[string]any, []string) {
	var schema map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(raw) == 0 || dec.Decode(&schema) != nil {
		return nil, nil
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(raw, &top)
	order := objectKeys(top["properties"])
	if props, ok := schema["properties"].(map[string]any); ok && len(order) != len(props) {
		order = order[:0]
		for k := range props {
			order = append(order, k)
		}
		sort.Strings(order)
	}
	return schema, order
}

// objectKeys returns the keys of a JSON object in document order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := t.(string)
		keys = append(keys, key)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

func requiredSet(schema map[string]any) map[string]bool {
	set := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				set[s] = true
			}
		}
	}
	return set
}

// typeSummary writes a schema's type briefly: "integer", "array of string",
// "object {min: number, max?: number}", "string or null".
func typeSummary(s map[string]any, depth int) string {
	if s == nil {
		return "any"
	}
	var c coercer
	cands := c.candidates(s)
	if len(cands) == 0 {
		if _, ok := s["enum"]; ok {
			return "enum"
		}
		return "any"
	}
	var parts []string
	seen := map[string]bool{}
	for _, cd := range cands {
		t := cd.typ
		switch t {
		case "array":
			if items, ok := cd.schema["items"].(map[string]any); ok && depth < 3 {
				t = "array of " + typeSummary(items, depth+1)
			}
		case "object":
			props, _ := cd.schema["properties"].(map[string]any)
			if len(props) > 0 && depth < 2 {
				req := requiredSet(cd.schema)
				keys := make([]string, 0, len(props))
				for k := range props {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				fields := make([]string, len(keys))
				for i, k := range keys {
					opt := "?"
					if req[k] {
						opt = ""
					}
					sub, _ := props[k].(map[string]any)
					fields[i] = k + opt + ": " + typeSummary(sub, depth+1)
				}
				t = "object {" + strings.Join(fields, ", ") + "}"
			}
		}
		if !seen[t] {
			seen[t] = true
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " or ")
}

func joinJSON(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		enc, _ := json.Marshal(v)
		parts[i] = string(enc)
	}
	return strings.Join(parts, ", ")
}

// exampleArgs builds example arguments from a schema: every required
// parameter (or the first one when none is required).
func exampleArgs(raw json.RawMessage) map[string]any {
	schema, order := parseSchema(raw)
	props, _ := schema["properties"].(map[string]any)
	req := requiredSet(schema)
	args := map[string]any{}
	for _, name := range order {
		if req[name] {
			sub, _ := props[name].(map[string]any)
			args[name] = exampleValue(sub, 0)
		}
	}
	if len(args) == 0 && len(order) > 0 {
		sub, _ := props[order[0]].(map[string]any)
		args[order[0]] = exampleValue(sub, 0)
	}
	return args
}

func exampleValue(s map[string]any, depth int) any {
	if s == nil {
		return "example"
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if def, ok := s["default"]; ok && def != nil {
		return def
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	var c coercer
	cands := c.candidates(s)
	if len(cands) == 0 {
		return "example"
	}
	switch cands[0].typ {
	case "integer":
		return json.Number("1")
	case "number":
		return json.Number("1.5")
	case "boolean":
		return true
	case "null":
		return nil
	case "array":
		items, _ := cands[0].schema["items"].(map[string]any)
		if depth > 3 {
			return []any{}
		}
		return []any{exampleValue(items, depth+1)}
	case "object":
		obj := map[string]any{}
		props, _ := cands[0].schema["properties"].(map[string]any)
		req := requiredSet(cands[0].schema)
		for k, p := range props {
			if req[k] && depth <= 3 {
				sub, _ := p.(map[string]any)
				obj[k] = exampleValue(sub, depth+1)
			}
		}
		return obj
	}
	return "example"
}

// encodeExample writes a call in the given format, with parameters sorted by name.
func encodeExample(format, name string, args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	switch format {
	case "json":
		enc, _ := json.Marshal(map[string]any{"tool": name, "arguments": args})
		b.Write(enc)
	case "xml":
		fmt.Fprintf(&b, "<tool_call name=\"%s\">\n<parameters>\n", html.EscapeString(name))
		for _, k := range keys {
			fmt.Fprintf(&b, "<%s>%s</%s>\n", k, xmlText(args[k]), k)
		}
		b.WriteString("</parameters>\n</tool_call>")
	default:
		fmt.Fprintf(&b, "<tool_action name=\"%s\">\n", html.EscapeString(name))
		for _, k := range keys {
			v := plainText(args[k])
			if strings.Contains(v, `"`) && !strings.Contains(v, "'") {
				fmt.Fprintf(&b, "  <%s value='%s' />\n", k, strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(v))
			} else {
				fmt.Fprintf(&b, "  <%s value=\"%s\" />\n", k, html.EscapeString(v))
			}
		}
		b.WriteString("</tool_action>")
	}
	return b.String()
}

// plainText is a value as text: strings as they are, the rest as JSON.
func plainText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	enc, _ := json.Marshal(v)
	return string(enc)
}

func xmlText(v any) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(plainText(v))
}
