package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"tact/tools"
	"tact/toolsets"
)

// FileError is a problem in one tool file; the tool (or the whole file) is
// skipped and the other tools still load.
type FileError struct {
	// File is the path of the YAML file.
	File string
	// Line is the 1-based line of the problem, 0 when unknown.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error formats as "HTTP tool file:line: msg".
func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("HTTP tool %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("HTTP tool %s: %s", e.File, e.Msg)
}

// knownKeys are the fields of one tool in a YAML file.
var knownKeys = []string{"name", "description", "api_url", "method", "headers", "auth", "timeout", "parameters", "read_only"}

// Load reads every *.yaml / *.yml file of each folder in dirs (in order,
// files sorted by name). A file holds one tool, or a `tools:` list of them.
// A bad file or entry is reported (file, line, what) and skipped; the rest
// load. A folder that does not exist is skipped (the default folder is
// optional); a name used twice is reported at the second place.
func Load(dirs []string, logger *slog.Logger) ([]tools.Tool, []error) {
	return load(dirs, nil, logger)
}

func load(dirs []string, client *http.Client, logger *slog.Logger) ([]tools.Tool, []error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if client == nil {
		client = &http.Client{}
	}
	var (
		out  []tools.Tool
		errs []error
		seen = map[string]string{} // name → file:line
	)
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			logger.Debug("HTTP tool folder not found, skipped", "dir", dir)
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reading HTTP tool folder %s: %w", dir, err))
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
				continue
			}
			file := filepath.Join(dir, name)
			data, err := os.ReadFile(file)
			if err != nil {
				errs = append(errs, &FileError{File: file, Msg: err.Error()})
				continue
			}
			ts, fileErrs := ParseFile(file, data, client)
			for _, fe := range fileErrs {
				logger.Warn("HTTP tool skipped", "err", fe)
			}
			errs = append(errs, fileErrs...)
			for _, t := range ts {
				n := t.Spec().Name
				if prev, dup := seen[n]; dup {
					err := &FileError{File: file, Line: t.line, Msg: fmt.Sprintf("tool %q is already defined at %s; rename one", n, prev)}
					logger.Warn("HTTP tool skipped", "err", err)
					errs = append(errs, err)
					continue
				}
				seen[n] = t.Origin()
				logger.Info("HTTP tool loaded", "tool", n, "file", file, "method", t.def.Method)
				out = append(out, t)
			}
		}
	}
	return out, errs
}

// ParseFile reads the tools of one YAML file. file names the file in
// errors. Entries with problems are reported and left out.
func ParseFile(file string, data []byte, client *http.Client) ([]*Tool, []error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := toolsets.YAMLErrorLine(err)
		return nil, []error{&FileError{File: file, Line: line, Msg: msg}}
	}
	if len(doc.Content) == 0 {
		return nil, []error{&FileError{File: file, Msg: "file is empty; it needs name, description and api_url"}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, []error{&FileError{File: file, Line: root.Line, Msg: "expected a tool (a mapping) or `tools:` with a list of tools"}}
	}
	entries := []*yaml.Node{root}
	if list := value(root, "tools"); list != nil && value(root, "api_url") == nil {
		if list.Kind != yaml.SequenceNode {
			return nil, []error{&FileError{File: file, Line: list.Line, Msg: "tools: must be a list of tools"}}
		}
		for i := 0; i+1 < len(root.Content); i += 2 {
			if k := root.Content[i]; k.Value != "tools" {
				return nil, []error{&FileError{File: file, Line: k.Line, Msg: fmt.Sprintf("unknown field %q next to tools: (a file is one tool or a tools: list)", k.Value)}}
			}
		}
		entries = list.Content
	}
	var (
		out  []*Tool
		errs []error
	)
	for _, n := range entries {
		t, err := parseEntry(file, n, client)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t.file, t.line = file, n.Line
		out = append(out, t)
	}
	return out, errs
}

// rawDef is the YAML form of a Definition.
type rawDef struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	APIURL      string    `yaml:"api_url"`
	Method      string    `yaml:"method"`
	Headers     []Header  `yaml:"headers"`
	Auth        Auth      `yaml:"auth"`
	Timeout     string    `yaml:"timeout"`
	Parameters  yaml.Node `yaml:"parameters"`
	ReadOnly    *bool     `yaml:"read_only"`
}

// parseEntry turns one mapping node into a Tool, with errors at the line of
// the field at fault.
func parseEntry(file string, n *yaml.Node, client *http.Client) (*Tool, error) {
	fail := func(line int, format string, args ...any) error {
		if line == 0 {
			line = n.Line
		}
		return &FileError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if n.Kind != yaml.MappingNode {
		return nil, fail(n.Line, "expected a tool (a mapping with name, description, api_url, …)")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !contains(knownKeys, k.Value) {
			return nil, fail(k.Line, "unknown field %q (a tool has: %s)", k.Value, strings.Join(knownKeys, ", "))
		}
	}
	var raw rawDef
	if err := n.Decode(&raw); err != nil {
		line, msg := toolsets.YAMLErrorLine(err)
		return nil, fail(line, "%s", msg)
	}
	def := Definition{
		Name: raw.Name, Description: raw.Description, APIURL: raw.APIURL, Method: raw.Method,
		Headers: raw.Headers, Auth: raw.Auth, ReadOnly: raw.ReadOnly,
	}
	if raw.Timeout != "" {
		d, err := time.ParseDuration(strings.TrimSpace(raw.Timeout))
		if err != nil {
			return nil, fail(keyLine(n, "timeout"), "timeout %q is not a duration; write it like 10s or 1m30s", raw.Timeout)
		}
		def.Timeout = d
	}
	if raw.Parameters.Kind != 0 {
		var v any
		if err := raw.Parameters.Decode(&v); err != nil {
			line, msg := toolsets.YAMLErrorLine(err)
			return nil, fail(line, "parameters: %s", msg)
		}
		data, err := json.Marshal(jsonable(v))
		if err != nil {
			return nil, fail(raw.Parameters.Line, "parameters cannot be written as JSON: %v", err)
		}
		def.Parameters = data
	}
	t, err := NewTool(def, client)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, fail(keyLine(n, fe.Field), "%s", fe.Msg)
		}
		return nil, fail(n.Line, "%v", err)
	}
	return t, nil
}

// jsonable converts YAML-decoded values so encoding/json accepts them
// (map[any]any → map[string]any).
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
		return x
	default:
		return v
	}
}

// value returns the value node of key in mapping m, or nil.
func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// keyLine is the line of key in mapping m, or 0 when absent.
func keyLine(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Provider is a tools.Provider that reads the folders again on every
// discovery, so a dropped-in file shows up on the next Manager.Reload.
type Provider struct {
	dirs   []string
	client *http.Client
	logger *slog.Logger
}

// NewProvider returns the provider of the HTTP tools in dirs. A nil client
// means a fresh http.Client; a nil logger discards.
func NewProvider(dirs []string, client *http.Client, logger *slog.Logger) *Provider {
	return &Provider{dirs: append([]string(nil), dirs...), client: client, logger: logger}
}

// Name returns "native".
func (p *Provider) Name() string { return Source }

// Tools loads the folders; bad files are joined into the error while the
// good tools are still returned.
func (p *Provider) Tools(context.Context) ([]tools.Tool, error) {
	ts, errs := load(p.dirs, p.client, p.logger)
	return ts, errors.Join(errs...)
}
