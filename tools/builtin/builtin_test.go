package builtin

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"tact/tools"
)

// harness runs the builtin tools through a real Executor, so schemas and
// validation are exercised as in tact.
type harness struct {
	t    *testing.T
	ws   string
	exec *tools.Executor
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	if opts.Workdir == "" {
		opts.Workdir = t.TempDir()
	}
	reg := tools.NewRegistry(nil)
	for _, tl := range New(opts) {
		if !reg.Register(tl) {
			t.Fatalf("duplicate builtin %s", tl.Spec().Name)
		}
	}
	return &harness{t: t, ws: opts.Workdir, exec: tools.NewExecutor(reg, tools.ExecutorOptions{DefaultTimeout: 5 * time.Second})}
}

func (h *harness) call(name string, args any) tools.Result {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.exec.Execute(context.Background(), tools.Call{ID: "c", Name: name, Arguments: raw})
}

func (h *harness) ok(name string, args any) string {
	h.t.Helper()
	r := h.call(name, args)
	if !r.Success {
		h.t.Fatalf("%s(%v) failed: %+v", name, args, r.Error)
	}
	return r.Output
}

func (h *harness) fail(name string, args any, kind tools.ErrorKind, msgPart string) tools.Result {
	h.t.Helper()
	r := h.call(name, args)
	if r.Success || r.Error == nil || r.Error.Kind != kind || !strings.Contains(r.Error.Message, msgPart) {
		h.t.Fatalf("%s(%v): want %s containing %q, got %+v %+v", name, args, kind, msgPart, r, r.Error)
	}
	return r
}

func TestNewToolSetAndAnnotations(t *testing.T) {
	list := New(Options{Workdir: t.TempDir()})
	var names []string
	for _, tl := range list {
		s := tl.Spec()
		names = append(names, s.Name)
		if s.Source != Source || s.Description == "" || !json.Valid(s.Parameters) {
			t.Errorf("bad spec %+v", s)
		}
		wantDestructive := s.Name == "write_file" || s.Name == "edit_file" || s.Name == "shell"
		if s.Annotations.Destructive != wantDestructive || s.Annotations.ReadOnly == wantDestructive {
			t.Errorf("%s annotations %+v", s.Name, s.Annotations)
		}
	}
	want := []string{"calculator", "current_time", "read_file", "list_dir", "write_file", "edit_file", "search_files", "shell", "http_fetch"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}

func TestCalculator(t *testing.T) {
	h := newHarness(t, Options{})
	for _, c := range []struct {
		a, b float64
		op   string
		want string
	}{
		{15, 23, "mul", "345"}, {1, 2, "div", "0.5"}, {2, 3.25, "add", "5.25"}, {1, 4, "sub", "-3"},
		{1e20, 100, "mul", "1e+22"}, {1234567, 1, "mul", "1234567"},
	} {
		if got := h.ok("calculator", map[string]any{"a": c.a, "b": c.b, "operation": c.op}); got != c.want {
			t.Errorf("%v %s %v = %q, want %q", c.a, c.op, c.b, got, c.want)
		}
	}
	h.fail("calculator", map[string]any{"a": 1, "b": 0, "operation": "div"}, tools.KindExecutionFailed, "division by zero")
	r := h.fail("calculator", map[string]any{"a": "1", "b": 2, "operation": "pow"}, tools.KindInvalidParameters, "/a: got string, want number")
	if !strings.Contains(r.Error.Message, `/operation: value must be one of "add", "sub", "mul", "div"`) {
		t.Fatalf("enum problem missing: %q", r.Error.Message)
	}
}

func TestCalculatorSchemaExact(t *testing.T) {
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(calculatorTool().Spec().Parameters, &s); err != nil {
		t.Fatal(err)
	}
	var props []string
	for k := range s.Properties {
		props = append(props, k)
	}
	slices.Sort(props)
	if s.Type != "object" || !slices.Equal(props, []string{"a", "b", "operation"}) {
		t.Fatalf("properties %v", props)
	}
	req := slices.Clone(s.Required)
	slices.Sort(req)
	if !slices.Equal(req, []string{"a", "b", "operation"}) {
		t.Fatalf("required %v", s.Required)
	}
	for _, p := range []string{"a", "b"} {
		var ps struct{ Type string }
		_ = json.Unmarshal(s.Properties[p], &ps)
		if ps.Type != "number" {
			t.Fatalf("%s type %q", p, ps.Type)
		}
	}
	var op struct {
		Type string
		Enum []string
	}
	_ = json.Unmarshal(s.Properties["operation"], &op)
	if op.Type != "string" || !slices.Equal(op.Enum, []string{"add", "sub", "mul", "div"}) {
		t.Fatalf("operation %+v", op)
	}
}

func TestCurrentTime(t *testing.T) {
	now = func() time.Time { return time.Date(2026, 3, 4, 12, 30, 0, 0, time.UTC) }
	t.Cleanup(func() { now = time.Now })
	h := newHarness(t, Options{})
	if got := h.ok("current_time", map[string]any{"timezone": "Asia/Tokyo"}); got != "2026-03-04T21:30:00+09:00 (Wednesday, Asia/Tokyo)" {
		t.Fatalf("got %q", got)
	}
	if got := h.ok("current_time", map[string]any{}); !strings.Contains(got, "Wednesday") {
		t.Fatalf("got %q", got)
	}
	h.fail("current_time", map[string]any{"timezone": "Mars/Olympus"}, tools.KindInvalidParameters, "Mars/Olympus")
}
