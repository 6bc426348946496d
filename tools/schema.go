package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	gschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaFor returns the JSON Schema of the Go struct T, generated with
// github.com/google/jsonschema-go. Field names come from `json` tags, a field
// is required unless tagged omitempty/omitzero, and a `jsonschema:"..."` tag
// becomes the field's description.
//
// SchemaFor panics when T cannot be described (a programming error in a tool
// definition, found by the first test that builds the tool).
func SchemaFor[T any]() json.RawMessage {
	return SchemaForWith[T](nil)
}

// SchemaForWith is SchemaFor with a hook that may adjust the generated schema
// before it is marshalled, e.g. to set an enum with [SetEnum].
func SchemaForWith[T any](edit func(*gschema.Schema)) json.RawMessage {
	s, err := gschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tools.SchemaFor: %v", err))
	}
	if edit != nil {
		edit(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools.SchemaFor: marshal: %v", err))
	}
	return b
}

// SetEnum restricts property prop of the object schema s to values.
// It panics when s has no such property.
func SetEnum(s *gschema.Schema, prop string, values ...any) {
	p, ok := s.Properties[prop]
	if !ok {
		panic(fmt.Sprintf("tools.SetEnum: schema has no property %q", prop))
	}
	p.Enum = values
}

// Validator checks tool arguments against one compiled JSON Schema.
type Validator struct {
	tool   string
	schema *jsonschema.Schema
}

// CompileValidator compiles the parameter schema of the named tool.
// An empty schema yields a Validator that accepts any JSON object.
func CompileValidator(tool string, schema json.RawMessage) (*Validator, error) {
	v := &Validator{tool: tool}
	if len(bytes.TrimSpace(schema)) == 0 {
		return v, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("parameter schema of tool %s is not valid JSON: %w", tool, err)
	}
	c := jsonschema.NewCompiler()
	url := "tact://tools/" + tool + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("parameter schema of tool %s: %w", tool, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("parameter schema of tool %s does not compile: %w", tool, err)
	}
	v.schema = s
	return v, nil
}

// Validate checks args (a JSON value; empty means {}). The error message
// starts with "invalid arguments for TOOL:" and lists each bad field by JSON
// pointer with what is wrong, e.g. "/a: got string, want number".
func (v *Validator) Validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("invalid arguments for %s: not valid JSON: %w", v.tool, err)
	}
	if v.schema == nil {
		if _, ok := inst.(map[string]any); !ok {
			return fmt.Errorf("invalid arguments for %s: arguments must be a JSON object", v.tool)
		}
		return nil
	}
	err = v.schema.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("invalid arguments for %s: %w", v.tool, err)
	}
	return errors.New("invalid arguments for " + v.tool + ": " + strings.Join(problems(ve), "; "))
}

var printer = message.NewPrinter(language.English)

// problems flattens the leaves of a validation error tree into sorted,
// de-duplicated "pointer: message" strings.
func problems(ve *jsonschema.ValidationError) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		for _, p := range describe(e) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, tok := range loc {
		tok = strings.ReplaceAll(tok, "~", "~0")
		tok = strings.ReplaceAll(tok, "/", "~1")
		sb.WriteString("/" + tok)
	}
	return sb.String()
}

func describe(e *jsonschema.ValidationError) []string {
	at := pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]string, len(k.Missing))
		base := strings.TrimSuffix(at, "/")
		for i, m := range k.Missing {
			out[i] = base + "/" + m + ": required, but missing"
		}
		return out
	case *kind.Enum:
		vals := make([]string, len(k.Want))
		for i, w := range k.Want {
			b, _ := json.Marshal(w)
			vals[i] = string(b)
		}
		return []string{at + ": value must be one of " + strings.Join(vals, ", ")}
	case *kind.AdditionalProperties:
		out := make([]string, len(k.Properties))
		base := strings.TrimSuffix(at, "/")
		for i, p := range k.Properties {
			out[i] = base + "/" + p + ": unknown property, not allowed"
		}
		return out
	default:
		return []string{at + ": " + e.ErrorKind.LocalizedString(printer)}
	}
}

// validatorCache keeps one compiled Validator per tool name and schema text.
type validatorCache struct {
	mu sync.Mutex
	m  map[string]validatorEntry
}

type validatorEntry struct {
	v   *Validator
	err error
}

func (c *validatorCache) get(tool string, schema json.RawMessage) (*Validator, error) {
	key := tool + "\x00" + string(schema)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		return e.v, e.err
	}
	if c.m == nil {
		c.m = map[string]validatorEntry{}
	}
	v, err := CompileValidator(tool, schema)
	c.m[key] = validatorEntry{v, err}
	return v, err
}
