package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TransportFactory makes a fresh transport for one connection attempt. The
// pool calls it at Connect and again for every restart.
type TransportFactory func(ctx context.Context) (sdk.Transport, error)

// stopGrace is how long a stdio server gets after its stdin closes before its
// process group is signalled.
const stopGrace = time.Second

// stdioProc remembers the command of the latest stdio connection, so the pool
// can describe how it exited and kill its process group.
type stdioProc struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	stderr *lineLogger
}

// set records the command of a new connection.
func (p *stdioProc) set(cmd *exec.Cmd, stderr *lineLogger) {
	p.mu.Lock()
	p.cmd, p.stderr = cmd, stderr
	p.mu.Unlock()
}

// flush logs a last stderr line that had no newline.
func (p *stdioProc) flush() {
	p.mu.Lock()
	l := p.stderr
	p.mu.Unlock()
	if l != nil {
		l.flush()
	}
}

// exitStatus describes how the process ended, or "" while it runs.
func (p *stdioProc) exitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.ProcessState == nil {
		return ""
	}
	return p.cmd.ProcessState.String()
}

// killGroup signals the whole process group of the latest command.
func (p *stdioProc) killGroup(sig int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && p.cmd.Process != nil {
		signalGroup(p.cmd.Process.Pid, sig)
	}
}

// stdioFactory runs cfg.Command in its own process group with its stderr sent
// to the logger line by line.
func stdioFactory(cfg ServerConfig, logger *slog.Logger, proc *stdioProc) TransportFactory {
	return func(ctx context.Context) (sdk.Transport, error) {
		path, err := exec.LookPath(cfg.Command)
		if err != nil {
			return nil, fmt.Errorf("MCP server %s: command %q not found (%w); install it or fix command in %s", cfg.Name, cfg.Command, err, sourceOf(cfg))
		}
		cmd := exec.Command(path, cfg.Args...)
		cmd.Env = os.Environ()
		for _, e := range cfg.Env {
			cmd.Env = append(cmd.Env, e.Name+"="+os.ExpandEnv(e.Value))
		}
		setProcessGroup(cmd)
		stderr := &lineLogger{logger: logger}
		cmd.Stderr = stderr
		cmd.WaitDelay = stopGrace
		proc.set(cmd, stderr)
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: stopGrace}, nil
	}
}

// httpFactory connects to a remote server over streamable HTTP, adding the
// configured authentication header. The API key is read at connect time.
func httpFactory(cfg ServerConfig) TransportFactory {
	return func(ctx context.Context) (sdk.Transport, error) {
		headers := http.Header{}
		for _, h := range cfg.Headers {
			headers.Set(h.Name, os.ExpandEnv(h.Value))
		}
		if cfg.APIKeyEnv != "" {
			key := os.Getenv(cfg.APIKeyEnv)
			if key == "" {
				return nil, fmt.Errorf("MCP server %s: environment variable %s is empty; export it with the server's API key (see %s)", cfg.Name, cfg.APIKeyEnv, sourceOf(cfg))
			}
			if cfg.Header == "" || strings.EqualFold(cfg.Header, "Authorization") {
				headers.Set("Authorization", "Bearer "+key)
			} else {
				headers.Set(cfg.Header, key)
			}
		}
		client := &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: headers}}
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: 2}, nil
	}
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	for k, v := range t.headers {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// sourceOf names where a server was configured.
func sourceOf(cfg ServerConfig) string {
	if cfg.Source != "" {
		return cfg.Source
	}
	return "the MCP server config"
}

// maxLogLine caps one logged stderr line.
const maxLogLine = 4096

// lineLogger writes a server's stderr to the logger, one record per line.
type lineLogger struct {
	mu     sync.Mutex
	logger *slog.Logger
	buf    []byte
}

// Write implements io.Writer.
func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			if len(l.buf) > maxLogLine {
				l.emit(l.buf[:maxLogLine])
				l.buf = append(l.buf[:0], l.buf[maxLogLine:]...)
				continue
			}
			break
		}
		l.emit(l.buf[:i])
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	return len(p), nil
}

// flush logs what is left in the buffer.
func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(l.buf)
		l.buf = l.buf[:0]
	}
}

// emit logs one line.
func (l *lineLogger) emit(line []byte) {
	s := strings.TrimRight(string(line), "\r")
	if len(s) > maxLogLine {
		s = s[:maxLogLine]
	}
	if strings.TrimSpace(s) != "" {
		l.logger.Info("mcp server stderr", "line", s)
	}
}
