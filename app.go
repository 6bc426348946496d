package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"tact/agent"
	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/approval"
	"tact/audit"
	"tact/redact"
	"tact/session"
	"tact/tools"
	"tact/tools/builtin"
	"tact/tools/mcp"
	"tact/tools/native"
	"tact/tools/skills"
	"tact/toolsets"
)

// app is tact wired together from a Config: the model client, the tools,
// the approval policy, the agent and the session it saves to.
type app struct {
	cfg      *Config
	workdir  string
	logger   *slog.Logger
	logFile  *os.File
	secrets  []string
	client   *llm.Client
	demo     bool
	model    string
	mcp      *mcp.Pool
	manager  *tools.Manager
	executor *tools.Executor
	policy   *approval.Policy
	agent    *agent.Agent
	store    *session.Store
	caps     *capabilityCache
	warnings []string // problems found while starting, shown to the user

	mu      sync.Mutex
	sess    *session.Session
	audit   *audit.Log
	resumed []llm.Message
	sets    []string // active tool sets
}

// appOptions are the parts of newApp that differ between front ends.
type appOptions struct {
	// asker is consulted when a rule says "ask" (the TUI); nil is headless.
	asker agent.Approver
	// yes is --yes.
	yes bool
	// workdir is --workdir.
	workdir string
	// protocol is --protocol.
	protocol string
	// resume is --resume ID; cont is --continue.
	resume string
	cont   bool
	// noMCP skips starting MCP servers.
	noMCP bool
}

func resolveWorkdir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("finding the working directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workdir %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return "", &ConfigError{Key: "--workdir", Msg: fmt.Sprintf("%s is not a folder", dir)}
	}
	return abs, nil
}

// openLog opens the log file; logs never go to the terminal.
func openLog(cfg *Config, secrets []string) (*slog.Logger, *os.File, error) {
	path := cfg.Logging.File
	if path == "" {
		dir, err := stateDir()
		if err != nil {
			return slog.New(slog.DiscardHandler), nil, nil
		}
		path = filepath.Join(dir, "tact.log")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, &ConfigError{File: cfg.Source("logging.file"), Key: "logging.file", Msg: fmt.Sprintf("cannot create the log folder: %v", err)}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, &ConfigError{File: cfg.Source("logging.file"), Key: "logging.file", Msg: fmt.Sprintf("cannot open the log file: %v", err)}
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Logging.Level))
	h := slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})
	return slog.New(redact.NewHandler(h, secrets)), f, nil
}

// stateDir is $XDG_STATE_HOME/tact (default ~/.local/state/tact): the
// parent of the sessions folder, decided by one rule in package session.
func stateDir() (string, error) {
	dir, err := session.DefaultDir()
	if err != nil {
		return "", err
	}
	return filepath.Dir(dir), nil
}

