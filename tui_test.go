package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"tact/ui"
)

// TestTUIConfigEditSwapsToolSets runs the real app and UI (teatest) with a
// config file on disk, edits the file, and checks that the tool sets swap
// with a notice; then breaks the file and checks the error shows and the
// old tools stay.
func TestTUIConfigEditSwapsToolSets(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	write := func(s string) {
		t.Helper()
		// Write then rename, as editors do.
		tmp := cfgPath + ".tmp"
		if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, cfgPath); err != nil {
			t.Fatal(err)
		}
	}
	write("tool_sets: [default]\ntool_dirs: {native: [], mcp: [], skills: []}\n")

	opts := LoadOptions{File: cfgPath, Env: os.Environ()}
	cfg, err := LoadConfig(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	asker := ui.NewAsker()
	a, err := newApp(ctx, cfg, appOptions{asker: asker, workdir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if got := len(a.executor.Registry().Specs()); got != 4 {
		t.Fatalf("default set should give 4 tools, got %d", got)
	}
	uiOpts := a.uiOptions(asker)
	uiOpts.Updates = a.watchUpdates(ctx, opts)
	tm := teatest.NewTestModel(t, ui.New(uiOpts), teatest.WithInitialTermSize(100, 30))
	var seen bytes.Buffer
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			return strings.Contains(seen.String(), what)
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("4 tools")

	write("tool_sets: [default, web]\ntool_dirs: {native: [], mcp: [], skills: []}\n")
	waitFor("tool sets: default, web")
	if !a.executor.Registry().Has("http_fetch") {
		t.Fatalf("http_fetch should be active after the edit; tools: %v", a.executor.Registry().Names())
	}

	seen.Reset()
	write("tool_sets: [default\ntool_dirs: {native: [], mcp: [], skills: []}\n")
	waitFor("invalid YAML")
	if !strings.Contains(seen.String(), "config.yaml") {
		t.Fatalf("the error should name the file; screen:\n%s", seen.String())
	}
	if !a.executor.Registry().Has("http_fetch") || len(a.executor.Registry().Specs()) != 5 {
		t.Fatalf("a broken edit must keep the previous tools; have %v", a.executor.Registry().Names())
	}
	tm.Quit()
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
