// Package mcp connects tact to Model Context Protocol servers (local commands
// over stdio, or remote servers over streamable HTTP) and offers their tools
// as tools.Tool values, one provider per server.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// EnvVar is one environment variable given to a stdio server (or, in
// ServerConfig.Headers, one HTTP header). Values may use ${VAR} to refer to
// tact's own environment; they are expanded when the server is started.
type EnvVar struct {
	// Name is the variable (or header) name.
	Name string `yaml:"name" json:"name"`
	// Value is its value; ${VAR} refers to tact's environment.
	Value string `yaml:"value" json:"value"`
}

// ServerConfig describes one MCP server: either a command run over stdio
// (Command, Args, Env) or a remote streamable-HTTP endpoint (URL, APIKeyEnv,
// Header, Headers).
type ServerConfig struct {
	// Name identifies the server; tools are sourced "mcp:NAME".
	Name string
	// Command is the program to run for a stdio server.
	Command string
	// Args are the command's arguments.
	Args []string
	// Env adds variables to the command's environment (tact's own environment is inherited).
	Env []EnvVar
	// URL is the endpoint of a remote (streamable HTTP) server.
	URL string
	// APIKeyEnv names the environment variable holding the remote server's API key.
	// The key is read when connecting and never logged.
	APIKeyEnv string
	// Header is the HTTP header that carries the key. Empty means
	// "Authorization: Bearer KEY"; any other name carries the bare key.
	Header string
	// Headers are extra HTTP headers for a remote server (from .mcp.json "headers").
	Headers []EnvVar
	// Enabled false turns the server off; nil means enabled.
	Enabled *bool
	// Timeout, when non-zero, is the per-call timeout of this server's tools.
	Timeout time.Duration
	// Source is the file the entry came from, used in error messages.
	Source string
}

