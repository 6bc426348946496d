package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"tact/toolsets"
)

// Provider is one source of tools: the builtin list, the HTTP tools of the
// native folders, one MCP server, the skills folders. The Manager asks each
// provider for its tools in config order.
type Provider interface {
	// Name identifies the source in warnings: "builtin", "native", "mcp:SERVER", "skills".
	Name() string
	// Tools returns the source's tools. On an error the tools returned (if any)
	// are still used and the error is reported; discovery goes on with the
	// next provider.
	Tools(ctx context.Context) ([]Tool, error)
}

type staticProvider struct {
	name  string
	tools []Tool
}

func (p staticProvider) Name() string                          { return p.name }
func (p staticProvider) Tools(context.Context) ([]Tool, error) { return p.tools, nil }

// StaticProvider returns a Provider named name that always returns ts, for
// sources loaded before discovery (builtin tools, native HTTP tools).
func StaticProvider(name string, ts []Tool) Provider {
	return staticProvider{name: name, tools: append([]Tool(nil), ts...)}
}

// MCPPrefix starts a tool-list entry that stands for every tool of an MCP
// server ("mcp:SERVER"); it is also the start of those tools' Spec.Source.
const MCPPrefix = "mcp:"

// ManagerOptions configure a Manager.
//
// Package tools imports tact/toolsets (which imports nothing from tact), so
// the sets travel as toolsets.Set values and keep their file for errors.
type ManagerOptions struct {
	// Providers are the tool sources in config order; on a name clash the
	// earlier provider's tool wins.
	Providers []Provider
	// Sets are the tool sets by name, as toolsets.Load returns them. Nil means
	// the sets embedded in the binary (toolsets.Load(nil)).
	Sets map[string]toolsets.Set
	// MCPServers names every configured MCP server, including those that
	// failed to start, so `mcp:SERVER` for a server that is down is not an
	// unknown name (it just activates no tools, with a warning).
	MCPServers []string
	// Logger receives duplicate-name and provider-failure warnings; nil discards.
	Logger *slog.Logger
}

// Manager discovers the tools of every provider and activates the ones a
// config asks for, by tool set and by name. It is safe for concurrent use.
type Manager struct {
	opts   ManagerOptions
	logger *slog.Logger

	mu        sync.Mutex
	all       []Tool          // discovered, de-duplicated, in provider order
	byName    map[string]Tool // the winners
	shadowed  []Shadowed
	providers map[string]bool // provider names seen by Discover
	lastSets  []string        // arguments of the last successful Activate
	lastTools []string
}

// NewManager returns a Manager; call Discover before Activate.
func NewManager(opts ManagerOptions) *Manager {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.Sets == nil {
		// The embedded sets are part of the binary and tested; an error here
		// would be a build defect, and the sets that did load are still usable.
		sets, _, err := toolsets.Load(nil)
		if err != nil {
			logger.Error("embedded tool sets are broken", "err", err)
		}
		opts.Sets = sets
	}
	return &Manager{opts: opts, logger: logger, byName: map[string]Tool{}, providers: map[string]bool{}}
}

// Discover asks every provider for its tools, in order, and replaces what an
// earlier Discover found. When two tools share a name the first one wins; a
// warning names both sources and the second is kept in Shadowed. A provider
// that fails does not stop discovery: its error (naming the provider) is
// joined into the returned error, so the caller can warn and go on.
func (m *Manager) Discover(ctx context.Context) error {
	var (
		all       []Tool
		byName    = map[string]Tool{}
		winner    = map[string]string{} // tool name → source that kept it
		shadowed  []Shadowed
		providers = map[string]bool{}
		errs      []error
	)
	for _, p := range m.opts.Providers {
		name := p.Name()
		providers[name] = true
		ts, err := p.Tools(ctx)
		if err != nil {
			m.logger.Warn("tool source failed", "source", name, "err", err)
			errs = append(errs, fmt.Errorf("tool source %s: %w", name, err))
		}
		for _, t := range ts {
			if t == nil {
				continue
			}
			spec := t.Spec()
			if spec.Name == "" {
				m.logger.Warn("tool without a name ignored", "source", name)
				continue
			}
			src := sourceOf(spec, name)
			if kept, dup := winner[spec.Name]; dup {
				shadowed = append(shadowed, Shadowed{Name: spec.Name, Source: src, ShadowedBy: kept})
				m.logger.Warn("duplicate tool name: keeping the first in config order",
					"tool", spec.Name, "kept_source", kept, "ignored_source", src)
				continue
			}
			byName[spec.Name] = t
			winner[spec.Name] = src
			all = append(all, t)
		}
		if ctx.Err() != nil {
			errs = append(errs, fmt.Errorf("tool discovery stopped: %w", ctx.Err()))
			break
		}
	}
	m.mu.Lock()
	m.all, m.byName, m.shadowed, m.providers = all, byName, shadowed, providers
	m.mu.Unlock()
	return errors.Join(errs...)
}

// sourceOf is the tool's Spec.Source, or fallback when the tool left it empty.
func sourceOf(s Spec, fallback string) string {
	if s.Source != "" {
		return s.Source
	}
	return fallback
}

// All returns every discovered tool (the winners of name clashes), in provider order.
func (m *Manager) All() []Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Tool(nil), m.all...)
}

// Shadowed returns the tools Discover dropped because an earlier source had
// their name, for `tact tools`.
func (m *Manager) Shadowed() []Shadowed {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Shadowed(nil), m.shadowed...)
}

// SetNames returns the names of the known tool sets, sorted.
func (m *Manager) SetNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.setNames()
}

