package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

func named(name, source string) *testTool {
	return &testTool{spec: Spec{Name: name, Source: source}, fn: func(context.Context, json.RawMessage) (Result, error) {
		return OK(source), nil
	}}
}

func TestRegistryOrderAndDuplicates(t *testing.T) {
	var buf bytes.Buffer
	reg := NewRegistry(slog.New(slog.NewTextHandler(&buf, nil)))
	for _, tl := range []Tool{named("b", "builtin"), named("a", "builtin"), named("c", "mcp:x")} {
		if !reg.Register(tl) {
			t.Fatalf("register %s", tl.Spec().Name)
		}
	}
	if reg.Register(named("a", "mcp:fs")) {
		t.Fatal("duplicate accepted")
	}
	if got := reg.Names(); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Fatalf("order %v", got)
	}
	tl, ok := reg.Get("a")
	if !ok || tl.Spec().Source != "builtin" {
		t.Fatalf("first registration must win, got %+v", tl.Spec())
	}
	if _, ok := reg.Get("zzz"); ok {
		t.Fatal("found a missing tool")
	}
	log := buf.String()
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "builtin") || !strings.Contains(log, "mcp:fs") {
		t.Fatalf("warning must name both sources: %q", log)
	}
	sh := reg.Shadowed()
	if len(sh) != 1 || sh[0] != (Shadowed{Name: "a", Source: "mcp:fs", ShadowedBy: "builtin"}) {
		t.Fatalf("shadowed %+v", sh)
	}
	specs := reg.Specs()
	if len(specs) != 3 || specs[2].Source != "mcp:x" || reg.Len() != 3 {
		t.Fatalf("specs %+v", specs)
	}
	if reg.Register(nil) || reg.Register(named("", "x")) {
		t.Fatal("nil or unnamed tool accepted")
	}
}

func TestSchemaForRequiredAndDescriptions(t *testing.T) {
	type args struct {
		Path  string `json:"path" jsonschema:"file to read"`
		Limit int    `json:"limit,omitempty"`
	}
	var s struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
		Additional *bool                     `json:"additionalProperties"`
	}
	if err := json.Unmarshal(SchemaFor[args](), &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || !slices.Equal(s.Required, []string{"path"}) || s.Properties["path"]["description"] != "file to read" || s.Properties["limit"]["type"] != "integer" {
		t.Fatalf("schema %+v", s)
	}
	if s.Additional == nil || *s.Additional {
		t.Fatalf("additionalProperties should be false: %v", s.Additional)
	}
}

func TestValidatorNonObjectAndBrokenSchema(t *testing.T) {
	v, err := CompileValidator("x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(json.RawMessage(`[1]`)); err == nil {
		t.Fatal("schemaless tool accepted an array")
	}
	if _, err := CompileValidator("bad", json.RawMessage(`{"type": 5}`)); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("broken schema: %v", err)
	}
	// A broken schema does not stop the tool from running.
	tool := named("bad", "mcp:x")
	tool.spec.Parameters = json.RawMessage(`{"type": 5}`)
	e := newExec(t, ExecutorOptions{}, tool)
	if r := e.Execute(context.Background(), Call{Name: "bad", Arguments: json.RawMessage(`{}`)}); !r.Success {
		t.Fatalf("got %+v", r.Error)
	}
}
