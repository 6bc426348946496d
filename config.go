package main

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"tact/approval"
	"tact/toolsets"
)

//go:embed config.yaml
var defaultConfigYAML []byte

// Config is tact's whole configuration after every layer is applied:
// embedded defaults, config files, TACT_* environment variables, flags.
type Config struct {
	Provider       ProviderConfig       `mapstructure:"provider"`
	Agent          AgentConfig          `mapstructure:"agent"`
	OutputStrategy OutputStrategyConfig `mapstructure:"output_strategy"`
	ToolSets       []string             `mapstructure:"tool_sets"`
	Tools          []string             `mapstructure:"tools"`
	ToolsetDirs    []string             `mapstructure:"toolset_dirs"`
	ToolDirs       ToolDirsConfig       `mapstructure:"tool_dirs"`
	MCPJSON        string               `mapstructure:"mcp_json"`
	Skills         SkillsConfig         `mapstructure:"skills"`
	Secrets        SecretsConfig        `mapstructure:"secrets"`
	Approval       approval.Config      `mapstructure:"approval"`
	Logging        LoggingConfig        `mapstructure:"logging"`
	UI             UIConfig             `mapstructure:"ui"`

	// Files are the config files read, lowest priority first.
	Files []string `mapstructure:"-"`
	// Warnings are problems that did not stop loading (unknown keys, keys a
	// project config may not set); tact shows them at start.
	Warnings []string `mapstructure:"-"`
	// sources maps each dotted key to the file (or layer) that set it last.
	sources map[string]string
}

// ProviderConfig says which model server to talk to.
type ProviderConfig struct {
	BaseURL    string        `mapstructure:"base_url"`
	APIKeyEnv  string        `mapstructure:"api_key_env"`
	Model      string        `mapstructure:"model"`
	Timeout    time.Duration `mapstructure:"timeout"`
	MaxRetries int           `mapstructure:"max_retries"`
}

// AgentConfig tunes the agent loop.
type AgentConfig struct {
	SystemPrompt      string        `mapstructure:"system_prompt"`
	MaxIterations     int           `mapstructure:"max_iterations"`
	ToolChoice        string        `mapstructure:"tool_choice"`
	ParallelToolCalls bool          `mapstructure:"parallel_tool_calls"`
	ToolTimeout       time.Duration `mapstructure:"tool_timeout"`
	MaxOutputBytes    int           `mapstructure:"max_output_bytes"`
}

// OutputStrategyConfig chooses how tool calls travel.
type OutputStrategyConfig struct {
	FunctionCalling            string `mapstructure:"function_calling"`
	FallbackToStructuredOutput bool   `mapstructure:"fallback_to_structured_output"`
	FallbackFormat             string `mapstructure:"fallback_format"`
	EnableToolActionParsing    bool   `mapstructure:"enable_tool_action_parsing"`
}

// ToolDirsConfig lists the folders scanned for each kind of tool.
type ToolDirsConfig struct {
	Native []string `mapstructure:"native"`
	MCP    []string `mapstructure:"mcp"`
	Skills []string `mapstructure:"skills"`
}

// SkillsConfig governs skills.
type SkillsConfig struct {
	AllowUnsandboxed bool `mapstructure:"allow_unsandboxed"`
}

// SecretsConfig names environment variables that may pass to tools.
type SecretsConfig struct {
	PassEnv []string `mapstructure:"pass_env"`
}

// LoggingConfig says where logs go.
type LoggingConfig struct {
	File  string `mapstructure:"file"`
	Level string `mapstructure:"level"`
}

// UIConfig tunes the terminal UI.
type UIConfig struct {
	Theme string `mapstructure:"theme"`
}

// ConfigError is a configuration mistake: it names the file, the key and
// what is allowed. main exits 2 on it.
type ConfigError struct {
	File, Key, Msg string
}