func (m *Manager) setNames() []string {
	names := make([]string, 0, len(m.opts.Sets))
	for n := range m.opts.Sets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Sets returns the known tool sets by name (a copy).
func (m *Manager) Sets() map[string]toolsets.Set {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]toolsets.Set, len(m.opts.Sets))
	for k, v := range m.opts.Sets {
		out[k] = v
	}
	return out
}

// SetSets replaces the known tool sets (after a tool-set file changed).
func (m *Manager) SetSets(sets map[string]toolsets.Set) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opts.Sets = sets
}

// Activate builds the Registry of the tools the config asks for: the tools of
// each set in setNames (in the given order, each set in file order), then
// the single tools of toolNames, without repeats. In both lists `mcp:SERVER`
// stands for every discovered tool whose Spec.Source is "mcp:SERVER".
//
// Unknown set or tool names are all reported in one error that lists the
// names that do exist (sorted); the caller adds the config file's name.
// Empty lists give an empty Registry: choosing a default set is the caller's job.
func (m *Manager) Activate(setNames, toolNames []string) (*Registry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()

	var (
		picked []Tool
		seen   = map[string]bool{}
		errs   []error
	)
	add := func(entry, where string) {
		if server, ok := strings.CutPrefix(entry, MCPPrefix); ok {
			ts, err := m.mcpTools(server, where)
			if err != nil {
				errs = append(errs, err)
			}
			for _, t := range ts {
				if n := t.Spec().Name; !seen[n] {
					seen[n] = true
					picked = append(picked, t)
				}
			}
			return
		}
		t, ok := m.byName[entry]
		if !ok {
			errs = append(errs, fmt.Errorf("unknown tool %q%s; known tools: %s",
				entry, where, strings.Join(m.toolNames(), ", ")))
			return
		}
		if !seen[entry] {
			seen[entry] = true
			picked = append(picked, t)
		}
	}

	for _, sn := range setNames {
		set, ok := m.opts.Sets[sn]
		if !ok {
			errs = append(errs, fmt.Errorf("unknown tool set %q; known tool sets: %s",
				sn, strings.Join(m.setNames(), ", ")))
			continue
		}
		for _, entry := range set.Tools {
			add(entry, fmt.Sprintf(" in tool set %q (%s)", set.Name, set.File))
		}
	}
	for _, tn := range toolNames {
		add(tn, "")
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	reg := NewRegistry(m.logger)
	for _, t := range picked {
		reg.Register(t)
	}
	m.lastSets = append([]string(nil), setNames...)
	m.lastTools = append([]string(nil), toolNames...)
	return reg, nil
}

// Reload runs Discover again (for instance after an MCP server's tool list
// changed) and re-activates the sets and tools of the last successful
// Activate. The Discover error is returned along with the Registry, as in
// Discover; an Activate error returns a nil Registry.
func (m *Manager) Reload(ctx context.Context) (*Registry, error) {
	derr := m.Discover(ctx)
	m.mu.Lock()
	sets, names := m.lastSets, m.lastTools
	m.mu.Unlock()
	reg, err := m.Activate(sets, names)
	if err != nil {
		return nil, errors.Join(derr, err)
	}
	return reg, derr
}

// mcpTools returns the discovered tools of an MCP server. An unknown server
// is an error listing the known ones; a known server without tools (not
// started, or empty) only logs a warning. Called with m.mu held.
func (m *Manager) mcpTools(server, where string) ([]Tool, error) {
	source := MCPPrefix + server
	var ts []Tool
	for _, t := range m.all {
		if t.Spec().Source == source {
			ts = append(ts, t)
		}
	}
	known := m.mcpServers()
	if len(ts) == 0 {
		for _, k := range known {
			if k == server {
				m.logger.Warn("MCP server has no tools to activate (did it start?)", "server", server)
				return nil, nil
			}
		}
		list := "none configured"
		if len(known) > 0 {
			list = strings.Join(known, ", ")
		}
		return nil, fmt.Errorf("unknown MCP server %q in %q%s; known MCP servers: %s",
			server, source, where, list)
	}
	return ts, nil
}

// mcpServers lists, sorted, the servers named in the options, by providers
// called mcp:SERVER, or by a discovered tool's source. Called with m.mu held.
func (m *Manager) mcpServers() []string {
	set := map[string]bool{}
	for _, s := range m.opts.MCPServers {
		set[s] = true
	}
	for p := range m.providers {
		if s, ok := strings.CutPrefix(p, MCPPrefix); ok && s != "" {
			set[s] = true
		}
	}
	for _, t := range m.all {
		if s, ok := strings.CutPrefix(t.Spec().Source, MCPPrefix); ok && s != "" {
			set[s] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// toolNames returns the discovered tool names, sorted. Called with m.mu held.
func (m *Manager) toolNames() []string {
	names := make([]string, 0, len(m.byName))
	for n := range m.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"(none discovered)"}
	}
	return names
}

// Summary describes what the last Activate turned on, for the status line
// and logs, e.g. "tool sets: coding, web — 9 tools" or
// "tool sets: coding + tools: get_weather — 9 tools".
func (m *Manager) Summary(reg *Registry) string {
	m.mu.Lock()
	sets, names := m.lastSets, m.lastTools
	m.mu.Unlock()
	var parts []string
	if len(sets) > 0 {
		parts = append(parts, "tool sets: "+strings.Join(sets, ", "))
	}
	if len(names) > 0 {
		parts = append(parts, "tools: "+strings.Join(names, ", "))
	}
	n := 0
	if reg != nil {
		n = reg.Len()
	}
	count := fmt.Sprintf("%d tools", n)
	if n == 1 {
		count = "1 tool"
	}
	if len(parts) == 0 {
		return count
	}
	return strings.Join(parts, " + ") + " — " + count
}
