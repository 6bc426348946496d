package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"tact/toolsets"
)

// watchPaths are the folders to watch and the files in them that matter:
// every config file, and every tool-set folder (any YAML file in it).
func watchPaths(cfg *Config) map[string]func(name string) bool {
	dirs := map[string]func(string) bool{}
	for _, f := range cfg.Files {
		file := f
		prev := dirs[filepath.Dir(f)]
		dirs[filepath.Dir(f)] = func(name string) bool {
			return filepath.Clean(name) == file || (prev != nil && prev(name))
		}
	}
	for _, d := range cfg.ToolsetDirs {
		dirs[filepath.Clean(d)] = func(name string) bool {
			ext := strings.ToLower(filepath.Ext(name))
			return ext == ".yaml" || ext == ".yml"
		}
	}
	return dirs
}

// watchConfig calls onChange (debounced) whenever a config file or a
// tool-set file changes, until ctx ends. Folders are watched rather than
// files because editors save by renaming.
func watchConfig(ctx context.Context, cfg *Config, onChange func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching the config: %w", err)
	}
	match := watchPaths(cfg)
	for dir := range match {
		if err := w.Add(dir); err != nil && !os.IsNotExist(err) {
			w.Close()
			return fmt.Errorf("watching %s: %w", dir, err)
		}
	}
	go func() {
		defer w.Close()
		var timer *time.Timer
		fire := make(chan struct{}, 1)
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if m := match[filepath.Dir(ev.Name)]; m == nil || !m(ev.Name) {
					continue
				}
				if timer != nil {
					timer.Stop()
				}
				timer = time.AfterFunc(150*time.Millisecond, func() {
					select {
					case fire <- struct{}{}:
					default:
					}
				})
			case <-fire:
				onChange()
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return nil
}

// reload builds a fresh config from the files and applies its tool sets to
// the running app. On error the running config stays as it was.
func (a *app) reload(ctx context.Context, opts LoadOptions) (string, error) {
	cfg, err := LoadConfig(opts)
	if err != nil {
		return "", fmt.Errorf("%w — keeping the previous config", err)
	}
	sets, _, err := toolsets.Load(cfg.ToolsetDirs)
	if err != nil {
		return "", fmt.Errorf("%w — keeping the previous tool sets", err)
	}
	old := a.manager.Sets()
	a.manager.SetSets(sets)
	if err := a.manager.Discover(ctx); err != nil {
		a.logger.Warn("tool discovery after a config change", "err", err)
	}
	notice, err := a.swapTools(cfg, cfg.ToolSets, cfg.Tools)
	if err != nil {
		a.manager.SetSets(old)
		return "", fmt.Errorf("%w — keeping the previous tool sets", err)
	}
	a.mu.Lock()
	a.cfg = cfg
	a.mu.Unlock()
	a.logger.Info("config reloaded", "summary", notice)
	return notice, nil
}
