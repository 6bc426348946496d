package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"tact/tools"
)

// specIndex finds a tool's parameter schema by the name a model wrote.
type specIndex struct {
	schemas   map[string]map[string]any // real name → parsed parameter schema (may be nil)
	sanitized map[string]string         // SanitizeName(real) → real, when it differs
}

func newSpecIndex(specs []tools.Spec) *specIndex {
	ix := &specIndex{schemas: make(map[string]map[string]any, len(specs)), sanitized: map[string]string{}}
	for _, s := range specs {
		var schema map[string]any
		if len(s.Parameters) > 0 {
			dec := json.NewDecoder(bytes.NewReader(s.Parameters))
			dec.UseNumber()
			if err := dec.Decode(&schema); err != nil {
				schema = nil
			}
		}
		ix.schemas[s.Name] = schema
		if san := SanitizeName(s.Name); san != s.Name {
			ix.sanitized[san] = s.Name
		}
	}
	return ix
}

// resolve maps the name a model wrote to the tool's real name. Unknown names
// come back as written: the executor answers them with not_found.
func (ix *specIndex) resolve(name string) (string, map[string]any) {
	name = strings.TrimSpace(name)
	if s, ok := ix.schemas[name]; ok {
		return name, s
	}
	if real, ok := ix.sanitized[name]; ok {
		return real, ix.schemas[real]
	}
	return name, nil
}

// makeCall builds a Call from parsed markup: it resolves the name, converts
// the arguments to the schema's types and encodes them as JSON.
func (d *detector) makeCall(id, name, rawArgs string, args any, perr string) tools.Call {
	real, schema := d.specs.resolve(name)
	call := tools.Call{ID: strings.TrimSpace(id), Name: real, RawArguments: rawArgs}
	if call.ID == "" {
		call.ID = newCallID()
	}
	if perr != "" {
		call.ParseError = perr
		return call
	}
	if args == nil {
		args = map[string]any{}
	}
	obj, ok := args.(map[string]any)
	if !ok {
		call.ParseError = fmt.Sprintf("the arguments must be a JSON object, not %s", jsonKind(args))
		return call
	}
	c := coercer{root: schema}
	v, err := c.coerce(schema, obj, "")
	if err != nil {
		call.ParseError = err.Error()
		return call
	}
	enc, err := json.Marshal(v)
	if err != nil {
		call.ParseError = fmt.Sprintf("the arguments cannot be encoded as JSON: %v", err)
		return call
	}
	call.Arguments = enc
	return call
}

// coercer converts values written as text to the types a JSON Schema declares.
type coercer struct {
	root  map[string]any
	depth int
}

// candidate is one type a schema allows, with the subschema that allows it.
type candidate struct {
	typ    string
	schema map[string]any
}

// candidates lists the types a schema allows, in the order it gives them.
func (c *coercer) candidates(s map[string]any) []candidate {
	s = c.deref(s)
	var out []candidate
	add := func(t string) {
		switch t {
		case "dict":
			t = "object"
		case "float", "double":
			t = "number"
		case "tuple", "list":
			t = "array"
		case "bool":
			t = "boolean"
		case "int":
			t = "integer"
		case "str":
			t = "string"
		}
		out = append(out, candidate{t, s})
	}
	switch t := s["type"].(type) {
	case string:
		add(t)
	case []any:
		for _, x := range t {
			if ts, ok := x.(string); ok {
				add(ts)
			}
		}
	}
	if len(out) == 0 {
		if _, ok := s["properties"]; ok {
			add("object")
		} else if _, ok := s["items"]; ok {
			add("array")
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if branches, ok := s[key].([]any); ok && c.depth < 32 {
			c.depth++
			for _, b := range branches {
				if bs, ok := b.(map[string]any); ok {
					out = append(out, c.candidates(bs)...)
				}
			}
			c.depth--
		}
	}
	if n, _ := s["nullable"].(bool); n {
		out = append(out, candidate{"null", s})
	}
	return out
}

// deref follows a local "$ref" ("#/$defs/x") to the schema it names.
func (c *coercer) deref(s map[string]any) map[string]any {
	for range 8 {
		ref, ok := s["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return s
		}
		var cur any = c.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
			if part == "" {
				continue
			}
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			m, _ := cur.(map[string]any)
			cur = m[part]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			return s
		}
		s = next
	}
	return s
}