// IsEnabled reports whether the server should be started.
func (c ServerConfig) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// Remote reports whether the server is reached over HTTP rather than run as a command.
func (c ServerConfig) Remote() bool { return c.URL != "" }

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,48}$`)

// yamlServer is the on-disk shape of tools/mcp/NAME.yaml.
type yamlServer struct {
	Name      string   `yaml:"name"`
	Command   string   `yaml:"command"`
	Args      []string `yaml:"args"`
	Env       []EnvVar `yaml:"env"`
	URL       string   `yaml:"url"`
	APIKeyEnv string   `yaml:"api_key_env"`
	Header    string   `yaml:"header"`
	Headers   []EnvVar `yaml:"headers"`
	Enabled   *bool    `yaml:"enabled"`
	Timeout   string   `yaml:"timeout"`
}

// LoadDir reads every *.yaml and *.yml file in dir, one server per file, in
// file-name order. Disabled servers are skipped. A missing dir yields no
// servers and no error. Each error names the file (and line where known);
// files with errors are skipped, the others are still returned.
func LoadDir(dir string) ([]ServerConfig, []error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("reading MCP server folder %s: %w", dir, err)}
	}
	var names []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var (
		cfgs []ServerConfig
		errs []error
		seen = map[string]string{}
	)
	for _, n := range names {
		path := filepath.Join(dir, n)
		cfg, err := LoadFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := seen[cfg.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: MCP server %q is already defined in %s; rename one of them", path, cfg.Name, prev))
			continue
		}
		seen[cfg.Name] = path
		if cfg.IsEnabled() {
			cfgs = append(cfgs, cfg)
		}
	}
	return cfgs, errs
}

// LoadFile reads one server YAML file. The server name defaults to the file
// name without its extension. Disabled servers are returned (check IsEnabled).
func LoadFile(path string) (ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ServerConfig{}, fmt.Errorf("reading MCP server file: %w", err)
	}
	var raw yamlServer
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.ReplaceAll(msg, "unmarshal errors:\n  ", "")
		return ServerConfig{}, fmt.Errorf("%s: %s (fields: name, command, args, env, url, api_key_env, header, headers, enabled, timeout)", path, msg)
	}
	var doc yaml.Node
	_ = yaml.Unmarshal(data, &doc)
	at := func(key string) string {
		if l := keyLine(&doc, key); l > 0 {
			return fmt.Sprintf("%s:%d", path, l)
		}
		return path
	}
	cfg := ServerConfig{
		Name: raw.Name, Command: raw.Command, Args: raw.Args, Env: raw.Env,
		URL: raw.URL, APIKeyEnv: raw.APIKeyEnv, Header: raw.Header, Headers: raw.Headers,
		Enabled: raw.Enabled, Source: path,
	}
	if cfg.Name == "" {
		cfg.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if raw.Timeout != "" {
		d, err := time.ParseDuration(raw.Timeout)
		if err != nil || d < 0 {
			return ServerConfig{}, fmt.Errorf("%s: timeout %q is not a duration; write it like 30s or 2m", at("timeout"), raw.Timeout)
		}
		cfg.Timeout = d
	}
	if key, err := cfg.validate(); err != nil {
		return ServerConfig{}, fmt.Errorf("%s: %w", at(key), err)
	}
	return cfg, nil
}

// keyLine returns the line of a top-level mapping key in a YAML document, or 0.
func keyLine(doc *yaml.Node, key string) int {
	if doc == nil || len(doc.Content) == 0 {
		return 0
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return 0
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

// validate checks one server entry. It returns the config key at fault.
func (c ServerConfig) validate() (string, error) {
	if !validName.MatchString(c.Name) {
		return "name", fmt.Errorf("MCP server name %q must be 1-48 letters, digits, '_' or '-' (it becomes part of tool names)", c.Name)
	}
	switch {
	case c.Command == "" && c.URL == "":
		return "name", fmt.Errorf("MCP server %q needs either command (a local server) or url (a remote one)", c.Name)
	case c.Command != "" && c.URL != "":
		return "url", fmt.Errorf("MCP server %q has both command and url; keep only one", c.Name)
	}
	for _, e := range c.Env {
		if e.Name == "" {
			return "env", fmt.Errorf("MCP server %q: every env entry needs a name, like {name: DEBUG, value: \"0\"}", c.Name)
		}
	}
	return "", nil
}

// mcpJSON is the ".mcp.json" format shared by several agents.
type mcpJSON struct {
	MCPServers map[string]struct {
		Type     string            `json:"type"`
		Command  string            `json:"command"`
		Args     []string          `json:"args"`
		Env      map[string]string `json:"env"`
		URL      string            `json:"url"`
		Headers  map[string]string `json:"headers"`
		Disabled bool              `json:"disabled"`
	} `json:"mcpServers"`
}

// LoadMCPJSON reads servers from a .mcp.json file:
// {"mcpServers": {"NAME": {"command", "args", "env": {...}, "url", "headers": {...}}}}.
// Servers marked "disabled": true are skipped. Servers are returned sorted by name.
func LoadMCPJSON(path string) ([]ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading MCP config: %w", err)
	}
	var doc mcpJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%s:%d: invalid JSON: %w", path, lineAt(data, se.Offset), err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("%s:%d: %w", path, lineAt(data, te.Offset), err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	var cfgs []ServerConfig
	for _, n := range names {
		s := doc.MCPServers[n]
		if s.Disabled {
			continue
		}
		if s.Type == "sse" {
			return nil, fmt.Errorf("%s: MCP server %q uses the old SSE transport, which tact does not support; use its streamable HTTP URL", path, n)
		}
		cfg := ServerConfig{Name: n, Command: s.Command, Args: s.Args, URL: s.URL, Source: path}
		cfg.Env = sortedPairs(s.Env)
		cfg.Headers = sortedPairs(s.Headers)
		if _, err := cfg.validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs, nil
}

// sortedPairs turns a map into a name-sorted list.
func sortedPairs(m map[string]string) []EnvVar {
	if len(m) == 0 {
		return nil
	}
	out := make([]EnvVar, 0, len(m))
	for k, v := range m {
		out = append(out, EnvVar{Name: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lineAt returns the 1-based line of a byte offset.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
