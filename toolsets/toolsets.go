// Package toolsets reads tool-set files: small YAML files that give a group
// of tools one name, so a config can say `tool_sets: [coding]` instead of
// listing every tool.
//
// A tool-set file looks like this:
//
//	name: data_analysis_set
//	description: 数据分析工具集
//	tools: [sql_tool, excel_tool, plot_tool]
//
// An entry may be `mcp:SERVER`, meaning every tool of that MCP server.
//
// The sets shipped with tact (default, coding, web, all) are embedded in the
// binary; Load reads them first and then the folders named in the config,
// where a set with the same name replaces the shipped one.
//
// This package imports nothing from tact, so package tools can import it.
package toolsets

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed *.yaml
var embedded embed.FS

// BuiltinPrefix starts the File of a set that comes from the binary.
const BuiltinPrefix = "builtin:"

// Set is one named group of tool names.
type Set struct {
	// Name is what a config's tool_sets list refers to.
	Name string `json:"name"`
	// Description says what the set is for.
	Description string `json:"description"`
	// Tools are tool names, or `mcp:SERVER` for every tool of a server, in file order.
	Tools []string `json:"tools"`
	// File is where the set was read from; "builtin:NAME.yaml" for the embedded defaults.
	File string `json:"file"`
	// Overrides lists the files of earlier sets with the same name that this one replaced.
	Overrides []string `json:"overrides,omitempty"`
}

// Error is a problem in one tool-set file, with the line when known.
type Error struct {
	// File is the path of the file (or builtin:NAME.yaml).
	File string
	// Line is the 1-based line of the problem, or 0 when it concerns the whole file.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error formats as "file:line: msg".
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("tool set %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("tool set %s: %s", e.File, e.Msg)
}

// Defaults returns the embedded tool-set files (default.yaml, coding.yaml, …).
func Defaults() fs.FS { return embedded }

// Load reads the embedded sets and then every *.yaml / *.yml file of each
// folder in dirs, in order. A set in a later place replaces an earlier one
// with the same name (the replaced files are recorded in Set.Overrides); two
// files with one set name in the same folder are an error. It returns the
// sets by name and the names in the order they were first seen.
//
// Every problem is reported (joined into the error), each naming its file and
// line; the sets that did load are still returned.
func Load(dirs []string) (map[string]Set, []string, error) {
	sets := map[string]Set{}
	var order []string
	var errs []error

	add := func(batch []Set) {
		seen := map[string]string{}
		for _, s := range batch {
			if prev, dup := seen[s.Name]; dup {
				errs = append(errs, &Error{File: s.File, Msg: fmt.Sprintf(
					"set %q is also defined in %s; rename one of them", s.Name, prev)})
				continue
			}
			seen[s.Name] = s.File
			if old, ok := sets[s.Name]; ok {
				s.Overrides = append(append([]string{}, old.Overrides...), old.File)
			} else {
				order = append(order, s.Name)
			}
			sets[s.Name] = s
		}
	}

	batch, err := readFS(embedded, ".", BuiltinPrefix)
	errs = append(errs, err...)
	add(batch)

	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool-set folder %s: %w (create it or remove it from toolset_dirs)", dir, err))
			continue
		}
		if !info.IsDir() {
			errs = append(errs, fmt.Errorf("tool-set folder %s is not a folder; fix toolset_dirs", dir))
			continue
		}
		batch, errList := readFS(os.DirFS(dir), ".", filepath.Clean(dir)+string(filepath.Separator))
		errs = append(errs, errList...)
		add(batch)
	}
	return sets, order, errors.Join(errs...)
}

// readFS parses every YAML file in dir of fsys, sorted by file name. prefix
// is put before the file name in Set.File and in errors.
func readFS(fsys fs.FS, dir, prefix string) ([]Set, []error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, []error{fmt.Errorf("reading tool-set folder %s: %w", prefix, err)}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var sets []Set
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
			continue
		}
		file := prefix + name
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			errs = append(errs, &Error{File: file, Msg: err.Error()})
			continue
		}
		s, err := Parse(file, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sets = append(sets, s)
	}
	return sets, errs
}

// knownFields are the keys a tool-set file may have.
var knownFields = []string{"name", "description", "tools"}

// Parse reads one tool-set file. file is used in Set.File and in errors;
// when the file has no name, the file's base name (without .yaml) is used.
// Errors are *Error values with the line of the problem.
func Parse(file string, data []byte) (Set, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Set{}, yamlError(file, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return Set{}, &Error{File: file, Msg: "file is empty; it needs name, description and tools"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return Set{}, &Error{File: file, Line: root.Line, Msg: "expected a mapping with name, description and tools"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if !contains(knownFields, k.Value) {
			return Set{}, &Error{File: file, Line: k.Line, Msg: fmt.Sprintf(
				"unknown field %q (a tool set has: %s)", k.Value, strings.Join(knownFields, ", "))}
		}
	}
	var raw struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description"`
		Tools       []string `yaml:"tools"`
	}
	if err := root.Decode(&raw); err != nil {
		return Set{}, yamlError(file, err)
	}
	s := Set{Name: strings.TrimSpace(raw.Name), Description: strings.TrimSpace(raw.Description), File: file}
	if s.Name == "" {
		base := path.Base(filepath.ToSlash(strings.TrimPrefix(file, BuiltinPrefix)))
		s.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	toolsNode := field(root, "tools")
	if toolsNode == nil || len(raw.Tools) == 0 {
		line := root.Line
		if toolsNode != nil {
			line = toolsNode.Line
		}
		return Set{}, &Error{File: file, Line: line, Msg: fmt.Sprintf("set %q lists no tools; add `tools: [name, …]`", s.Name)}
	}
	for i, t := range raw.Tools {
		t = strings.TrimSpace(t)
		if t == "" || t == "mcp:" {
			return Set{}, &Error{File: file, Line: toolsNode.Content[i].Line, Msg: "empty tool name"}
		}
		s.Tools = append(s.Tools, t)
	}
	return s, nil
}

// field returns the value node of key in a mapping node, or nil.
func field(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var lineRE = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError turns a yaml.v3 error into an *Error carrying the line.
func yamlError(file string, err error) error {
	line, msg := YAMLErrorLine(err)
	return &Error{File: file, Line: line, Msg: msg}
}

// YAMLErrorLine extracts the 1-based line and the message from an error of
// gopkg.in/yaml.v3 ("yaml: line 3: …" or a *yaml.TypeError); line is 0 when
// the error names none. yaml.v3 counts lines from 0 in its parser errors (the
// "did not find expected …" family, which point at where the unfinished
// block or list began) and from 1 elsewhere; the result is always 1-based.
func YAMLErrorLine(err error) (line int, msg string) {
	msg = err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return 0, msg
	}
	line, _ = strconv.Atoi(m[1])
	msg = m[2]
	if te == nil && isParserProblem(msg) {
		line++
		switch msg {
		case "did not find expected ',' or ']'":
			msg += " (the [ list that starts on this line is not closed)"
		case "did not find expected ',' or '}'":
			msg += " (the { mapping that starts on this line is not closed)"
		}
	}
	return line, msg
}

// isParserProblem reports whether msg is one of yaml.v3's parser (not
// scanner) problems, whose line is 0-based.
func isParserProblem(msg string) bool {
	for _, p := range []string{"did not find expected", "found duplicate %", "found incompatible YAML", "found undefined tag"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
