package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"tact/tools"
)

func TestGenerateToolPrompt(t *testing.T) {
	for _, format := range []string{"tool_action", "json", "xml"} {
		p := mustProto(t, format)
		prompt := p.Prompt(testSpecs)
		for _, want := range []string{
			"## vector-search", "## math_factorial", "Search the notes.",
			"- query (string, required)", "- limit (integer, optional)",
			`One of: "add", "sub".`, "object {min?: integer}", "array of string",
			"[Tool result for TOOL_NAME]", "stop and wait",
		} {
			if !strings.Contains(prompt, want) {
				t.Errorf("%s prompt lacks %q:\n%s", format, want, prompt)
			}
		}
		// The worked example is a real call: the detector must read it back.
		start := strings.Index(prompt, "Example, calling vector-search:\n")
		if start < 0 {
			t.Fatalf("%s: no example", format)
		}
		example := prompt[start+len("Example, calling vector-search:\n"):]
		example = example[:strings.Index(example, "\n\n")]
		calls := callsOf(feed(p, testSpecs, []string{example}))
		if len(calls) != 1 || calls[0].Name != "vector-search" || string(calls[0].Arguments) != `{"query":"example"}` {
			t.Errorf("%s example %q parsed as %+v", format, example, calls)
		}
	}
	if got := mustProto(t, "native").Prompt(testSpecs); got != "" {
		t.Errorf("native prompt: %q", got)
	}
	empty := GenerateToolPrompt("tool_action", nil)
	if !strings.Contains(empty, "No tools are available") || !strings.Contains(empty, "answer the user directly") {
		t.Errorf("empty prompt: %q", empty)
	}
}

func TestCoerce(t *testing.T) {
	schema := `{"type":"object","properties":{
		"i":{"type":"integer"},"n":{"type":"number"},"b":{"type":"boolean"},
		"either":{"anyOf":[{"type":"integer"},{"type":"string"}]},
		"strFirst":{"type":["string","integer"]},
		"nullable":{"type":"integer","nullable":true},
		"arr":{"type":"array","items":{"type":"number"}},
		"obj":{"type":"object","properties":{"deep":{"type":"boolean"}}}}}`
	spec := tools.Spec{Name: "t", Parameters: json.RawMessage(schema)}
	d := newDetector(config{triggers: "<", leading: leadKeyed}, newSpecIndex([]tools.Spec{spec}))
	args := map[string]any{
		"i": "5", "n": " 2.50 ", "b": "TRUE", "either": "7", "strFirst": "7", "nullable": "null",
		"arr": `[1, "2"]`, "obj": `{"deep": "false"}`, "unknown": "1",
	}
	c := d.makeCall("", "t", "", args, "")
	want := `{"arr":[1,2],"b":true,"either":7,"i":5,"n":2.50,"nullable":null,"obj":{"deep":false},"strFirst":"7","unknown":"1"}`
	if c.ParseError != "" || string(c.Arguments) != want {
		t.Fatalf("got %s (%q)\nwant %s", c.Arguments, c.ParseError, want)
	}
	bad := d.makeCall("", "t", "", map[string]any{"obj": "{nope"}, "")
	if bad.Arguments != nil || !strings.Contains(bad.ParseError, "obj") {
		t.Fatalf("invalid object text: %+v", bad)
	}
	kept := d.makeCall("", "t", "", map[string]any{"i": "five"}, "")
	if string(kept.Arguments) != `{"i":"five"}` {
		t.Fatalf("a value no type fits is kept for validation: %s", kept.Arguments)
	}
}