// newApp wires tact from cfg. It starts MCP servers (unless noMCP), so the
// caller must call close.
func newApp(ctx context.Context, cfg *Config, o appOptions) (*app, error) {
	a := &app{cfg: cfg}
	var err error
	if a.workdir, err = resolveWorkdir(o.workdir); err != nil {
		return nil, err
	}
	a.secrets = redact.SecretValuesFromEnv(os.Environ())
	if key := os.Getenv(cfg.Provider.APIKeyEnv); cfg.Provider.APIKeyEnv != "" && len(key) >= redact.MinSecretLen && !slices.Contains(a.secrets, key) {
		a.secrets = append(a.secrets, key) // whatever the variable is called
	}
	if a.logger, a.logFile, err = openLog(cfg, a.secrets); err != nil {
		return nil, err
	}
	a.logger.Info("tact starting", "version", version, "workdir", a.workdir, "config_files", strings.Join(cfg.Files, ","))
	for _, w := range cfg.Warnings {
		a.warn("%s", w)
	}

	a.caps = newCapabilityCache()
	a.setupClient()
	if err := a.setupTools(ctx, o.noMCP); err != nil {
		a.close()
		return nil, err
	}
	proto, fallback, err := a.chooseProtocol(o.protocol)
	if err != nil {
		a.close()
		return nil, err
	}
	a.policy, err = approval.NewPolicy(cfg.Approval, approval.Options{Workdir: a.workdir, Yes: o.yes, Asker: o.asker, Logger: a.logger})
	if err != nil {
		a.close()
		return nil, &ConfigError{File: cfg.Source("approval"), Key: "approval", Msg: err.Error()}
	}
	if dir, err := session.DefaultDir(); err == nil {
		a.store = &session.Store{Dir: dir, Secrets: a.secrets, Logger: a.logger}
	}
	a.agent = agent.New(agent.Options{
		Provider:          a.client,
		Model:             a.model,
		Executor:          a.executor,
		Protocol:          proto,
		Fallback:          fallback,
		SystemPrompt:      cfg.Agent.SystemPrompt,
		MaxIterations:     cfg.Agent.MaxIterations,
		ToolChoice:        cfg.Agent.ToolChoice,
		ParallelToolCalls: cfg.Agent.ParallelToolCalls,
		DisableTextCalls:  !cfg.OutputStrategy.EnableToolActionParsing,
		Approver:          a.policy,
		Logger:            a.logger,
		Redact:            redact.New(a.secrets).String,
		Observer:          a.observe,
		OnMessage:         a.saveMessage,
		OnFallback: func(model string) {
			a.caps.record(a.client.BaseURL(), model, false)
		},
	})
	if err := a.resume(o); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// setupClient picks the model server: the configured one, or the offline
// demo model when there is neither an API key nor a base URL.
func (a *app) setupClient() {
	cfg := a.cfg.Provider
	key := ""
	if cfg.APIKeyEnv != "" {
		key = os.Getenv(cfg.APIKeyEnv)
		// The key stays with the client only: tools, skills and MCP servers
		// started from here on do not inherit it, and any tool output that
		// still shows it is redacted.
		if key != "" {
			os.Unsetenv(cfg.APIKeyEnv)
		}
	}
	base := cfg.BaseURL
	if base == "" {
		base = os.Getenv("OPENAI_BASE_URL")
	}
	opts := llm.Options{BaseURL: base, APIKey: key, Model: cfg.Model, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, Logger: a.logger,
		OnRetry: func(attempt int, wait time.Duration, err error) {
			if a.agent != nil {
				a.agent.Warn(fmt.Sprintf("model request failed (%v); retry %d in %s", err, attempt, wait.Round(100*time.Millisecond)))
			}
		}}
	if cfg.MaxRetries == 0 {
		opts.MaxRetries = -1 // the client reads 0 as "the default"; the config means none
	}
	if key == "" && base == "" {
		a.demo = true
		opts.BaseURL, opts.Model, opts.Transport = llm.DemoBaseURL, llm.DemoModel, llm.DemoTransport()
	}
	a.model = opts.Model
	a.client = llm.New(opts)
	a.logger.Info("model", "base_url", a.client.BaseURL(), "model", a.model, "demo", a.demo)
}

// setupTools discovers every tool source and activates the configured sets.
func (a *app) setupTools(ctx context.Context, noMCP bool) error {
	cfg := a.cfg
	providers := []tools.Provider{
		tools.StaticProvider("builtin", builtin.New(builtin.Options{Workdir: a.workdir, PassEnv: cfg.Secrets.PassEnv, Logger: a.logger})),
		native.NewProvider(cfg.ToolDirs.Native, nil, a.logger),
	}
	var servers []string
	if !noMCP {
		mcpCfgs := a.mcpConfigs()
		for _, c := range mcpCfgs {
			servers = append(servers, c.Name)
		}
		if len(mcpCfgs) > 0 {
			a.mcp = mcp.NewPool(mcpCfgs, mcp.PoolOptions{Logger: a.logger, ClientName: "tact", ClientVersion: version, DefaultTimeout: cfg.Agent.ToolTimeout})
			if err := a.mcp.Connect(ctx); err != nil {
				a.warn("MCP: %v", err)
			}
			for _, p := range a.mcp.Providers() {
				providers = append(providers, p)
			}
		}
	}
	skillTools, errs := skills.Load(cfg.ToolDirs.Skills, skills.Options{
		AllowUnsandboxed: cfg.Skills.AllowUnsandboxed, PassEnv: cfg.Secrets.PassEnv,
		Timeout: cfg.Agent.ToolTimeout, Logger: a.logger,
	})
	for _, err := range errs {
		if !errors.Is(err, fs.ErrNotExist) {
			a.warn("skill: %v", err)
		}
	}
	providers = append(providers, tools.StaticProvider("skill", skillTools))

	sets, _, err := toolsets.Load(cfg.ToolsetDirs)
	if err != nil {
		return &ConfigError{File: cfg.Source("toolset_dirs"), Key: "toolset_dirs", Msg: err.Error()}
	}
	a.manager = tools.NewManager(tools.ManagerOptions{Providers: providers, Sets: sets, MCPServers: servers, Logger: a.logger})
	if err := a.manager.Discover(ctx); err != nil {
		a.warn("tools: %v", err)
	}
	reg, err := a.activate(cfg, cfg.ToolSets, cfg.Tools)
	if err != nil {
		return err
	}
	if tc := cfg.Agent.ToolChoice; !oneOf(tc, "auto", "none", "required") && !reg.Has(tc) {
		return &ConfigError{File: cfg.Source("agent.tool_choice"), Key: "agent.tool_choice",
			Msg: fmt.Sprintf("is %q; allowed: auto, none, required, or the name of an active tool (%s)", tc, strings.Join(reg.Names(), ", "))}
	}
	a.executor = tools.NewExecutor(reg, tools.ExecutorOptions{
		DefaultTimeout: cfg.Agent.ToolTimeout,
		MaxOutputBytes: cfg.Agent.MaxOutputBytes,
		Parallel:       cfg.Agent.ParallelToolCalls,
		Logger:         a.logger,
	})
	if a.mcp != nil {
		// A server's tools/list_changed re-lists its tools; rebuild the
		// active registry off the SDK's goroutine, before the next request.
		a.mcp.OnChange(func() { go a.refreshTools(ctx) })
	}
	return nil
}

// refreshTools rediscovers every source and re-activates the same sets.
func (a *app) refreshTools(ctx context.Context) {
	reg, err := a.manager.Reload(ctx)
	if reg == nil {
		a.logger.Warn("tool list changed, but re-activating the tools failed", "err", err)
		return
	}
	a.executor.SetRegistry(reg)
	a.logger.Info("tool list changed", "summary", a.manager.Summary(reg))
}

// activate builds the registry of the given sets and tools; unknown names
// are a config error naming the file of cfg that listed them.
func (a *app) activate(cfg *Config, sets, single []string) (*tools.Registry, error) {
	reg, err := a.manager.Activate(sets, single)
	if err != nil {
		key := "tool_sets"
		if strings.Contains(err.Error(), "tool ") && !strings.Contains(err.Error(), "tool set") {
			key = "tools"
		}
		return nil, &ConfigError{File: cfg.Source(key), Key: key, Msg: err.Error()}
	}
	a.mu.Lock()
	a.sets = append([]string(nil), sets...)
	a.mu.Unlock()
	return reg, nil
}

// swapTools makes the given sets and tools the active ones now and returns
// the notice that says so ("tool sets: coding, web — 9 tools"). cfg names
// the file in errors.
func (a *app) swapTools(cfg *Config, sets, single []string) (string, error) {
	reg, err := a.activate(cfg, sets, single)
	if err != nil {
		return "", err
	}
	a.executor.SetRegistry(reg)
	return a.manager.Summary(reg), nil
}

// mcpConfigs reads the MCP server entries of every configured folder and
// the .mcp.json file.
func (a *app) mcpConfigs() []mcp.ServerConfig {
	var out []mcp.ServerConfig
	for _, dir := range a.cfg.ToolDirs.MCP {
		cfgs, errs := mcp.LoadDir(dir)
		for _, err := range errs {
			if !errors.Is(err, fs.ErrNotExist) {
				a.warn("MCP server config: %v", err)
			}
		}
		out = append(out, cfgs...)
	}
	if a.cfg.MCPJSON != "" {
		cfgs, err := mcp.LoadMCPJSON(a.cfg.MCPJSON)
		if err != nil {
			a.warn("%v", err)
		}
		out = append(out, cfgs...)
	}
	return out
}

// chooseProtocol decides how tool calls travel, from --protocol or
// output_strategy, and which text protocol to fall back to.
func (a *app) chooseProtocol(flag string) (protocol.Protocol, protocol.Protocol, error) {
	strategy := a.cfg.OutputStrategy
	fallbackName := strategy.FallbackFormat
	var fallback protocol.Protocol
	if strategy.FallbackToStructuredOutput {
		p, err := protocol.ForName(fallbackName)
		if err != nil {
			return nil, nil, &ConfigError{File: a.cfg.Source("output_strategy.fallback_format"), Key: "output_strategy.fallback_format", Msg: err.Error()}
		}
		fallback = p
	}
	mode := strategy.FunctionCalling
	if flag != "" {
		switch flag {
		case "auto":
			mode = "auto"
		case "native":
			mode = "true"
		default:
			p, err := protocol.ForName(flag)
			if err != nil {
				return nil, nil, &ConfigError{Key: "--protocol", Msg: err.Error() + " (or auto)"}
			}
			return p, nil, nil
		}
	}
	native, _ := protocol.ForName("native")
	switch mode {
	case "true":
		return native, fallback, nil
	case "false":
		p, err := protocol.ForName(fallbackName)
		if err != nil {
			return nil, nil, &ConfigError{File: a.cfg.Source("output_strategy.fallback_format"), Key: "output_strategy.fallback_format", Msg: err.Error()}
		}
		return p, nil, nil
	}
	// auto: known families decide; then what an earlier run learned from
	// this server (capabilities.json); otherwise start native and fall back
	// the first time the server rejects tools — that first request is the
	// probe, and its answer is remembered.
	if a.demo || fallback == nil {
		return native, fallback, nil
	}
	supported, known := llm.SupportsFunctionCalling(a.model)
	why := "model family without function calling"
	if !known {
		supported, known = a.caps.nativeTools(a.client.BaseURL(), a.model)
		why = "the server rejected native tools before (capabilities.json)"
	}
	if known && !supported {
		a.logger.Info("protocol", "model", a.model, "choice", fallback.Name(), "why", why)
		return fallback, nil, nil
	}
	return native, fallback, nil
}

func (a *app) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	a.logger.Warn(msg)
	a.warnings = append(a.warnings, msg)
}

