package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// configDirs moves into an empty working directory and returns a config
// home for LoadOptions.Env, so no real config file is read.
func configDirs(t *testing.T) (wd, configHome string) {
	t.Helper()
	root := t.TempDir()
	wd, configHome = filepath.Join(root, "wd"), filepath.Join(root, "xdg")
	for _, d := range []string{wd, configHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(wd)
	return wd, configHome
}

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigDefaults: with no file, the embedded defaults apply.
func TestConfigDefaults(t *testing.T) {
	_, xdg := configDirs(t)
	cfg, err := LoadConfig(LoadOptions{Env: []string{"XDG_CONFIG_HOME=" + xdg}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider.Model != "gpt-4o-mini" || cfg.Provider.Timeout != 120*time.Second || cfg.Provider.MaxRetries != 3 ||
		cfg.Provider.APIKeyEnv != "OPENAI_API_KEY" {
		t.Errorf("provider = %+v", cfg.Provider)
	}
	if cfg.Agent.MaxIterations != 5 || cfg.Agent.ToolChoice != "auto" || !cfg.Agent.ParallelToolCalls || cfg.Agent.ToolTimeout != 30*time.Second {
		t.Errorf("agent = %+v", cfg.Agent)
	}
	os := cfg.OutputStrategy
	if os.FunctionCalling != "auto" || !os.FallbackToStructuredOutput || os.FallbackFormat != "tool_action" || !os.EnableToolActionParsing {
		t.Errorf("output_strategy = %+v", os)
	}
	if len(cfg.Files) != 0 {
		t.Errorf("files read = %v, want none", cfg.Files)
	}
	if got := cfg.Source("provider.model"); got != "built-in defaults" {
		t.Errorf("Source = %q", got)
	}
}

// TestConfigLayering: defaults < user file < ./config.yaml < TACT_* < flags.
func TestConfigLayering(t *testing.T) {
	wd, xdg := configDirs(t)
	user := writeFile(t, filepath.Join(xdg, "tact", "config.yaml"), "provider:\n  model: user-model\n  max_retries: 1\nagent: {max_iterations: 7}\n")
	local := writeFile(t, filepath.Join(wd, "config.yaml"), "provider:\n  model: local-model\n")
	env := []string{"XDG_CONFIG_HOME=" + xdg}

	load := func(t *testing.T, env []string, over map[string]any) *Config {
		t.Helper()
		cfg, err := LoadConfig(LoadOptions{Env: env, Overrides: over})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := load(t, env, nil)
	if cfg.Provider.Model != "local-model" || cfg.Provider.MaxRetries != 1 || cfg.Agent.MaxIterations != 7 {
		t.Errorf("files: model %q retries %d iterations %d", cfg.Provider.Model, cfg.Provider.MaxRetries, cfg.Agent.MaxIterations)
	}
	if !reflect.DeepEqual(cfg.Files, []string{user, local}) {
		t.Errorf("files = %v, want %v", cfg.Files, []string{user, local})
	}
	if cfg.Source("provider.model") != local || cfg.Source("agent.max_iterations") != user {
		t.Errorf("sources: model %q, iterations %q", cfg.Source("provider.model"), cfg.Source("agent.max_iterations"))
	}
	// The embedded defaults still fill what no file sets.
	if cfg.Provider.Timeout != 120*time.Second {
		t.Errorf("timeout = %s", cfg.Provider.Timeout)
	}

	env = append(env, "TACT_PROVIDER_MODEL=env-model", "TACT_TOOL_SETS=default,web", "TACT_AGENT_MAX_ITERATIONS=9")
	cfg = load(t, env, nil)
	if cfg.Provider.Model != "env-model" || cfg.Agent.MaxIterations != 9 || !reflect.DeepEqual(cfg.ToolSets, []string{"default", "web"}) {
		t.Errorf("env: model %q iterations %d sets %v", cfg.Provider.Model, cfg.Agent.MaxIterations, cfg.ToolSets)
	}
	if got := cfg.Source("provider.model"); !strings.Contains(got, "TACT_PROVIDER_MODEL") {
		t.Errorf("Source = %q", got)
	}

	cfg = load(t, env, map[string]any{"provider.model": "flag-model"})
	if cfg.Provider.Model != "flag-model" || cfg.Source("provider.model") != "command line" {
		t.Errorf("flag: model %q from %q", cfg.Provider.Model, cfg.Source("provider.model"))
	}

	// --config replaces the searched files.
	other := writeFile(t, filepath.Join(t.TempDir(), "other.yaml"), "provider: {model: other-model}\n")
	cfg, err := LoadConfig(LoadOptions{File: other, Env: []string{"XDG_CONFIG_HOME=" + xdg}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider.Model != "other-model" || cfg.Agent.MaxIterations != 5 || !reflect.DeepEqual(cfg.Files, []string{other}) {
		t.Errorf("--config: model %q iterations %d files %v", cfg.Provider.Model, cfg.Agent.MaxIterations, cfg.Files)
	}
}

// TestConfigRelativePaths: relative paths resolve against the folder of the
// file that sets them.
func TestConfigRelativePaths(t *testing.T) {
	_, xdg := configDirs(t)
	dir := filepath.Join(t.TempDir(), "conf")
	file := writeFile(t, filepath.Join(dir, "tact.yaml"), `
toolset_dirs: [sets, /abs/sets]
tool_dirs:
  native: [apis]
  mcp: [../shared/mcp]
mcp_json: .mcp.json
logging: {file: logs/tact.log}
`)
	cfg, err := LoadConfig(LoadOptions{File: file, Env: []string{"XDG_CONFIG_HOME=" + xdg}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"toolset_dirs":     []string{filepath.Join(dir, "sets"), "/abs/sets"},
		"tool_dirs.native": []string{filepath.Join(dir, "apis")},
		"tool_dirs.mcp":    []string{filepath.Join(filepath.Dir(dir), "shared", "mcp")},
		"mcp_json":         filepath.Join(dir, ".mcp.json"),
		"logging.file":     filepath.Join(dir, "logs", "tact.log"),
		// Not set in the file: the defaults' relative paths resolve against
		// the user config folder.
		"tool_dirs.skills": []string{filepath.Join(xdg, "tact", "tools", "skills")},
	}
	got := map[string]any{
		"toolset_dirs": cfg.ToolsetDirs, "tool_dirs.native": cfg.ToolDirs.Native, "tool_dirs.mcp": cfg.ToolDirs.MCP,
		"mcp_json": cfg.MCPJSON, "logging.file": cfg.Logging.File, "tool_dirs.skills": cfg.ToolDirs.Skills,
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
}

// TestConfigErrors: each error names the file, the key and what is allowed.
func TestConfigErrors(t *testing.T) {
	_, xdg := configDirs(t)
	dir := t.TempDir()
	cases := []struct {
		name, body string
		env        []string
		key        string
		want       []string
	}{
		{"duration", "provider: {timeout: banana}\n", nil, "provider.timeout", []string{"invalid duration", "30s"}},
		{"function_calling", "output_strategy: {function_calling: maybe}\n", nil, "output_strategy.function_calling", []string{"true, false, auto"}},
		{"fallback_format", "output_strategy: {fallback_format: yaml}\n", nil, "output_strategy.fallback_format", []string{"tool_action, json, xml"}},
		{"max_iterations", "agent: {max_iterations: 0}\n", nil, "agent.max_iterations", []string{"at least 1"}},
		{"logging level", "logging: {level: loud}\n", nil, "logging.level", []string{"debug, info, warn, error"}},
		{"theme", "ui: {theme: neon}\n", nil, "ui.theme", []string{"dark, light, auto"}},
		{"output bytes", "agent: {max_output_bytes: 10}\n", nil, "agent.max_output_bytes", []string{"1024"}},
		{"negative retries", "provider: {max_retries: -1}\n", nil, "provider.max_retries", []string{"0 or more"}},
		{"env", "", []string{"TACT_PROVIDER_TIMEOUT=soon"}, "provider.timeout", []string{"TACT_PROVIDER_TIMEOUT"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".yaml"), tc.body)
			_, err := LoadConfig(LoadOptions{File: file, Env: append([]string{"XDG_CONFIG_HOME=" + xdg}, tc.env...)})
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v (%T), want *ConfigError", err, err)
			}
			if ce.Key != tc.key {
				t.Errorf("key = %q, want %q (%v)", ce.Key, tc.key, err)
			}
			msg := err.Error()
			if tc.env == nil && !strings.Contains(msg, file) {
				t.Errorf("%q does not name the file %s", msg, file)
			}
			for _, w := range append(tc.want, tc.key) {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestConfigInvalidYAML names the file and the line.
func TestConfigInvalidYAML(t *testing.T) {
	_, xdg := configDirs(t)
	file := writeFile(t, filepath.Join(t.TempDir(), "broken.yaml"), "provider:\n  model: x\n  timeout: [1s\nagent: {}\n")
	_, err := LoadConfig(LoadOptions{File: file, Env: []string{"XDG_CONFIG_HOME=" + xdg}})
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v, want *ConfigError", err)
	}
	if !strings.Contains(err.Error(), file) || !regexp.MustCompile(`line \d`).MatchString(err.Error()) {
		t.Errorf("%q does not name the file and the line", err)
	}

	// A broken file found by the search (not --config) is named too.
	wd, _ := os.Getwd()
	local := writeFile(t, filepath.Join(wd, "config.yaml"), "a: b: c\n")
	_, err = LoadConfig(LoadOptions{Env: []string{"XDG_CONFIG_HOME=" + xdg}})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), local) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("error = %v, want the local file and line 1", err)
	}
}

// TestConfigMissingFile: --config naming a missing file is a config error.
func TestConfigMissingFile(t *testing.T) {
	_, xdg := configDirs(t)
	_, err := LoadConfig(LoadOptions{File: "no/such.yaml", Env: []string{"XDG_CONFIG_HOME=" + xdg}})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "no/such.yaml") || !strings.Contains(err.Error(), "--config") {
		t.Errorf("error = %v", err)
	}
}
