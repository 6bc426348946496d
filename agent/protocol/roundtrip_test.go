package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"tact/tools"
)

// schemaCase is a tool and the arguments a model means to pass it.
type schemaCase struct {
	Spec tools.Spec     `json:"spec"`
	Args map[string]any `json:"args"`
}

// encoders write a call the way a model would in each format (test-only,
// independent of the prompt's example writer).
var encoders = map[string]func(name string, args, schema map[string]any) string{
	"tool_action": func(name string, args map[string]any, _ map[string]any) string {
		var b strings.Builder
		fmt.Fprintf(&b, "<tool_action name=\"%s\">\n", name)
		for _, k := range sortedKeys(args) {
			fmt.Fprintf(&b, "  <%s value=\"%s\" />\n", k, attrEscape(asText(args[k])))
		}
		b.WriteString("</tool_action>")
		return b.String()
	},
	"xml": func(name string, args map[string]any, schema map[string]any) string {
		var b strings.Builder
		fmt.Fprintf(&b, "<tool_call id=\"call_x1\" name=\"%s\">\n<parameters>\n", name)
		for _, k := range sortedKeys(args) {
			fmt.Fprintf(&b, "<%s>%s</%s>\n", k, xmlElementText(args[k], propSchema(schema, k)), k)
		}
		b.WriteString("</parameters>\n</tool_call>")
		return b.String()
	},
	"json": func(name string, args map[string]any, _ map[string]any) string {
		enc, _ := json.Marshal(map[string]any{"tool": name, "arguments": args})
		return string(enc)
	},
	"native": func(name string, args map[string]any, _ map[string]any) string {
		enc, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
		return string(enc)
	},
	"hermes": func(name string, args map[string]any, _ map[string]any) string {
		enc, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
		return "<tool_call>\n" + string(enc) + "\n</tool_call>"
	},
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func asText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	enc, _ := json.Marshal(v)
	return string(enc)
}

func attrEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", `"`, "&quot;").Replace(s)
}

// xmlElementText writes a value as element content: objects and non-empty
// arrays as nested elements where the schema describes their members (as JSON
// text otherwise, since bare elements carry no types), strings escaped (CDATA
// when whitespace around them matters), the rest as plain text.
func xmlElementText(v any, schema map[string]any) string {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) != x && !strings.Contains(x, "]]>") {
			return "<![CDATA[" + x + "]]>"
		}
		return strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(x)
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if len(x) == 0 || props == nil {
			return xmlEscape(asText(x))
		}
		var b strings.Builder
		for _, k := range sortedKeys(x) {
			fmt.Fprintf(&b, "<%s>%s</%s>", k, xmlElementText(x[k], propSchema(schema, k)), k)
		}
		return b.String()
	case []any:
		items, _ := schema["items"].(map[string]any)
		if len(x) == 0 || items == nil {
			return xmlEscape(asText(x))
		}
		var b strings.Builder
		for _, item := range x {
			fmt.Fprintf(&b, "<item>%s</item>", xmlElementText(item, items))
		}
		return b.String()
	}
	return xmlEscape(asText(v))
}

func xmlEscape(s string) string { return strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(s) }

// propSchema is the schema of property k (resolving a local $ref), or nil.
func propSchema(schema map[string]any, k string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	p, _ := props[k].(map[string]any)
	c := coercer{root: schema}
	return c.deref(p)
}

func loadHandwritten(t *testing.T) []schemaCase {
	data, err := os.ReadFile(filepath.Join("testdata", "schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []schemaCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// bfclDir is the shared BFCL sample (see its README); a fresh clone has none.
const bfclDir = "../../../shared/bfcl"

// loadBFCL picks about 15 function schemas from the BFCL sample that cover
// dotted names, nested objects, arrays, enums and optional parameters, with
// the first acceptable ground-truth value of each parameter as the intended
// arguments.
func loadBFCL(t *testing.T) []schemaCase {
	var out []schemaCase
	covered := map[string]int{}
	for _, file := range []string{"BFCL_v4_simple_python", "BFCL_v4_live_simple", "BFCL_v4_multiple"} {
		answers := map[string][]map[string]map[string][]any{}
		forLines(t, filepath.Join(bfclDir, file+".answers.json"), func(line []byte) {
			var a struct {
				ID          string                        `json:"id"`
				GroundTruth []map[string]map[string][]any `json:"ground_truth"`
			}
			if json.Unmarshal(line, &a) == nil {
				answers[a.ID] = a.GroundTruth
			}
		})
		forLines(t, filepath.Join(bfclDir, file+".json"), func(line []byte) {
			var q struct {
				ID       string `json:"id"`
				Function []struct {
					Name        string         `json:"name"`
					Description string         `json:"description"`
					Parameters  map[string]any `json:"parameters"`
				} `json:"function"`
			}
			if json.Unmarshal(line, &q) != nil || len(answers[q.ID]) != 1 || len(out) >= 15 {
				return
			}
			for fname, params := range answers[q.ID][0] {
				for _, f := range q.Function {
					if f.Name != fname {
						continue
					}
					schema := bfclToJSONSchema(f.Parameters).(map[string]any)
					feats := features(f.Name, schema)
					useful := false
					for _, ft := range feats {
						useful = useful || covered[ft] < 3
					}
					if !useful {
						continue
					}
					args := map[string]any{}
					for p, vals := range params {
						for _, v := range vals {
							if s, ok := v.(string); !ok || s != "" {
								args[p] = v
								break
							}
						}
					}
					raw, _ := json.Marshal(schema)
					c := schemaCase{Spec: tools.Spec{Name: f.Name, Description: f.Description, Parameters: raw}, Args: args}
					if validate(t, c.Spec, mustJSON(args)) != nil {
						continue // a ground truth that does not fit its own schema
					}
					for _, ft := range feats {
						covered[ft]++
					}
					out = append(out, c)
				}
			}
		})
	}
	t.Logf("BFCL cases: %d, features covered: %v", len(out), covered)
	return out
}

func forLines(t *testing.T, path string, fn func([]byte)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fn(sc.Bytes())
	}
}

// bfclToJSONSchema maps BFCL's Python-flavoured types to JSON Schema.
func bfclToJSONSchema(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			out[k] = bfclToJSONSchema(val)
		}
		switch x["type"] {
		case "dict":
			out["type"] = "object"
		case "float":
			out["type"] = "number"
		case "tuple":
			out["type"] = "array"
		case "any":
			delete(out, "type")
		}
		delete(out, "optional")
		if _, ok := out["required"].([]any); !ok {
			delete(out, "required")
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = bfclToJSONSchema(x[i])
		}
		return out
	}
	return v
}

func features(name string, schema map[string]any) []string {
	var feats []string
	if strings.ContainsAny(name, ".") {
		feats = append(feats, "dotted")
	}
	props, _ := schema["properties"].(map[string]any)
	req := requiredSet(schema)
	for k, p := range props {
		ps, _ := p.(map[string]any)
		switch ps["type"] {
		case "object":
			feats = append(feats, "nested")
		case "array":
			feats = append(feats, "array")
		}
		if _, ok := ps["enum"]; ok {
			feats = append(feats, "enum")
		}
		if !req[k] {
			feats = append(feats, "optional")
		}
	}
	return feats
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func validate(t *testing.T, spec tools.Spec, args []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.Parameters))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		return err
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// TestSchemaRoundTrip: prompt → a call written in each format → detected
// (in hostile chunks) → coerced → validated → equal to the intended arguments.
func TestSchemaRoundTrip(t *testing.T) {
	cases := loadHandwritten(t)
	if _, err := os.Stat(bfclDir); err == nil {
		bfcl := loadBFCL(t)
		if len(bfcl) < 10 {
			t.Fatalf("only %d BFCL cases selected", len(bfcl))
		}
		cases = append(cases, bfcl...)
	} else {
		t.Logf("no BFCL sample at %s: only the hand-written schemas run", bfclDir)
	}
	formats := map[string]string{"tool_action": "tool_action", "xml": "xml", "json": "json", "native": "native", "hermes": "tool_action"}
	for _, c := range cases {
		if err := validate(t, c.Spec, mustJSON(c.Args)); err != nil {
			t.Fatalf("%s: intended arguments do not fit the schema: %v", c.Spec.Name, err)
		}
		for format, pname := range formats {
			p := mustProto(t, pname)
			t.Run(c.Spec.Name+"/"+format, func(t *testing.T) {
				name := SanitizeName(c.Spec.Name)
				if prompt := p.Prompt([]tools.Spec{c.Spec}); !p.Native() && !strings.Contains(prompt, "## "+name+"\n") {
					t.Fatalf("prompt does not list %s:\n%s", name, prompt)
				}
				var schema map[string]any
				_ = json.Unmarshal(c.Spec.Parameters, &schema)
				call := encoders[format](name, c.Args, schema)
				in := call + "\nDone."
				if format != "json" && format != "native" {
					in = "I will call it.\n" + in
				}
				for _, chunks := range [][]string{{in}, splitN(in, 7), splitN(in, 1)} {
					segs := feed(p, []tools.Spec{c.Spec}, chunks)
					calls := callsOf(segs)
					if len(calls) != 1 {
						t.Fatalf("%d calls in %q: %+v", len(calls), in, segs)
					}
					got := calls[0]
					if got.Name != c.Spec.Name || got.ParseError != "" {
						t.Fatalf("call %q (parse error %q), want %q\ninput: %s", got.Name, got.ParseError, c.Spec.Name, in)
					}
					if err := validate(t, c.Spec, got.Arguments); err != nil {
						t.Fatalf("arguments %s do not validate: %v\ninput: %s", got.Arguments, err, in)
					}
					if g, w := canonical(t, got.Arguments), canonical(t, mustJSON(c.Args)); g != w {
						t.Fatalf("arguments\n got %s\nwant %s\ninput: %s", g, w, in)
					}
					if reassemble(segs) != in || !strings.HasSuffix(visible(segs), "Done.") {
						t.Fatalf("text around the call lost: %+v", segs)
					}
				}
			})
		}
	}
}

func splitN(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
