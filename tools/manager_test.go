package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"tact/toolsets"
)

// mgrTool is a minimal Tool for Manager tests.
type mgrTool struct{ spec Spec }

func (t mgrTool) Spec() Spec { return t.spec }
func (t mgrTool) Execute(context.Context, json.RawMessage) (Result, error) {
	return OK(t.spec.Source), nil
}

func mgrMk(name, source string) Tool { return mgrTool{Spec{Name: name, Source: source}} }

// mgrProvider is a Provider that may fail.
type mgrProvider struct {
	name  string
	tools []Tool
	err   error
}

func (p mgrProvider) Name() string                          { return p.name }
func (p mgrProvider) Tools(context.Context) ([]Tool, error) { return p.tools, p.err }

func mgrNames(reg *Registry) []string {
	var out []string
	for _, t := range reg.List() {
		out = append(out, t.Spec().Name)
	}
	return out
}

func mgrTestSets() map[string]toolsets.Set {
	return map[string]toolsets.Set{
		"files": {Name: "files", Tools: []string{"read_file", "list_dir"}, File: "sets/files.yaml"},
		"calc":  {Name: "calc", Tools: []string{"calculator", "read_file"}, File: "sets/calc.yaml"},
		"ev":    {Name: "ev", Tools: []string{"mcp:everything", "calculator"}, File: "sets/ev.yaml"},
		"bad":   {Name: "bad", Tools: []string{"read_file", "no_such_tool"}, File: "sets/bad.yaml"},
	}
}

func newMgrTestManager(t *testing.T, logger *slog.Logger) *Manager {
	t.Helper()
	m := NewManager(ManagerOptions{
		Providers: []Provider{
			StaticProvider("builtin", []Tool{mgrMk("calculator", "builtin"), mgrMk("read_file", "builtin"), mgrMk("list_dir", "builtin")}),
			StaticProvider("native", []Tool{mgrMk("get_weather", "native")}),
			mgrProvider{name: "mcp:everything", tools: []Tool{mgrMk("echo", "mcp:everything"), mgrMk("add", "mcp:everything")}},
		},
		Sets:       mgrTestSets(),
		MCPServers: []string{"everything", "sleepy"},
		Logger:     logger,
	})
	if err := m.Discover(context.Background()); err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return m
}

func TestActivateUnionInConfigOrder(t *testing.T) {
	m := newMgrTestManager(t, nil)
	reg, err := m.Activate([]string{"calc", "files"}, []string{"get_weather", "calculator", "list_dir"})
	if err != nil {
		t.Fatalf("Activate: %v", err)
	}
	want := []string{"calculator", "read_file", "list_dir", "get_weather"}
	if got := mgrNames(reg); !reflect.DeepEqual(got, want) {
		t.Errorf("active = %v, want %v (sets first, in order, de-duplicated)", got, want)
	}
	if got := m.Summary(reg); got != "tool sets: calc, files + tools: get_weather, calculator, list_dir — 4 tools" {
		t.Errorf("Summary = %q", got)
	}
	// Order of the set list matters.
	reg, err = m.Activate([]string{"files", "calc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mgrNames(reg); !reflect.DeepEqual(got, []string{"read_file", "list_dir", "calculator"}) {
		t.Errorf("active = %v", got)
	}
	if got := m.Summary(reg); got != "tool sets: files, calc — 3 tools" {
		t.Errorf("Summary = %q", got)
	}
}

func TestActivateMCPServerExpansion(t *testing.T) {
	m := newMgrTestManager(t, nil)
	reg, err := m.Activate([]string{"ev"}, []string{"mcp:everything", "read_file"})
	if err != nil {
		t.Fatalf("Activate: %v", err)
	}
	want := []string{"echo", "add", "calculator", "read_file"}
	if got := mgrNames(reg); !reflect.DeepEqual(got, want) {
		t.Errorf("active = %v, want %v", got, want)
	}
	// A configured server without tools (down) is not an error.
	reg, err = m.Activate(nil, []string{"mcp:sleepy"})
	if err != nil || reg.Len() != 0 {
		t.Errorf("mcp:sleepy: reg %v err %v, want empty and no error", reg, err)
	}
	// An unknown server lists the known ones.
	_, err = m.Activate(nil, []string{"mcp:nope"})
	if err == nil || !strings.Contains(err.Error(), `unknown MCP server "nope"`) ||
		!strings.Contains(err.Error(), "known MCP servers: everything, sleepy") {
		t.Errorf("err = %v", err)
	}
}

func TestActivateUnknownNamesListKnownOnes(t *testing.T) {
	m := newMgrTestManager(t, nil)
	_, err := m.Activate([]string{"nosuchset", "bad"}, []string{"bogus"})
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	for _, want := range []string{
		`unknown tool set "nosuchset"; known tool sets: bad, calc, ev, files`,
		`unknown tool "no_such_tool" in tool set "bad" (sets/bad.yaml); known tools: add, calculator, echo, get_weather, list_dir, read_file`,
		`unknown tool "bogus"; known tools: add, calculator`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q\ndoes not contain %q", msg, want)
		}
	}
	if got := m.SetNames(); !reflect.DeepEqual(got, []string{"bad", "calc", "ev", "files"}) {
		t.Errorf("SetNames = %v", got)
	}
}