// resume loads the history of --continue or --resume.
func (a *app) resume(o appOptions) error {
	if !o.cont && o.resume == "" {
		return nil
	}
	if a.store == nil {
		return errors.New("cannot resume: no state folder (set XDG_STATE_HOME or HOME)")
	}
	id := o.resume
	if o.cont {
		meta, err := a.store.Latest(a.workdir)
		if err != nil {
			return fmt.Errorf("--continue: %w", err)
		}
		id = meta.ID
	}
	sess, history, err := a.store.Open(id)
	if err != nil {
		return fmt.Errorf("--resume %s: %w", id, err)
	}
	for _, w := range sess.Warnings() {
		a.warn("session %s: %s", id, w)
	}
	a.mu.Lock()
	a.sess = sess
	a.resumed = history
	a.mu.Unlock()
	a.openAudit(sess)
	a.agent.SetHistory(history)
	return nil
}

// saveMessage appends a message to the session, creating it on the first one.
func (a *app) saveMessage(msg llm.Message) error {
	if a.store == nil {
		return nil
	}
	a.mu.Lock()
	sess := a.sess
	a.mu.Unlock()
	if sess == nil {
		var err error
		sess, err = a.store.Create(session.Meta{Workdir: a.workdir, Model: a.agent.Model()})
		if err != nil {
			return fmt.Errorf("creating the session file: %w", err)
		}
		a.mu.Lock()
		a.sess = sess
		a.mu.Unlock()
		a.openAudit(sess)
	}
	return sess.Append(msg)
}

