package toolsets

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

func TestEmbeddedDefaults(t *testing.T) {
	sets, order, err := Load(nil)
	if err != nil {
		t.Fatalf("Load(nil): %v", err)
	}
	want := map[string][]string{
		"default": {"calculator", "current_time", "read_file", "list_dir"},
		"coding":  {"read_file", "list_dir", "write_file", "edit_file", "search_files", "shell", "calculator", "current_time"},
		"web":     {"http_fetch"},
		"all":     {"calculator", "current_time", "read_file", "list_dir", "write_file", "edit_file", "search_files", "shell", "http_fetch"},
	}
	if len(sets) != len(want) || len(order) != len(want) {
		t.Fatalf("got %d sets (order %v), want %d", len(sets), order, len(want))
	}
	for name, tools := range want {
		s, ok := sets[name]
		if !ok {
			t.Fatalf("embedded set %q missing", name)
		}
		if !reflect.DeepEqual(s.Tools, tools) {
			t.Errorf("set %q tools = %v, want %v", name, s.Tools, tools)
		}
		if s.File != BuiltinPrefix+name+".yaml" || s.Description == "" {
			t.Errorf("set %q: file %q description %q", name, s.File, s.Description)
		}
	}
	// "all" holds every tool of every other set.
	all := map[string]bool{}
	for _, n := range sets["all"].Tools {
		all[n] = true
	}
	for name, s := range sets {
		for _, n := range s.Tools {
			if !all[n] {
				t.Errorf("tool %q of set %q is missing from set all", n, name)
			}
		}
	}
	files, err := fs.Glob(Defaults(), "*.yaml")
	if err != nil || len(files) != 4 {
		t.Errorf("Defaults() files = %v, %v", files, err)
	}
}

func TestLoadExtraDirsOverride(t *testing.T) {
	sets, order, err := Load([]string{"testdata/extra", "testdata/more"})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c := sets["coding"]
	if !reflect.DeepEqual(c.Tools, []string{"edit_file"}) {
		t.Errorf("coding tools = %v, want the last folder's [edit_file]", c.Tools)
	}
	if !strings.HasSuffix(c.File, "more/coding.yaml") {
		t.Errorf("coding file = %q", c.File)
	}
	if len(c.Overrides) != 2 || c.Overrides[0] != "builtin:coding.yaml" || !strings.HasSuffix(c.Overrides[1], "extra/coding.yaml") {
		t.Errorf("coding overrides = %v", c.Overrides)
	}
	d, ok := sets["data_analysis_set"]
	if !ok || !reflect.DeepEqual(d.Tools, []string{"sql_tool", "excel_tool", "mcp:plots"}) || d.Description != "数据分析工具集" {
		t.Errorf("data_analysis_set = %+v", d)
	}
	// Overridden sets keep their first position; new ones come after the defaults.
	if order[len(order)-1] != "data_analysis_set" || len(order) != 5 {
		t.Errorf("order = %v", order)
	}
	if _, ok := sets["README"]; ok {
		t.Error("a .txt file was read as a tool set")
	}
}

func TestLoadSyntaxErrorNamesFileAndLine(t *testing.T) {
	sets, _, err := Load([]string{"testdata/badsyntax"})
	if err == nil {
		t.Fatal("want an error for broken.yaml")
	}
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *toolsets.Error", err)
	}
	if !strings.HasSuffix(se.File, "broken.yaml") || se.Line != 3 {
		t.Errorf("error at %s:%d (%v), want broken.yaml:3 (where the unclosed list starts)", se.File, se.Line, err)
	}
	if !strings.Contains(err.Error(), "broken.yaml:3:") {
		t.Errorf("message %q does not name file:line", err)
	}
	if _, ok := sets["good"]; !ok {
		t.Error("the good file in the same folder should still load")
	}
	if _, ok := sets["default"]; !ok {
		t.Error("the embedded sets should still load")
	}
}

func TestLoadTypeAndFieldErrors(t *testing.T) {
	_, _, err := Load([]string{"testdata/badtype"})
	if err == nil {
		t.Fatal("want errors")
	}
	msg := err.Error()
	for _, want := range []string{"typo.yaml:4:", "unknown.yaml:2:", `unknown field "tool"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
}

func TestLoadMissingDir(t *testing.T) {
	_, _, err := Load([]string{"testdata/does-not-exist"})
	if err == nil || !strings.Contains(err.Error(), "does-not-exist") {
		t.Errorf("err = %v, want one naming the missing folder", err)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"empty", "", "empty"},
		{"list", "- a\n- b\n", "x.yaml:1: expected a mapping"},
		{"no tools", "name: x\n", "lists no tools"},
		{"empty entry", "name: x\ntools:\n  - a\n  - \"\"\n", "x.yaml:4: empty tool name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse(%q) err = %v, want it to contain %q", c.data, err, c.want)
			}
		})
	}
}

func TestSameNameTwiceInOneFolder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/a.yaml", "name: twin\ntools: [a]\n")
	writeFile(t, dir+"/b.yaml", "name: twin\ntools: [b]\n")
	sets, _, err := Load([]string{dir})
	if err == nil || !strings.Contains(err.Error(), "a.yaml") || !strings.Contains(err.Error(), "b.yaml") {
		t.Fatalf("err = %v, want one naming both files", err)
	}
	if got := sets["twin"].Tools; !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("twin = %v, want the first file's", got)
	}
}

func TestYAMLErrorLine(t *testing.T) {
	cases := []struct {
		data string
		line int
	}{
		{"name: a\ndescription: x\ntools: [a, b\n", 3}, // parser error: list opened on line 3
		{"name: a\n  bad: b\n", 2},                     // scanner error
		{"name: a\nb: c\n- d\n", 3},                    // parser error without context
		{"name: a\ntools:\n  x: 1\n", 3},               // type error (decoded into Set)
		{"name: a\n\tb: c\n", 2},                       // tab
	}
	for _, c := range cases {
		_, err := Parse("f.yaml", []byte(c.data))
		var e *Error
		if !errors.As(err, &e) || e.Line != c.line {
			t.Errorf("Parse(%q) = %v, want line %d", c.data, err, c.line)
		}
	}
}
