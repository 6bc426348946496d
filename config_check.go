package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// projectLockedKeys are the keys a config.yaml found in the working folder
// may not set, because a cloned repository could use them to send the API
// key elsewhere, start programs, or approve tool calls: they are honoured
// only from the user's own config, from --config FILE, or from flags.
var projectLockedKeys = []string{
	"provider.base_url", "provider.api_key_env", "approval", "tool_dirs", "mcp_json",
	"skills", "secrets", "logging.file",
}

// dropLockedKeys removes projectLockedKeys from a project config map and
// returns the keys it removed.
func dropLockedKeys(m map[string]any) []string {
	var dropped []string
	for _, key := range projectLockedKeys {
		parts := strings.Split(key, ".")
		node := m
		for i, p := range parts {
			val, ok := node[p]
			if !ok {
				break
			}
			if i == len(parts)-1 {
				delete(node, p)
				dropped = append(dropped, key)
				break
			}
			sub, ok := val.(map[string]any)
			if !ok {
				break
			}
			node = sub
		}
	}
	return dropped
}

// knownKeys are the dotted keys of the embedded defaults; every valid key
// appears there.
var knownKeys = sync.OnceValue(func() map[string]bool {
	var m map[string]any
	_ = yaml.Unmarshal(defaultConfigYAML, &m)
	keys := map[string]bool{}
	flatten(m, "", func(k string) { keys[k] = true })
	return keys
})

// flatten visits every dotted key of m. Lists (approval.rules, whose
// entries are free-form) are leaves.
func flatten(m map[string]any, prefix string, visit func(string)) {
	for k, v := range m {
		key := prefix + strings.ToLower(k)
		visit(key)
		if sub, ok := v.(map[string]any); ok {
			flatten(sub, key+".", visit)
		}
	}
}

// unknownKeys lists the keys of a config map that tact does not know, each
// with the closest known key as a suggestion.
func unknownKeys(m map[string]any) []string {
	known := knownKeys()
	var out []string
	flatten(m, "", func(k string) {
		if known[k] {
			return
		}
		if parent, _, ok := cutLast(k); ok && !known[parent] {
			return // the parent is reported already
		}
		msg := fmt.Sprintf("unknown key %s (ignored)", k)
		if s := closest(k, known); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		out = append(out, msg)
	})
	sort.Strings(out)
	return out
}

func cutLast(key string) (string, string, bool) {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return "", key, false
	}
	return key[:i], key[i+1:], true
}

// closest returns the known key nearest to k by edit distance, if near.
func closest(k string, known map[string]bool) string {
	best, bestD := "", 4
	for cand := range known {
		if d := editDistance(k, cand); d < bestD || (d == bestD && cand < best) {
			best, bestD = cand, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
