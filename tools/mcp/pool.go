package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"tact/tools"
)

// PoolOptions configures a Pool.
type PoolOptions struct {
	// Logger receives connection events and the stderr of stdio servers
	// (nil discards them).
	Logger *slog.Logger
	// ClientName and ClientVersion identify tact to servers (default "tact", "dev").
	ClientName    string
	ClientVersion string
	// DefaultTimeout is the per-call timeout of tools whose server sets no
	// Timeout; zero leaves it to the executor's default.
	DefaultTimeout time.Duration
	// ConnectTimeout bounds starting a server, initialising the session and
	// listing its tools (default 60s; npx may download the server first).
	ConnectTimeout time.Duration
	// Transports, keyed by server name, replace the transport the pool would
	// build from the config (used by tests and embedders, e.g. for in-memory
	// servers). The factory is called again for every restart.
	Transports map[string]TransportFactory
}

// Pool runs the configured MCP servers and offers each one's tools through a
// Provider. It is safe for concurrent use.
type Pool struct {
	logger         *slog.Logger
	clientName     string
	clientVersion  string
	defaultTimeout time.Duration
	connectTimeout time.Duration
	servers        []*server

	cbMu      sync.Mutex
	callbacks []func()
}

// NewPool prepares (but does not start) the enabled servers in cfgs.
func NewPool(cfgs []ServerConfig, opts PoolOptions) *Pool {
	p := &Pool{
		logger:         opts.Logger,
		clientName:     opts.ClientName,
		clientVersion:  opts.ClientVersion,
		defaultTimeout: opts.DefaultTimeout,
		connectTimeout: opts.ConnectTimeout,
	}
	if p.logger == nil {
		p.logger = slog.New(slog.DiscardHandler)
	}
	if p.clientName == "" {
		p.clientName = "tact"
	}
	if p.clientVersion == "" {
		p.clientVersion = "dev"
	}
	if p.connectTimeout <= 0 {
		p.connectTimeout = 60 * time.Second
	}
	for _, cfg := range cfgs {
		if !cfg.IsEnabled() {
			continue
		}
		s := &server{pool: p, cfg: cfg, logger: p.logger.With("mcp_server", cfg.Name)}
		switch {
		case opts.Transports[cfg.Name] != nil:
			s.factory = opts.Transports[cfg.Name]
		case cfg.Remote():
			s.factory = httpFactory(cfg)
		default:
			s.proc = &stdioProc{}
			s.factory = stdioFactory(cfg, s.logger, s.proc)
		}
		p.servers = append(p.servers, s)
	}
	return p
}

// Connect starts or connects every server in parallel and lists its tools.
// A server that fails is logged as a warning and keeps its error (see
// Status and Provider.Tools); the others continue. The returned error joins
// the failures, or is nil when every server is up.
func (p *Pool) Connect(ctx context.Context) error {
	errs := make([]error, len(p.servers))
	var wg sync.WaitGroup
	for i, s := range p.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.connMu.Lock()
			defer s.connMu.Unlock()
			if err := s.connect(ctx); err != nil {
				p.logger.Warn("mcp server failed to start", "server", s.cfg.Name, "err", err)
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Close stops every server: sessions are closed and stdio servers' process
// groups are terminated. Calls made afterwards fail.
func (p *Pool) Close() error {
	var wg sync.WaitGroup
	for _, s := range p.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shutdown()
		}()
	}
	wg.Wait()
	return nil
}

// OnChange registers f to be called (on its own goroutine's time, without
// pool locks held) whenever a server's tool list changes: after a listing,
// a tools/list_changed notification or a restart.
func (p *Pool) OnChange(f func()) {
	p.cbMu.Lock()
	p.callbacks = append(p.callbacks, f)
	p.cbMu.Unlock()
}

// notifyChange runs the OnChange callbacks.
func (p *Pool) notifyChange() {
	p.cbMu.Lock()
	cbs := append([]func(){}, p.callbacks...)
	p.cbMu.Unlock()
	for _, f := range cbs {
		f()
	}
}

// Providers returns one tool provider per server, in config order.
func (p *Pool) Providers() []*Provider {
	out := make([]*Provider, len(p.servers))
	for i, s := range p.servers {
		out[i] = &Provider{pool: p, srv: s}
	}
	return out
}

// ServerStatus is a server's state, for `tact tools` and /stats.
type ServerStatus struct {
	// Name is the configured server name.
	Name string
	// Running is true while the server has a live session.
	Running bool
	// Tools is the number of tools in the latest listing.
	Tools int
	// Err is why the server is not running (failed start or exit), or nil.
	Err error
}

// Status reports every server's state, in config order.
func (p *Pool) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(p.servers))
	for _, s := range p.servers {
		s.mu.Lock()
		st := ServerStatus{Name: s.cfg.Name, Tools: len(s.tools)}
		st.Running = s.session != nil && !s.dead && !s.closed
		switch {
		case s.startErr != nil:
			st.Err = s.startErr
		case s.dead:
			st.Err = errors.New(notRunning(s.cfg.Name, s.reason))
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Provider offers the tools of one MCP server. It satisfies the tools
// package's provider interface: Name() and Tools(ctx).
type Provider struct {
	pool *Pool
	srv  *server
}

// Name returns "mcp:SERVER", the source name used in tool sets and listings.
func (pr *Provider) Name() string { return "mcp:" + pr.srv.cfg.Name }

// Tools returns the server's tools from its latest listing. Tool names are
// the server's own, or SERVER__TOOL when another server of the pool offers a
// tool with the same name. A server that never started returns its start
// error; one that died keeps its tools (calling them reports the exit and
// restarts it).
func (pr *Provider) Tools(ctx context.Context) ([]tools.Tool, error) {
	s := pr.srv
	s.mu.Lock()
	list, listed, startErr := s.tools, s.listed, s.startErr
	s.mu.Unlock()
	if !listed {
		if startErr != nil {
			return nil, startErr
		}
		return nil, fmt.Errorf("MCP server %s is not connected yet; call Pool.Connect first", s.cfg.Name)
	}
	counts := pr.pool.nameCounts()
	out := make([]tools.Tool, 0, len(list))
	for _, t := range list {
		name := t.Name
		if counts[t.Name] > 1 {
			name = s.cfg.Name + "__" + t.Name
		}
		out = append(out, newTool(s, t, name))
	}
	return out, nil
}

// nameCounts counts, for each tool name, how many servers offer it.
func (p *Pool) nameCounts() map[string]int {
	counts := map[string]int{}
	for _, s := range p.servers {
		seen := map[string]bool{}
		for _, t := range s.snapshot() {
			if !seen[t.Name] {
				seen[t.Name] = true
				counts[t.Name]++
			}
		}
	}
	return counts
}