func (a *app) openAudit(sess *session.Session) {
	l, err := audit.Open(sess.AuditPath(), audit.Options{Secrets: a.secrets, Logger: a.logger})
	if err != nil {
		a.logger.Warn("audit log unavailable", "err", err)
		return
	}
	a.mu.Lock()
	a.audit = l
	a.mu.Unlock()
}

// observe records approvals and results in the session's audit file.
func (a *app) observe(ev agent.Event) {
	if ev.Type != agent.EventApproval && ev.Type != agent.EventToolResult {
		return
	}
	a.mu.Lock()
	l := a.audit
	a.mu.Unlock()
	if l != nil {
		l.Sink(nil)(ev)
	}
}

// newSession starts a fresh conversation (the TUI's /clear).
func (a *app) newSession() {
	a.mu.Lock()
	sess, l := a.sess, a.audit
	a.sess, a.audit = nil, nil
	a.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
	if l != nil {
		l.Close()
	}
	a.agent.Reset()
}

// sessionID returns the current session's ID, if one was created.
func (a *app) sessionID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sess == nil {
		return ""
	}
	return a.sess.ID()
}

// close stops MCP servers and closes files.
func (a *app) close() {
	if a.mcp != nil {
		done := make(chan struct{})
		go func() { a.mcp.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}
	a.mu.Lock()
	sess, l := a.sess, a.audit
	a.mu.Unlock()
	if sess != nil {
		sess.Close()
	}
	if l != nil {
		l.Close()
	}
	if a.logFile != nil {
		a.logger.Info("tact stopped")
		a.logFile.Close()
	}
}

// printWarnings writes start-up warnings to w.
func (a *app) printWarnings(w io.Writer) {
	for _, msg := range a.warnings {
		fmt.Fprintln(w, "warning:", msg)
	}
}