// coerce converts v to fit schema s. Strings are tried against the allowed
// types in order and the first that fits wins; a value no type fits is kept
// as it is, for validation to report. Only array or object text that is not
// valid JSON is an error.
func (c *coercer) coerce(s map[string]any, v any, path string) (any, error) {
	if s == nil {
		return v, nil
	}
	cands := c.candidates(s)
	if len(cands) == 0 {
		return v, nil
	}
	if _, isString := v.(string); !isString {
		for _, cd := range cands {
			if fitsType(v, cd.typ) {
				return c.descend(cd, v, path)
			}
		}
	}
	var jsonErr error
	for _, cd := range cands {
		out, ok, err := convert(v, cd.typ)
		if err != nil && jsonErr == nil {
			jsonErr = err
		}
		if ok {
			return c.descend(cd, out, path)
		}
	}
	if jsonErr != nil {
		return nil, fmt.Errorf("parameter %s: %w", displayPath(path), jsonErr)
	}
	return v, nil
}

// descend coerces the members of an object or array.
func (c *coercer) descend(cd candidate, v any, path string) (any, error) {
	if c.depth > 64 {
		return v, nil
	}
	c.depth++
	defer func() { c.depth-- }()
	switch x := v.(type) {
	case map[string]any:
		props, _ := cd.schema["properties"].(map[string]any)
		extra, _ := cd.schema["additionalProperties"].(map[string]any)
		for k, val := range x {
			sub, _ := props[k].(map[string]any)
			if sub == nil {
				sub = extra
			}
			nv, err := c.coerce(sub, val, path+"."+k)
			if err != nil {
				return nil, err
			}
			x[k] = nv
		}
	case []any:
		items, _ := cd.schema["items"].(map[string]any)
		tuple, _ := cd.schema["prefixItems"].([]any)
		if t, ok := cd.schema["items"].([]any); ok {
			tuple = t
		}
		for i, val := range x {
			sub := items
			if i < len(tuple) {
				sub, _ = tuple[i].(map[string]any)
			}
			nv, err := c.coerce(sub, val, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			x[i] = nv
		}
	}
	return v, nil
}

// fitsType reports whether v already has JSON type typ.
func fitsType(v any, typ string) bool {
	switch x := v.(type) {
	case string:
		return typ == "string"
	case json.Number:
		if typ == "integer" {
			_, err := strconv.ParseInt(string(x), 10, 64)
			return err == nil
		}
		return typ == "number"
	case bool:
		return typ == "boolean"
	case nil:
		return typ == "null"
	case map[string]any:
		return typ == "object"
	case []any:
		return typ == "array"
	}
	return false
}

// convert tries to turn v into type typ.
func convert(v any, typ string) (any, bool, error) {
	switch x := v.(type) {
	case string:
		return convertString(x, typ)
	case json.Number:
		switch typ {
		case "integer":
			if f, err := x.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return json.Number(strconv.FormatInt(int64(f), 10)), true, nil
			}
		case "string":
			return string(x), true, nil
		}
	case bool:
		if typ == "string" {
			return strconv.FormatBool(x), true, nil
		}
	case map[string]any:
		// <tags><tag>a</tag></tags> in XML: a wrapper element around the items.
		if typ == "array" && len(x) == 1 {
			for _, inner := range x {
				if arr, ok := inner.([]any); ok {
					return arr, true, nil
				}
				return []any{inner}, true, nil
			}
		}
	}
	return nil, false, nil
}

func convertString(s, typ string) (any, bool, error) {
	t := strings.TrimSpace(s)
	switch typ {
	case "string":
		return s, true, nil
	case "integer":
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10)), true, nil
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return json.Number(strconv.FormatInt(int64(f), 10)), true, nil
		}
	case "number":
		if f, err := strconv.ParseFloat(t, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			if json.Valid([]byte(t)) {
				return json.Number(t), true, nil
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true, nil
		}
	case "boolean":
		switch strings.ToLower(t) {
		case "true":
			return true, true, nil
		case "false":
			return false, true, nil
		}
	case "null":
		if t == "" || t == "null" {
			return nil, true, nil
		}
	case "array", "object":
		open := byte('[')
		if typ == "object" {
			open = '{'
		}
		if t == "" || t[0] != open {
			return nil, false, nil
		}
		val, err := decodeJSON(t)
		if err != nil {
			return nil, false, fmt.Errorf("invalid JSON %s %q: %v", typ, clip(t, 60), err)
		}
		return val, true, nil
	}
	return nil, false, nil
}

// decodeJSON decodes exactly one JSON value, keeping numbers as json.Number.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected text after the JSON value")
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case []any:
		return "an array"
	}
	return "an object"
}

func displayPath(path string) string {
	if path == "" {
		return "(arguments)"
	}
	return strings.TrimPrefix(path, ".")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
