package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDescribeJSONAndTable(t *testing.T) {
	reg := NewRegistry(nil)
	reg.Register(mgrTool{Spec{Name: "read_file", Source: "builtin", Description: "Read a file\nwith more text", Annotations: Annotations{ReadOnly: true}}})
	reg.Register(mgrTool{Spec{Name: "shell", Source: "builtin", Description: strings.Repeat("x", 100), Annotations: Annotations{Destructive: true}}})
	reg.Register(mgrTool{Spec{Name: "post_it", Source: "native", Description: "Post"}})
	infos := Describe(reg)
	data, err := json.Marshal(infos)
	if err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0]["name"] != "read_file" || back[0]["read_only"] != true ||
		back[1]["destructive"] != true || back[2]["source"] != "native" || len(back[0]) != 5 {
		t.Errorf("json = %s", data)
	}

	var buf bytes.Buffer
	sh := []Shadowed{{Name: "read_file", Source: "mcp:fs", ShadowedBy: "builtin"}}
	if err := WriteToolTable(&buf, infos, sh); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[1], "read-only") ||
		!strings.Contains(lines[1], "Read a file …") || !strings.Contains(lines[2], "destructive") ||
		!strings.Contains(lines[3], "writes") {
		t.Errorf("table:\n%s", out)
	}
	if strings.Contains(out, strings.Repeat("x", 80)) {
		t.Errorf("long description not shortened:\n%s", out)
	}
	// Columns align: SOURCE starts at the same offset on every row.
	col := strings.Index(lines[0], "SOURCE")
	for _, l := range lines[1:4] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("misaligned row %q (col %d)", l, col)
		}
	}
	if !strings.Contains(out, "read_file  from mcp:fs  hidden by builtin") {
		t.Errorf("shadowed section missing:\n%s", out)
	}

	buf.Reset()
	_ = WriteToolTable(&buf, Describe(nil), nil)
	if !strings.Contains(buf.String(), "no active tools") {
		t.Errorf("empty table: %q", buf.String())
	}
}

func TestWriteStats(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteStats(&buf, nil); err != nil || !strings.Contains(buf.String(), "No tool calls") {
		t.Errorf("empty stats: %q %v", buf.String(), err)
	}
	buf.Reset()
	stats := []ToolStats{{Name: "calculator", Calls: 4, Successes: 3, SuccessRate: 0.75, P50: 1234567 * time.Nanosecond, P95: 450 * time.Microsecond}}
	if err := WriteStats(&buf, stats); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"calculator", "4", "75%", "1ms", "450µs", "P95"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lack %q:\n%s", want, out)
		}
	}
}
