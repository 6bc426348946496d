package tools

import (
	"bytes"
	"encoding/json"
	"sync"
)

// maxCacheEntries bounds the result cache of one Executor.
const maxCacheEntries = 4096

// resultCache remembers successful results of cacheable tools by tool,
// source and canonical arguments.
type resultCache struct {
	mu sync.Mutex
	m  map[string]Result
}

// cacheKey returns the key for a call, or false when the arguments cannot be
// canonicalised (then the call is not cached).
func cacheKey(spec Spec, args json.RawMessage) (string, bool) {
	canon, ok := canonicalJSON(args)
	if !ok {
		return "", false
	}
	return spec.Source + "\x00" + spec.Name + "\x00" + canon, true
}

// canonicalJSON re-encodes a JSON value with sorted object keys and no
// insignificant white space; numbers keep their text.
func canonicalJSON(raw json.RawMessage) (string, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}", true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return "", false
	}
	return string(b), true
}

func (c *resultCache) get(key string) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	return r, ok
}

func (c *resultCache) put(key string, r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]Result{}
	}
	if len(c.m) >= maxCacheEntries {
		for k := range c.m { // drop an arbitrary entry to stay bounded
			delete(c.m, k)
			break
		}
	}
	c.m[key] = r
}
