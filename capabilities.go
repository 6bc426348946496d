package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// capabilityCache remembers, across runs, which models' servers rejected
// native tools, so `function_calling: auto` starts such a model on the text
// fallback at once instead of sending a request that fails. It lives in
// $XDG_STATE_HOME/tact/capabilities.json as {"BASE_URL MODEL": false}.
type capabilityCache struct {
	mu   sync.Mutex
	path string
}

func newCapabilityCache() *capabilityCache {
	dir, err := stateDir()
	if err != nil {
		return &capabilityCache{}
	}
	return &capabilityCache{path: filepath.Join(dir, "capabilities.json")}
}

func capabilityKey(baseURL, model string) string { return baseURL + " " + model }

func (c *capabilityCache) load() map[string]bool {
	m := map[string]bool{}
	if c.path == "" {
		return m
	}
	if data, err := os.ReadFile(c.path); err == nil {
		_ = json.Unmarshal(data, &m) // a damaged cache is only a missed shortcut
	}
	return m
}

// nativeTools reports what an earlier run learned about this server and
// model: known is false when nothing was recorded.
func (c *capabilityCache) nativeTools(baseURL, model string) (supported, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	supported, known = c.load()[capabilityKey(baseURL, model)]
	return supported, known
}

// record stores what a run learned; errors only cost the shortcut.
func (c *capabilityCache) record(baseURL, model string, supported bool) {
	if c.path == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.load()
	m[capabilityKey(baseURL, model)] = supported
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return
	}
	tmp := c.path + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil {
		_ = os.Rename(tmp, c.path)
	}
}
