package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"tact/tools"
)

// errPoolClosed is returned when a server is used after Pool.Close.
var errPoolClosed = errors.New("the MCP pool has been closed")

// server is one configured MCP server and its current connection.
type server struct {
	pool    *Pool
	cfg     ServerConfig
	factory TransportFactory
	proc    *stdioProc // nil unless the server is a command started by the pool
	logger  *slog.Logger

	connMu sync.Mutex // serialises connecting and restarting
	deadMu sync.Mutex // held while a session is marked dead, so dead and reason appear together
	listMu sync.Mutex // serialises tool listing, so the newest listing wins

	mu       sync.Mutex
	session  *sdk.ClientSession
	tools    []*sdk.Tool // latest listing; replaced, never modified
	listed   bool        // tools has been listed at least once
	startErr error       // last failure to connect
	dead     bool        // the connection broke after it was made
	reason   string      // why it broke
	reported bool        // a call has already been told it is dead
	closed   bool
}

// connect starts (or restarts) the server, initialises the session and lists
// its tools. The caller holds connMu.
func (s *server) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.pool.connectTimeout)
	defer cancel()
	err := s.connectOnce(ctx)
	s.mu.Lock()
	s.startErr = err
	s.mu.Unlock()
	return err
}

// connectOnce does the work of connect.
func (s *server) connectOnce(ctx context.Context) error {
	t, err := s.factory(ctx)
	if err != nil {
		return err
	}
	client := sdk.NewClient(
		&sdk.Implementation{Name: s.pool.clientName, Version: s.pool.clientVersion},
		&sdk.ClientOptions{
			Logger: s.logger,
			ToolListChangedHandler: func(_ context.Context, req *sdk.ToolListChangedRequest) {
				cs := req.Session
				go func() {
					lctx, cancel := context.WithTimeout(context.Background(), s.pool.connectTimeout)
					defer cancel()
					if err := s.relist(lctx, cs); err != nil {
						s.logger.Warn("re-listing MCP tools after tools/list_changed failed", "err", err)
					}
				}()
			},
		})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		s.killStragglers()
		return fmt.Errorf("starting MCP server %s: %w; check its command/url in %s and the log for its stderr", s.cfg.Name, err, sourceOf(s.cfg))
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = cs.Close()
		s.killStragglers()
		return errPoolClosed
	}
	s.session, s.dead, s.reported, s.reason = cs, false, false, ""
	s.mu.Unlock()
	go s.watch(cs)
	if err := s.relist(ctx, cs); err != nil {
		s.markDead(cs, err)
		s.mu.Lock()
		s.reported = true // the caller reports this error; the next call restarts
		s.mu.Unlock()
		return fmt.Errorf("listing the tools of MCP server %s: %w", s.cfg.Name, err)
	}
	s.logger.Info("mcp server connected", "tools", len(s.snapshot()))
	return nil
}

// relist fetches every page of the server's tools and stores the result if
// cs is still the current session. It tells the pool when the list changed.
func (s *server) relist(ctx context.Context, cs *sdk.ClientSession) error {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	var list []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		list = append(list, t)
	}
	s.mu.Lock()
	if s.session != cs {
		s.mu.Unlock()
		return nil
	}
	changed := !sameTools(s.tools, list)
	s.tools, s.listed = list, true
	s.mu.Unlock()
	if changed {
		s.logger.Info("mcp tools listed", "tools", len(list))
		s.pool.notifyChange()
	}
	return nil
}

// sameTools compares two listings by their JSON form.
func sameTools(a, b []*sdk.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return reflect.DeepEqual(ja, jb)
}

// snapshot returns the latest tool listing.
func (s *server) snapshot() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// watch waits for the session to end and, unless tact ended it, marks the
// server dead so the next call reports it and the one after restarts it.
func (s *server) watch(cs *sdk.ClientSession) {
	err := cs.Wait()
	s.mu.Lock()
	mine := s.session == cs && !s.closed && !s.dead
	s.mu.Unlock()
	if mine {
		s.markDead(cs, err)
	}
}

// markDead closes a broken session and records why it broke. It returns the
// reason.
func (s *server) markDead(cs *sdk.ClientSession, cause error) string {
	s.deadMu.Lock()
	defer s.deadMu.Unlock()
	s.mu.Lock()
	if s.session != cs || s.closed {
		reason := s.reason
		s.mu.Unlock()
		return reason
	}
	if s.dead {
		reason := s.reason
		s.mu.Unlock()
		return reason
	}
	s.dead = true
	s.mu.Unlock()

	_ = cs.Close() // reaps a stdio process, so its exit status is known
	s.killStragglers()
	reason := "connection closed"
	if st := s.exitStatus(); st != "" {
		reason = st
	} else if cause != nil {
		reason = cause.Error()
	}
	s.mu.Lock()
	s.reason = reason
	s.mu.Unlock()
	s.logger.Warn("mcp server stopped", "reason", reason)
	return reason
}

// exitStatus describes how a stdio server's process ended, or "".
func (s *server) exitStatus() string {
	if s.proc == nil {
		return ""
	}
	return s.proc.exitStatus()
}

// killStragglers kills whatever is left of a stdio server's process group.
func (s *server) killStragglers() {
	if s.proc != nil {
		s.proc.killGroup(sigKill)
		s.proc.flush()
	}
}

// callSession returns a live session for a call. A server found dead is
// reported once (a failed Result); the next call restarts it.
func (s *server) callSession(ctx context.Context) (*sdk.ClientSession, *tools.Result) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if cs, failed := s.currentSession(); cs != nil || failed != nil {
		return cs, failed
	}
	s.logger.Info("restarting mcp server")
	if err := s.connect(ctx); err != nil {
		r := tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("MCP server %s could not be restarted: %v", s.cfg.Name, err))
		return nil, &r
	}
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	return cs, nil
}

// currentSession returns the live session, or the failed Result a call
// should get, or neither when the server must be (re)started.
func (s *server) currentSession() (*sdk.ClientSession, *tools.Result) {
	s.deadMu.Lock() // a dead server's reason is known once deadMu is free
	defer s.deadMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		r := tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("MCP server %s has been shut down with tact's MCP pool", s.cfg.Name))
		return nil, &r
	case s.session != nil && !s.dead:
		return s.session, nil
	case s.dead && !s.reported:
		s.reported = true
		r := tools.Fail(tools.KindExecutionFailed, notRunning(s.cfg.Name, s.reason))
		return nil, &r
	}
	return nil, nil
}

// notRunning is the message a call gets from a server that died.
func notRunning(name, reason string) string {
	if reason == "" {
		reason = "connection closed"
	}
	return fmt.Sprintf("MCP server %s is not running (exited: %s); tact will restart it on the next call", name, reason)
}

// shutdown closes the session and stops a stdio server's process group:
// stdin is closed first, then the group gets SIGTERM and finally SIGKILL.
func (s *server) shutdown() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		s.killStragglers()
		return
	}
	done := make(chan struct{})
	go func() {
		_ = cs.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopGrace):
		if s.proc != nil {
			s.proc.killGroup(sigTerm)
		}
		select {
		case <-done:
		case <-time.After(time.Second):
			s.killStragglers()
			<-done
		}
	}
	s.killStragglers()
}
