package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"tact/tools"
)

var testSpecs = []tools.Spec{
	{Name: "vector-search", Description: "Search the notes.", Parameters: json.RawMessage(
		`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`)},
	{Name: "calculator", Description: "Arithmetic.", Parameters: json.RawMessage(
		`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"operation":{"type":"string","enum":["add","sub"]}},"required":["a","b","operation"]}`)},
	{Name: "math.factorial", Description: "n!", Parameters: json.RawMessage(
		`{"type":"object","properties":{"number":{"type":"integer"},"exact":{"type":"boolean"},"filter":{"type":"object","properties":{"min":{"type":"integer"}}},"tags":{"type":"array","items":{"type":"string"}}},"required":["number"]}`)},
}

func mustProto(t testing.TB, name string) Protocol {
	t.Helper()
	p, err := ForName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// feed runs chunks through a fresh detector and returns copies of all segments.
func feed(p Protocol, specs []tools.Spec, chunks []string) []Segment {
	d := p.NewDetector(specs)
	var out []Segment
	for _, c := range chunks {
		out = append(out, d.Feed(c)...)
	}
	return append(out, d.Flush()...)
}

// reassemble applies the lossless rule: Raw when set, otherwise Text.
func reassemble(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Raw != "" {
			b.WriteString(s.Raw)
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func visible(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Call == nil {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func callsOf(segs []Segment) []tools.Call {
	var out []tools.Call
	for _, s := range segs {
		if s.Call != nil {
			out = append(out, *s.Call)
		}
	}
	return out
}

func canonical(t testing.TB, raw []byte) string {
	t.Helper()
	if raw == nil {
		return "<nil>"
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %q: %v", raw, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// chunkings returns every two-way split of s, a byte-by-byte split and a
// three-way split at every pair of offsets for short inputs.
func chunkings(s string) [][]string {
	var out [][]string
	for k := 0; k <= len(s); k++ {
		out = append(out, []string{s[:k], s[k:]})
	}
	bytewise := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		bytewise[i] = s[i : i+1]
	}
	out = append(out, bytewise)
	if len(s) <= 80 {
		for i := 0; i <= len(s); i++ {
			for j := i; j <= len(s); j += 3 {
				out = append(out, []string{s[:i], s[i:j], s[j:]})
			}
		}
	}
	return out
}

type wantCall struct {
	name, args, parseErr string // args canonical JSON; parseErr a substring
}

var detectCases = []struct {
	name    string
	protos  []string
	in      string
	visible string
	calls   []wantCall
	warn    bool
}{
	{"plain", []string{"native", "tool_action", "json", "xml"}, "Hello, <b>world</b> & 1 < 2 {x} 中文", "Hello, <b>world</b> & 1 < 2 {x} 中文", nil, false},
	{"tool_action", []string{"native", "tool_action", "json", "xml"},
		`思考: 我需要搜索...<tool_action name="vector-search"><query value="读取文件" /><limit value="5" /></tool_action>接下来...`,
		"思考: 我需要搜索...接下来...", []wantCall{{"vector-search", `{"limit":5,"query":"读取文件"}`, ""}}, false},
	{"two tags", []string{"tool_action", "xml"},
		"a<tool_action name=\"calculator\">\n  <a value=\"1.5\"/>\n  <b value=\"2\"/>\n  <operation value=\"add\"/>\n</tool_action>b<tool_action name=\"vector-search\"><query value=\"x\"/></tool_action>c",
		"abc", []wantCall{{"calculator", `{"a":1.5,"b":2,"operation":"add"}`, ""}, {"vector-search", `{"query":"x"}`, ""}}, false},
	{"entities and escaped quotes", []string{"tool_action"},
		`<tool_action name="vector-search"><query value="say &quot;hi&quot; &amp; \"bye\" &#20013;&#x6587; &lt;b&gt;" /></tool_action>`,
		"", []wantCall{{"vector-search", `{"query":"say \"hi\" \u0026 \"bye\" 中文 \u003cb\u003e"}`, ""}}, false},
	{"json text in attributes", []string{"tool_action"},
		`<tool_action name="math.factorial"><number value="5"/><exact value="true"/><filter value="{&quot;min&quot;: 1}"/><tags value='["a","b"]'/></tool_action>`,
		"", []wantCall{{"math.factorial", `{"exact":true,"filter":{"min":1},"number":5,"tags":["a","b"]}`, ""}}, false},
	{"unescaped json in attribute", []string{"tool_action"},
		`<tool_action name="math_factorial"><number value="5"/><filter value="{"min": 2}" /></tool_action>`,
		"", []wantCall{{"math.factorial", `{"filter":{"min":2},"number":5}`, ""}}, false},
	{"invalid json text", []string{"tool_action"},
		`<tool_action name="math.factorial"><number value="5"/><tags value="[1,"/></tool_action>`,
		"", []wantCall{{"math.factorial", "<nil>", "tags"}}, false},
	{"unknown tool kept", []string{"tool_action"},
		`<tool_action name="nope"><x value="1"/></tool_action>`, "", []wantCall{{"nope", `{"x":"1"}`, ""}}, false},
	// A <tool_action> tag without name= (or tool=) is prose, released when its opening tag closes.
	{"no name", []string{"tool_action", "native"}, `<tool_action><x value="1"/></tool_action>`, `<tool_action><x value="1"/></tool_action>`, nil, false},
	{"no name then call", []string{"tool_action", "xml"},
		`Use <tool_action id="1"> tags: <tool_action name="vector-search"><query value="x"/></tool_action>!`,
		`Use <tool_action id="1"> tags: !`, []wantCall{{"vector-search", `{"query":"x"}`, ""}}, false},
	{"broken opening tag keeps name", []string{"tool_action"}, `<tool_action name=calculator =5><a value="1"/></tool_action>`,
		"", []wantCall{{"calculator", "<nil>", "opening tag could not be read"}}, false},
	{"empty name attribute", []string{"tool_action"}, `<tool_action name=""><x value="1"/></tool_action>`, "", []wantCall{{"", "<nil>", "no name"}}, false},
	// Markup inside a code span or fenced block is text.
	{"code span", []string{"native", "tool_action", "json", "xml"},
		"Hermes models wrap calls in a `<tool_call>` tag. Then `<tool_action name=\"x\">` too.",
		"Hermes models wrap calls in a `<tool_call>` tag. Then `<tool_action name=\"x\">` too.", nil, false},
	{"double backtick span", []string{"native", "tool_action", "xml"},
		"``a ` <tool_action name=\"vector-search\"/>`` ok", "``a ` <tool_action name=\"vector-search\"/>`` ok", nil, false},
	{"fenced block", []string{"native", "tool_action", "json", "xml"},
		"Example:\n```go\n<tool_action name=\"calculator\"><a value=\"1\"/></tool_action>\n<tool_call>\n```\nafter <tool_action name=\"vector-search\"><query value=\"x\"/></tool_action>.",
		"Example:\n```go\n<tool_action name=\"calculator\"><a value=\"1\"/></tool_action>\n<tool_call>\n```\nafter .", []wantCall{{"vector-search", `{"query":"x"}`, ""}}, false},
	// In native mode an ```xml fence is documentation too.
	{"xml fence in native mode", []string{"native"},
		"Example:\n```xml\n<tool_action name=\"calculator\"><a value=\"1\"/></tool_action>\n```\n",
		"Example:\n```xml\n<tool_action name=\"calculator\"><a value=\"1\"/></tool_action>\n```\n", nil, false},
	// Text protocols: models often fence their call in ```xml; it runs, the fence stays visible.
	{"call in an xml fence", []string{"tool_action", "json", "xml"},
		"Calling:\n```xml\n<tool_action name=\"vector-search\"><query value=\"x\"/></tool_action>\n```\nafter `<tool_call>` done",
		"Calling:\n```xml\n\n```\nafter `<tool_call>` done", []wantCall{{"vector-search", `{"query":"x"}`, ""}}, false},
	{"stray backtick ends at newline", []string{"native", "tool_action", "xml"},
		"a stray ` tick\n<tool_action name=\"vector-search\"><query value=\"x\"/></tool_action>",
		"a stray ` tick\n", []wantCall{{"vector-search", `{"query":"x"}`, ""}}, false},
	// A bare <tool_call> not followed by {, [ or < is prose.
	{"bare tool_call in prose", []string{"native", "tool_action", "json", "xml"},
		"Hermes models wrap calls in a <tool_call> tag. The rest streams.",
		"Hermes models wrap calls in a <tool_call> tag. The rest streams.", nil, false},
	{"bare tool_call then call", []string{"native", "xml"},
		"A <tool_call>\n tag:\n<tool_call>\n[{\"name\": \"vector-search\", \"arguments\": {\"query\": \"q\"}}]\n</tool_call>",
		"A <tool_call>\n tag:\n", []wantCall{{"vector-search", `{"query":"q"}`, ""}}, false},
	// A closing tag inside a quoted attribute value does not end the call.
	{"close tag in quoted value", []string{"tool_action", "native", "xml"},
		`<tool_action name="vector-search"><query value="</tool_action>" /></tool_action>ok`,
		"ok", []wantCall{{"vector-search", `{"query":"\u003c/tool_action\u003e"}`, ""}}, false},
	{"close tag in single-quoted value", []string{"xml"},
		`<tool_call name="vector-search"><parameters><query value='a </tool_call> b'/></parameters></tool_call>`,
		"", []wantCall{{"vector-search", `{"query":"a \u003c/tool_call\u003e b"}`, ""}}, false},
	{"xml", []string{"xml", "tool_action", "json", "native"},
		"Let me add.\n<tool_call id=\"call_1\" name=\"calculator\">\n  <parameters>\n    <a>10</a>\n    <b>5</b>\n    <operation>add</operation>\n  </parameters>\n</tool_call>\nDone.",
		"Let me add.\n\nDone.", []wantCall{{"calculator", `{"a":10,"b":5,"operation":"add"}`, ""}}, false},
	{"xml unescaped text", []string{"xml"},
		`<tool_call name="vector-search"><parameters><query>1 < 2 && a<b</query><limit>3</limit></parameters></tool_call>`,
		"", []wantCall{{"vector-search", `{"limit":3,"query":"1 \u003c 2 \u0026\u0026 a\u003cb"}`, ""}}, false},
	{"xml nested", []string{"xml"},
		`<tool_call name="math.factorial"><parameters><number>4</number><filter><min>2</min></filter><tags><tag>x</tag><tag>y &amp; z</tag></tags></parameters></tool_call>`,
		"", []wantCall{{"math.factorial", `{"filter":{"min":2},"number":4,"tags":["x","y \u0026 z"]}`, ""}}, false},
	{"hermes", []string{"native", "tool_action", "json", "xml"},
		"<tool_call>\n{\"name\": \"vector-search\", \"arguments\": {\"query\": \"q\", \"limit\": \"7\"}}\n</tool_call>",
		"", []wantCall{{"vector-search", `{"limit":7,"query":"q"}`, ""}}, false},
	{"hermes broken json", []string{"xml"},
		"<tool_call>{\"name\": \"vector-search\", \"arguments\": {\"query\": }}</tool_call>",
		"", []wantCall{{"vector-search", "<nil>", "not valid JSON"}}, false},
	{"json decision", []string{"json"},
		` {"tool": "calculator", "arguments": {"a": 1, "b": "2", "operation": "sub"}}`,
		" ", []wantCall{{"calculator", `{"a":1,"b":2,"operation":"sub"}`, ""}}, false},
	{"json reply", []string{"json"}, `{"tool": null, "reply": "It is 4 {ok}."}`, "It is 4 {ok}.", nil, false},
	{"json fence", []string{"json"},
		"Sure.\n```json\n{\"tool\": \"vector-search\", \"parameters\": {\"query\": \"a\"}}\n```\nthen",
		"Sure.\n\nthen", []wantCall{{"vector-search", `{"query":"a"}`, ""}}, false},
	{"json tool_calls", []string{"json"},
		`{"tool_calls": [{"id": "c1", "name": "calculator", "parameters": {"a": 10, "b": 5, "operation": "add"}}, {"name": "vector-search", "parameters": {"query": "z"}}]}`,
		"", []wantCall{{"calculator", `{"a":10,"b":5,"operation":"add"}`, ""}, {"vector-search", `{"query":"z"}`, ""}}, false},
	{"json prose braces", []string{"json"}, "Use {x} and ```go\nfunc(){}\n``` ok", "Use {x} and ```go\nfunc(){}\n``` ok", nil, false},
	{"json object not a decision", []string{"json"}, `{"answer": 4} is it`, `{"answer": 4} is it`, nil, false},
	{"native leading name", []string{"native", "tool_action"},
		`{"name": "calculator", "arguments": {"a": 1, "b": 2, "operation": "add"}}`,
		"", []wantCall{{"calculator", `{"a":1,"b":2,"operation":"add"}`, ""}}, false},
	{"native leading other json", []string{"native"}, `{"names": 1} text`, `{"names": 1} text`, nil, false},
	{"unclosed", []string{"native", "tool_action", "json", "xml"},
		`text <tool_action name="vector-search"><query value="x"/>`, `text <tool_action name="vector-search"><query value="x"/>`, nil, true},
	{"near misses", []string{"tool_action", "xml", "native"}, "<tool <tool_actions> <tool_callx> <tool_ac", "<tool <tool_actions> <tool_callx> <tool_ac", nil, false},
	{"self closing", []string{"tool_action"}, `<tool_action name="vector-search" />.`, ".", []wantCall{{"vector-search", `{}`, ""}}, false},
}

func TestDetectorTable(t *testing.T) {
	for _, tc := range detectCases {
		for _, pname := range tc.protos {
			p := mustProto(t, pname)
			t.Run(tc.name+"/"+pname, func(t *testing.T) {
				for _, chunks := range chunkings(tc.in) {
					segs := feed(p, testSpecs, chunks)
					if got := reassemble(segs); got != tc.in {
						t.Fatalf("chunks %q: not lossless:\n got %q\nwant %q", chunks, got, tc.in)
					}
					if got := visible(segs); got != tc.visible {
						t.Fatalf("chunks %q: visible text %q, want %q", chunks, got, tc.visible)
					}
					warned := false
					for _, s := range segs {
						warned = warned || s.Warning != ""
						if s.Call == nil && s.Raw == "" && !utf8.ValidString(s.Text) {
							t.Fatalf("chunks %q: text segment %q is not valid UTF-8", chunks, s.Text)
						}
					}
					if warned != tc.warn {
						t.Fatalf("chunks %q: warning %v, want %v (%+v)", chunks, warned, tc.warn, segs)
					}
					calls := callsOf(segs)
					if len(calls) != len(tc.calls) {
						t.Fatalf("chunks %q: %d calls, want %d: %+v", chunks, len(calls), len(tc.calls), calls)
					}
					for i, w := range tc.calls {
						c := calls[i]
						if c.Name != w.name || canonical(t, c.Arguments) != w.args {
							t.Fatalf("chunks %q: call %d = %s %s (err %q), want %s %s", chunks, i, c.Name, c.Arguments, c.ParseError, w.name, w.args)
						}
						if (w.parseErr == "") != (c.ParseError == "") || !strings.Contains(c.ParseError, w.parseErr) {
							t.Fatalf("chunks %q: call %d parse error %q, want one containing %q", chunks, i, c.ParseError, w.parseErr)
						}
						if c.ID == "" {
							t.Fatalf("call %d has no ID", i)
						}
					}
				}
			})
		}
	}
}

// TestSeedExample is seed 001's cross-chunk scenario: the text before the tag
// comes out at once, the call when the tag closes, and the rest after it.
func TestSeedExample(t *testing.T) {
	d := mustProto(t, "tool_action").NewDetector(testSpecs)
	got := d.Feed(`思考: 我需要搜索...<tool_action name="`)
	if len(got) != 1 || got[0].Text != "思考: 我需要搜索..." {
		t.Fatalf("first chunk: %+v", got)
	}
	if got := d.Feed(`vector-search"><query value="test"`); len(got) != 0 {
		t.Fatalf("second chunk should be held: %+v", got)
	}
	got = d.Feed(`" /></tool_action>接下来...`)
	if len(got) != 2 || got[0].Call == nil || got[1].Text != "接下来..." {
		t.Fatalf("third chunk: %+v", got)
	}
	c := got[0].Call
	if c.Name != "vector-search" || string(c.Arguments) != `{"query":"test"}` || !strings.HasPrefix(c.ID, "call_") {
		t.Fatalf("call: %+v", c)
	}
	// The seed's chunks, joined, hold a doubled quote (value="test""); it is tolerated.
	if got[0].Raw != `<tool_action name="vector-search"><query value="test"" /></tool_action>` {
		t.Fatalf("raw: %q", got[0].Raw)
	}
	if got := d.Flush(); len(got) != 0 {
		t.Fatalf("flush: %+v", got)
	}
}

// TestHoldOnlyPossibleMarkers checks what is held back and when it is released.
func TestHoldOnlyPossibleMarkers(t *testing.T) {
	cases := []struct {
		proto, chunk, out string
	}{
		{"tool_action", "abc <tool_", "abc "},
		{"tool_action", "abc <b", "abc <b"},
		{"tool_action", "abc <", "abc "},
		{"tool_action", "x {\"name\"", "x {\"name\""},
		{"native", "{\"na", ""},
		{"native", "{\"nb", "{\"nb"},
		{"native", "  {\"name\": 1", "  "},
		{"json", "text ``", "text "},
		{"json", "text ```py", "text ```py"},
		{"json", "{", ""},
		{"tool_action", "中\xe6\x96", "中"},
	}
	for _, c := range cases {
		d := mustProto(t, c.proto).NewDetector(nil)
		if got := visible(d.Feed(c.chunk)); got != c.out {
			t.Errorf("%s: Feed(%q) gave %q, want %q", c.proto, c.chunk, got, c.out)
		}
	}
	d := mustProto(t, "tool_action").NewDetector(nil)
	d.Feed("a <tool_ac")
	if got := visible(d.Feed("cent")); got != "<tool_accent" {
		t.Errorf("held prefix not released: %q", got)
	}
}

func TestMidRuneSplits(t *testing.T) {
	in := "日本語テキスト🙂 и ещё <tool_action name=\"vector-search\"><query value=\"中文🙂\"/></tool_action>终"
	for _, pname := range []string{"native", "tool_action", "json", "xml"} {
		p := mustProto(t, pname)
		for _, chunks := range chunkings(in) {
			d := p.NewDetector(testSpecs)
			var all []Segment
			for _, c := range chunks {
				segs := d.Feed(c)
				for _, s := range segs {
					if s.Call == nil && !utf8.ValidString(s.Text) {
						t.Fatalf("%s %q: half a character in %q", pname, chunks, s.Text)
					}
				}
				all = append(all, segs...)
			}
			all = append(all, d.Flush()...)
			if reassemble(all) != in {
				t.Fatalf("%s %q: not lossless", pname, chunks)
			}
		}
	}
}

func TestUnclosedWarning(t *testing.T) {
	segs := feed(mustProto(t, "xml"), testSpecs, []string{"ok <tool_call name=\"calculator\"><parameters><a>1"})
	last := segs[len(segs)-1]
	if last.Call != nil || !strings.Contains(last.Warning, "incomplete tool call") || !strings.Contains(last.Warning, "was not run") {
		t.Fatalf("unclosed tag: %+v", segs)
	}
}

// TestLinearScan feeds a 1 MiB tag body byte by byte and checks, with the
// detector's own counter, that each byte was examined a bounded number of times.
func TestLinearScan(t *testing.T) {
	body := strings.Repeat("abcdefghij<>/\"'", 1<<20/15)
	for _, open := range []string{`<tool_action name="vector-search"><query value="`, `<tool_call>{"name": "vector-search", "arguments": {"query": "`} {
		in := open + body
		d := newDetector(config{triggers: "<", leading: leadKeyed}, newSpecIndex(testSpecs))
		d.maxCapture = len(in) + 1
		for i := 0; i < len(in); i++ {
			if segs := d.Feed(in[i : i+1]); i > len(open) && len(segs) != 0 {
				t.Fatalf("unexpected output at %d: %+v", i, segs)
			}
		}
		// Every byte once, plus at most the closing tag's length of overlap per Feed.
		if limit := len(in) + len("</tool_action>")*len(in); d.scanned > limit {
			t.Fatalf("scanned %d bytes for %d bytes of input: not linear", d.scanned, len(in))
		}
	}
	in := `{"tool": "vector-search", "arguments": {"query": "` + strings.Repeat(`x\"{[`, 1<<18) + `"}}`
	d := newDetector(config{triggers: "<`", leading: leadAny}, newSpecIndex(testSpecs))
	d.maxCapture = len(in) + 1
	var segs []Segment
	for i := 0; i < len(in); i++ {
		segs = append(segs, d.Feed(in[i:i+1])...)
	}
	if d.scanned > 2*len(in) || len(callsOf(segs)) != 1 {
		t.Fatalf("json: scanned %d for %d bytes, %d calls", d.scanned, len(in), len(callsOf(segs)))
	}
}

func TestForName(t *testing.T) {
	for _, n := range Names {
		p, err := ForName(n)
		if err != nil || p.Name() != n || p.Native() != (n == "native") {
			t.Fatalf("ForName(%q) = %v, %v", n, p, err)
		}
	}
	if _, err := ForName("yaml"); err == nil || !strings.Contains(err.Error(), "tool_action") {
		t.Fatalf("unknown protocol error: %v", err)
	}
}

func TestResultMessage(t *testing.T) {
	p := mustProto(t, "json")
	c := tools.Call{Name: "calculator"}
	if got := p.ResultMessage(c, tools.OK("15")); got != "[Tool result for calculator]\n15" {
		t.Fatalf("ok: %q", got)
	}
	got := p.ResultMessage(c, tools.Fail(tools.KindInvalidParameters, "a is required"))
	if got != "[Tool result for calculator]\nerror (invalid_parameters): a is required" {
		t.Fatalf("error: %q", got)
	}
}

func TestSanitizeName(t *testing.T) {
	cases := map[string]string{
		"math.factorial": "math_factorial", "ok-name_1": "ok-name_1", "a b/c": "a_b_c", "中文": "__",
		strings.Repeat("x", 70): strings.Repeat("x", 64),
	}
	for in, want := range cases {
		if got := SanitizeName(in); got != want {
			t.Errorf("SanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnclosedParameterIsAParseError: a parameter element whose closing tag
// is missing must not become an empty value (a write_file call would empty
// the file); the call carries a ParseError naming the element instead.
func TestUnclosedParameterIsAParseError(t *testing.T) {
	for _, tc := range []struct{ proto, in string }{
		{"xml", `<tool_call id="c1" name="write_file"><parameters><path>notes.txt</path><content>important notes
line 2</parameters></tool_call>`},
		{"tool_action", `<tool_action name="write_file"><path value="notes.txt" /><content>important notes</tool_action>`},
	} {
		calls := callsOf(feed(mustProto(t, tc.proto), testSpecs, []string{tc.in}))
		if len(calls) != 1 {
			t.Fatalf("%s: %d calls, want 1", tc.proto, len(calls))
		}
		c := calls[0]
		if c.ParseError == "" || !strings.Contains(c.ParseError, "<content>") || c.Arguments != nil {
			t.Errorf("%s: call = %+v, want a ParseError naming <content> and no arguments", tc.proto, c)
		}
	}
	// A value attribute without a closing tag is still fine.
	calls := callsOf(feed(mustProto(t, "tool_action"), testSpecs, []string{`<tool_action name="calculator"><a value="1"><b value="2"><operation value="add"></tool_action>`}))
	if len(calls) != 1 || calls[0].ParseError != "" {
		t.Fatalf("value attributes without closing tags: %+v", calls)
	}
}

// TestCaptureCap: markup that passes maxCapture without closing is shown as
// text with a warning, and a call after it is still found, for every chunking.
func TestCaptureCap(t *testing.T) {
	in := `<tool_call>{"name": "calculator", "arguments": {"a": "` + strings.Repeat("x", 150) +
		` and then <tool_action name="vector-search"><query value="q"/></tool_action> end`
	for _, chunks := range chunkings(in) {
		d := newDetector(config{triggers: "<", leading: leadKeyed}, newSpecIndex(testSpecs))
		d.maxCapture = 100
		var segs []Segment
		for _, c := range chunks {
			segs = append(segs, d.Feed(c)...)
		}
		segs = append(segs, d.Flush()...)
		if got := reassemble(segs); got != in {
			t.Fatalf("chunks %q: not lossless: %q", chunks, got)
		}
		warnings := 0
		for _, s := range segs {
			if s.Warning != "" {
				warnings++
				if !strings.Contains(s.Warning, "was not run") || len(s.Text) > 100 {
					t.Fatalf("chunks %q: warning segment %+v", chunks, s)
				}
			}
		}
		calls := callsOf(segs)
		if warnings != 1 || len(calls) != 1 || calls[0].Name != "vector-search" {
			t.Fatalf("chunks %q: %d warnings, calls %+v", chunks, warnings, calls)
		}
	}
}

// TestUnclosedQuoteFallsBack: when a quoted value never closes, the closing
// tag seen inside it ends the call at the end of the stream (as before
// quoted values were skipped), instead of losing the call.
func TestUnclosedQuoteFallsBack(t *testing.T) {
	in := `<tool_action name="vector-search"><query value="abc /></tool_action> tail`
	for _, chunks := range chunkings(in) {
		segs := feed(mustProto(t, "tool_action"), testSpecs, chunks)
		if got := reassemble(segs); got != in {
			t.Fatalf("chunks %q: not lossless: %q", chunks, got)
		}
		calls := callsOf(segs)
		if len(calls) != 1 || calls[0].Name != "vector-search" || visible(segs) != " tail" {
			t.Fatalf("chunks %q: segments %+v", chunks, segs)
		}
	}
}

// TestProseMentionStreams: the text after a prose mention of <tool_call>
// comes out as it arrives, not at the end of the stream.
func TestProseMentionStreams(t *testing.T) {
	for _, in := range []string{"wrap calls in a <tool_call> tag", "wrap calls in a `<tool_call>` tag", "use <tool_action> tags"} {
		d := mustProto(t, "native").NewDetector(testSpecs)
		got := visible(d.Feed(in)) + visible(d.Feed(". More text"))
		if got != in+". More text" {
			t.Errorf("%q: streamed %q before Flush", in, got)
		}
	}
}
