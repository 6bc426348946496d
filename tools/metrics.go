package tools

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// maxSamples bounds the durations kept per tool for percentiles.
const maxSamples = 1024

// ToolStats summarises the calls of one tool during an Executor's life.
type ToolStats struct {
	// Name is the tool name.
	Name string `json:"name"`
	// Calls counts every call that reached the tool (cached answers included).
	Calls int `json:"calls"`
	// Successes counts calls whose Result was successful.
	Successes int `json:"successes"`
	// SuccessRate is Successes/Calls (0 when there were no calls).
	SuccessRate float64 `json:"success_rate"`
	// P50 and P95 are duration percentiles over the most recent calls.
	P50 time.Duration `json:"p50"`
	P95 time.Duration `json:"p95"`
}

type toolMetrics struct {
	calls, successes int
	samples          []time.Duration // ring buffer of the last maxSamples
	next             int
}

// Metrics aggregates per-tool call counts, successes and durations. The
// zero value is ready to use and it is safe for concurrent use. Executors
// keep one; `tact tools --stats` fills one from an audit file.
type Metrics struct {
	mu    sync.Mutex
	tools map[string]*toolMetrics
}

// Record adds one call of the named tool.
func (m *Metrics) Record(name string, ok bool, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tools == nil {
		m.tools = map[string]*toolMetrics{}
	}
	t := m.tools[name]
	if t == nil {
		t = &toolMetrics{}
		m.tools[name] = t
	}
	t.calls++
	if ok {
		t.successes++
	}
	if len(t.samples) < maxSamples {
		t.samples = append(t.samples, d)
	} else {
		t.samples[t.next] = d
		t.next = (t.next + 1) % maxSamples
	}
}

// Stats returns one summary per tool, sorted by name.
func (m *Metrics) Stats() []ToolStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ToolStats, 0, len(m.tools))
	for name, t := range m.tools {
		s := ToolStats{Name: name, Calls: t.calls, Successes: t.successes}
		if t.calls > 0 {
			s.SuccessRate = float64(t.successes) / float64(t.calls)
		}
		sorted := slices.Clone(t.samples)
		slices.Sort(sorted)
		s.P50 = percentile(sorted, 0.50)
		s.P95 = percentile(sorted, 0.95)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// percentile returns the nearest-rank percentile p (0..1] of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p*float64(len(sorted)) + 0.999999999)
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}