// Error says where the mistake is and what is allowed.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("config error")
	if e.File != "" {
		b.WriteString(" in " + e.File)
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// pathKeys are the keys whose relative paths resolve against the folder of
// the file that sets them.
var pathKeys = []string{"toolset_dirs", "tool_dirs.native", "tool_dirs.mcp", "tool_dirs.skills", "mcp_json", "logging.file"}

// LoadOptions say where to look for config and what overrides it.
type LoadOptions struct {
	// File is --config; when set, it replaces the searched files.
	File string
	// Overrides are flag values by dotted key, applied last.
	Overrides map[string]any
	// Env is the environment (os.Environ() in main).
	Env []string
}

// configFiles returns the files to read, lowest priority first.
func configFiles(opts LoadOptions) ([]string, error) {
	if opts.File != "" {
		abs, err := filepath.Abs(opts.File)
		if err != nil {
			return nil, fmt.Errorf("config file %s: %w", opts.File, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, &ConfigError{File: opts.File, Msg: "cannot read it: " + errors.Unwrap(err).Error() + " (check the --config path)"}
		}
		return []string{abs}, nil
	}
	var files []string
	if dir := userConfigDir(opts.Env); dir != "" {
		files = append(files, filepath.Join(dir, "tact", "config.yaml"))
	}
	if wd, err := os.Getwd(); err == nil {
		files = append(files, filepath.Join(wd, "config.yaml"))
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

func userConfigDir(env []string) string {
	if d := lookupEnv(env, "XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if h := lookupEnv(env, "HOME"); h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}

// LoadConfig builds a fresh Config from every layer. It never reuses a
// viper instance, so it is safe to call again when a file changes.
func LoadConfig(opts LoadOptions) (*Config, error) {
	v := viper.New()
	sources := map[string]string{}
	var warnings []string
	defaultsDir := filepath.Join(userConfigDir(opts.Env), "tact")
	if _, err := mergeYAML(v, "built-in defaults", defaultConfigYAML, defaultsDir, sources, false); err != nil {
		return nil, err
	}
	files, err := configFiles(opts)
	if err != nil {
		return nil, err
	}
	project := ""
	if wd, err := os.Getwd(); err == nil && opts.File == "" {
		project = filepath.Join(wd, "config.yaml")
		if dir := userConfigDir(opts.Env); dir != "" && filepath.Join(dir, "tact", "config.yaml") == project {
			project = "" // the working folder is the user's config folder
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, &ConfigError{File: f, Msg: "cannot read it: " + err.Error()}
		}
		w, err := mergeYAML(v, f, data, filepath.Dir(f), sources, f == project)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
	}
	// TACT_* variables override files: TACT_PROVIDER_MODEL sets provider.model.
	for _, key := range v.AllKeys() {
		name := "TACT_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		if val := lookupEnv(opts.Env, name); val != "" {
			v.Set(key, envValue(key, val))
			sources[key] = "environment variable " + name
		}
	}
	for key, val := range opts.Overrides {
		v.Set(key, val)
		sources[key] = "command line"
	}
	cfg := &Config{Files: files, sources: sources, Warnings: warnings}
	if err := v.Unmarshal(cfg); err != nil {
		return nil, cfg.decodeError(err)
	}
	cfg.OutputStrategy.FunctionCalling = strings.ToLower(v.GetString("output_strategy.function_calling"))
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// envValue splits list keys written as comma-separated text.
func envValue(key, val string) any {
	switch key {
	case "tool_sets", "tools", "toolset_dirs", "secrets.pass_env":
		return strings.Split(val, ",")
	}
	return val
}

// mergeYAML parses one layer, resolves its relative paths against dir, and
// merges it into v. A project layer (./config.yaml found in the working
// folder) loses the keys it may not set. It returns warnings about what was
// ignored.
func mergeYAML(v *viper.Viper, name string, data []byte, dir string, sources map[string]string, project bool) ([]string, error) {
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		line, msg := toolsets.YAMLErrorLine(err)
		if line == 0 {
			// yaml.v3 leaves the line out when the problem is on the first one.
			line = 1
		}
		return nil, &ConfigError{File: name, Msg: fmt.Sprintf("invalid YAML at line %d: %s", line, msg)}
	}
	if m == nil {
		return nil, nil
	}
	var warnings []string
	for _, w := range unknownKeys(m) {
		warnings = append(warnings, name+": "+w)
	}
	if project {
		if dropped := dropLockedKeys(m); len(dropped) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: ignored %s — a config.yaml in the working folder may not set these (a cloned repository could send your API key elsewhere or approve tool calls); put them in ~/.config/tact/config.yaml, or pass --config %s to trust this file",
				name, strings.Join(dropped, ", "), name))
		}
	}
	for _, key := range pathKeys {
		resolvePath(m, strings.Split(key, "."), dir)
	}
	recordSources(m, "", name, sources)
	if err := v.MergeConfigMap(m); err != nil {
		return nil, &ConfigError{File: name, Msg: err.Error()}
	}
	return warnings, nil
}

func recordSources(m map[string]any, prefix, name string, sources map[string]string) {
	for k, val := range m {
		key := strings.ToLower(prefix + k)
		sources[key] = name
		if sub, ok := val.(map[string]any); ok {
			recordSources(sub, key+".", name, sources)
		}
	}
}

// resolvePath makes the path value(s) at key absolute against dir.
func resolvePath(m map[string]any, key []string, dir string) {
	val, ok := m[key[0]]
	if !ok {
		return
	}
	if len(key) > 1 {
		if sub, ok := val.(map[string]any); ok {
			resolvePath(sub, key[1:], dir)
		}
		return
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		if strings.HasPrefix(p, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				return filepath.Join(h, p[2:])
			}
		}
		return filepath.Join(dir, p)
	}
	switch t := val.(type) {
	case string:
		m[key[0]] = abs(t)
	case []any:
		for i, e := range t {
			if s, ok := e.(string); ok {
				t[i] = abs(s)
			}
		}
	}
}

// Source names the file or layer that set a key last.
func (c *Config) Source(key string) string {
	if s, ok := c.sources[strings.ToLower(key)]; ok {
		return s
	}
	return "built-in defaults"
}

func (c *Config) decodeError(err error) error {
	msg := err.Error()
	// mapstructure names the key as 'a.b'; point at the file that set it.
	if i := strings.Index(msg, "'"); i >= 0 {
		if j := strings.Index(msg[i+1:], "'"); j > 0 {
			key := msg[i+1 : i+1+j]
			detail := strings.TrimSpace(msg[i+j+2:])
			switch {
			case strings.Contains(detail, "invalid duration"):
				detail += "; allowed: a duration such as 30s, 2m or 1h30m"
			case strings.Contains(detail, "ParseBool"):
				detail += "; allowed: true or false"
			case strings.Contains(detail, "ParseInt"), strings.Contains(detail, "ParseUint"):
				detail += "; allowed: a whole number"
			}
			return &ConfigError{File: c.Source(key), Key: key, Msg: detail}
		}
	}
	return &ConfigError{Msg: msg}
}

func (c *Config) bad(key, msg string) error {
	return &ConfigError{File: c.Source(key), Key: key, Msg: msg}
}

func oneOf(val string, allowed ...string) bool {
	for _, a := range allowed {
		if val == a {
			return true
		}
	}
	return false
}

func (c *Config) validate() error {
	switch {
	case c.Provider.Model == "":
		return c.bad("provider.model", "must name a model (for example gpt-4o-mini)")
	case c.Provider.Timeout <= 0:
		return c.bad("provider.timeout", "must be a positive duration such as 120s")
	case c.Provider.MaxRetries < 0:
		return c.bad("provider.max_retries", "must be 0 or more")
	case c.Agent.MaxIterations < 1:
		return c.bad("agent.max_iterations", fmt.Sprintf("is %d; it must be at least 1", c.Agent.MaxIterations))
	case c.Agent.ToolTimeout <= 0:
		return c.bad("agent.tool_timeout", "must be a positive duration such as 30s")
	case c.Agent.MaxOutputBytes < 1024:
		return c.bad("agent.max_output_bytes", "must be at least 1024")
	case !oneOf(c.OutputStrategy.FunctionCalling, "true", "false", "auto"):
		return c.bad("output_strategy.function_calling", fmt.Sprintf("is %q; allowed: true, false, auto", c.OutputStrategy.FunctionCalling))
	case !oneOf(c.OutputStrategy.FallbackFormat, "tool_action", "json", "xml"):
		return c.bad("output_strategy.fallback_format", fmt.Sprintf("is %q; allowed: tool_action, json, xml", c.OutputStrategy.FallbackFormat))
	case !oneOf(strings.ToLower(c.Logging.Level), "debug", "info", "warn", "error"):
		return c.bad("logging.level", fmt.Sprintf("is %q; allowed: debug, info, warn, error", c.Logging.Level))
	case !oneOf(c.UI.Theme, "dark", "light", "auto"):
		return c.bad("ui.theme", fmt.Sprintf("is %q; allowed: dark, light, auto", c.UI.Theme))
	}
	if c.Agent.ToolChoice == "" {
		c.Agent.ToolChoice = "auto"
	}
	if err := c.Approval.Validate(); err != nil {
		return c.bad("approval", err.Error())
	}
	return nil
}

// sortedKeys returns m's keys in order (for messages listing names).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