func TestDiscoverDuplicateWarnsAndShadows(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := NewManager(ManagerOptions{
		Providers: []Provider{
			StaticProvider("builtin", []Tool{mgrMk("read_file", "builtin"), mgrMk("shell", "builtin")}),
			StaticProvider("native", []Tool{mgrMk("read_file", "native"), mgrMk("get_weather", "native")}),
			mgrProvider{name: "mcp:fs", tools: []Tool{mgrMk("read_file", "mcp:fs")}},
		},
		Sets:   map[string]toolsets.Set{},
		Logger: logger,
	})
	if err := m.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range m.All() {
		got = append(got, tl.Spec().Name+"@"+tl.Spec().Source)
	}
	if want := []string{"read_file@builtin", "shell@builtin", "get_weather@native"}; !reflect.DeepEqual(got, want) {
		t.Errorf("All = %v, want %v", got, want)
	}
	wantShadow := []Shadowed{
		{Name: "read_file", Source: "native", ShadowedBy: "builtin"},
		{Name: "read_file", Source: "mcp:fs", ShadowedBy: "builtin"},
	}
	if sh := m.Shadowed(); !reflect.DeepEqual(sh, wantShadow) {
		t.Errorf("Shadowed = %+v", sh)
	}
	log := buf.String()
	if n := strings.Count(log, "level=WARN"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, log)
	}
	for _, want := range []string{"tool=read_file", "kept_source=builtin", "ignored_source=native", "ignored_source=mcp:fs"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	reg, err := m.Activate(nil, []string{"read_file"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := reg.List()[0].Execute(context.Background(), nil)
	if r.Output != "builtin" {
		t.Errorf("activated read_file comes from %q, want builtin", r.Output)
	}
}

func TestDiscoverProviderFailureContinues(t *testing.T) {
	var buf bytes.Buffer
	m := NewManager(ManagerOptions{
		Providers: []Provider{
			mgrProvider{name: "mcp:broken", err: errors.New("connection refused")},
			StaticProvider("builtin", []Tool{mgrMk("calculator", ""), nil}),
			StaticProvider("native", []Tool{mgrMk("calculator", "")}),
		},
		Sets:   map[string]toolsets.Set{},
		Logger: slog.New(slog.NewTextHandler(&buf, nil)),
	})
	err := m.Discover(context.Background())
	if err == nil || !strings.Contains(err.Error(), "tool source mcp:broken: connection refused") {
		t.Errorf("err = %v", err)
	}
	if len(m.All()) != 1 {
		t.Fatalf("All = %v, want calculator from the next provider", m.All())
	}
	// A tool without a Source is named by its provider in conflicts.
	if sh := m.Shadowed(); len(sh) != 1 || sh[0] != (Shadowed{Name: "calculator", Source: "native", ShadowedBy: "builtin"}) {
		t.Errorf("Shadowed = %+v", sh)
	}
	if !strings.Contains(buf.String(), "tool source failed") {
		t.Errorf("log = %s", buf.String())
	}
	// The broken server is known through its provider name.
	if _, err := m.Activate(nil, []string{"mcp:broken"}); err != nil {
		t.Errorf("mcp:broken should be known: %v", err)
	}
}

func TestReloadKeepsActivation(t *testing.T) {
	tools := []Tool{mgrMk("a", "mcp:s")}
	p := &mgrSwitchProvider{tools: &tools}
	m := NewManager(ManagerOptions{Providers: []Provider{p}, Sets: map[string]toolsets.Set{}})
	if err := m.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Activate(nil, []string{"mcp:s"}); err != nil {
		t.Fatal(err)
	}
	tools = append(tools, mgrMk("b", "mcp:s"))
	reg, err := m.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := mgrNames(reg); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("after reload: %v", got)
	}
}

type mgrSwitchProvider struct{ tools *[]Tool }

func (p *mgrSwitchProvider) Name() string                          { return "mcp:s" }
func (p *mgrSwitchProvider) Tools(context.Context) ([]Tool, error) { return *p.tools, nil }

func TestDefaultSetsAreEmbedded(t *testing.T) {
	m := NewManager(ManagerOptions{})
	if got := m.SetNames(); !reflect.DeepEqual(got, []string{"all", "coding", "default", "web"}) {
		t.Errorf("SetNames = %v", got)
	}
	reg, err := m.Activate(nil, nil)
	if err != nil || reg.Len() != 0 || m.Summary(reg) != "0 tools" {
		t.Errorf("empty activation: %v %v %q", reg, err, m.Summary(reg))
	}
}
