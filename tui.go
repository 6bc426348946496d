package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"tact/agent/protocol"
	"tact/tools"
	"tact/ui"
)

// runTUI starts the terminal UI.
func runTUI(cfg *Config, f *cliFlags, stdout, stderr io.Writer) int {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()
	asker := ui.NewAsker()
	a, err := newApp(ctx, cfg, appOptions{asker: asker, yes: f.yes, workdir: f.workdir, protocol: f.protocol, resume: f.resume, cont: f.cont})
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer a.close()
	opts := a.uiOptions(asker)
	opts.Updates = a.watchUpdates(ctx, LoadOptions{File: f.config, Overrides: f.overrides(), Env: os.Environ()})
	// Start-up garbage (library tables, the first renders) is returned to the
	// system once the first frame is up, so an idle tact stays small.
	idle := time.AfterFunc(300*time.Millisecond, debug.FreeOSMemory)
	defer idle.Stop()
	if err := ui.Run(ctx, opts); err != nil {
		fmt.Fprintln(stderr, "tact:", err)
		return exitError
	}
	return exitOK
}

// uiOptions are the UI's view of the app.
func (a *app) uiOptions(asker *ui.Asker) ui.Options {
	history := a.resumed
	return ui.Options{
		Agent:     a.agent,
		Asker:     asker,
		Policy:    a.policy,
		Catalog:   catalog{a},
		Model:     a.model,
		Demo:      a.demo,
		Workdir:   a.workdir,
		Theme:     a.cfg.UI.Theme,
		History:   history,
		Protocols: protocol.ForName,
		Warnings:  a.warnings,
		OnClear:   a.newSession,
	}
}

// watchUpdates watches the config and tool-set files and sends the outcome
// of each reload to the UI.
func (a *app) watchUpdates(ctx context.Context, opts LoadOptions) <-chan tea.Msg {
	ch := make(chan tea.Msg, 4)
	err := watchConfig(ctx, a.cfg, func() {
		notice, err := a.reload(ctx, opts)
		select {
		case ch <- ui.ConfigUpdate{Notice: notice, Err: err}:
		case <-ctx.Done():
		}
	})
	if err != nil {
		a.warn("%v (config changes need a restart)", err)
	}
	return ch
}

// catalog shows the app's tool sets to the UI.
type catalog struct{ a *app }

// ToolSets lists the active sets in config order, then the others by name.
func (c catalog) ToolSets() []ui.ToolSetInfo {
	c.a.mu.Lock()
	activeOrder := append([]string(nil), c.a.sets...)
	c.a.mu.Unlock()
	sets := c.a.manager.Sets()
	out := make([]ui.ToolSetInfo, 0, len(sets))
	active := map[string]bool{}
	for _, name := range activeOrder {
		if s, ok := sets[name]; ok && !active[name] {
			active[name] = true
			out = append(out, ui.ToolSetInfo{Name: name, Description: s.Description, Active: true, Tools: s.Tools})
		}
	}
	for _, name := range sortedKeys(sets) {
		if s := sets[name]; !active[name] {
			out = append(out, ui.ToolSetInfo{Name: name, Description: s.Description, Tools: s.Tools})
		}
	}
	return out
}

// Tools returns the active tools.
func (c catalog) Tools() []tools.Spec { return c.a.executor.Registry().Specs() }

// Activate swaps the active tool sets now (the config's single tools stay).
func (c catalog) Activate(names []string) (string, error) {
	c.a.mu.Lock()
	cfg := c.a.cfg
	c.a.mu.Unlock()
	return c.a.swapTools(cfg, names, cfg.Tools)
}

// Stats returns this session's per-tool statistics.
func (c catalog) Stats() []tools.ToolStats { return c.a.executor.Stats() }
