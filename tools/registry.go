package tools

import (
	"log/slog"
	"sync"
)

// Shadowed records a tool that was not registered because an earlier tool
// already had its name, so `tact tools` can show what was hidden and by what.
type Shadowed struct {
	// Name is the tool name both tools claimed.
	Name string `json:"name"`
	// Source is where the refused tool came from.
	Source string `json:"source"`
	// ShadowedBy is the source of the tool that kept the name.
	ShadowedBy string `json:"shadowed_by"`
}

// Registry holds tools by name, in registration order. It is safe for
// concurrent use.
type Registry struct {
	logger   *slog.Logger
	mu       sync.RWMutex
	order    []Tool
	byName   map[string]Tool
	shadowed []Shadowed
}

// NewRegistry returns an empty Registry that logs warnings to logger (nil discards).
func NewRegistry(logger *slog.Logger) *Registry {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Registry{logger: logger, byName: map[string]Tool{}}
}

// Register adds t. A second tool with a taken name is not added: the first
// stays, a warning names both sources, and Register returns false. A nil tool
// or one without a name is refused with a warning too.
func (r *Registry) Register(t Tool) bool {
	if t == nil {
		r.logger.Warn("tool not registered: nil tool")
		return false
	}
	spec := t.Spec()
	if spec.Name == "" {
		r.logger.Warn("tool not registered: empty name", "source", spec.Source)
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if first, ok := r.byName[spec.Name]; ok {
		kept := first.Spec().Source
		r.shadowed = append(r.shadowed, Shadowed{Name: spec.Name, Source: spec.Source, ShadowedBy: kept})
		r.logger.Warn("duplicate tool name: keeping the first",
			"tool", spec.Name, "kept_source", kept, "ignored_source", spec.Source)
		return false
	}
	r.byName[spec.Name] = t
	r.order = append(r.order, t)
	return true
}

// Get returns the tool with that name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byName[name]
	return t, ok
}

// List returns the tools in registration order.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Tool(nil), r.order...)
}

// Names returns the tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, len(r.order))
	for i, t := range r.order {
		names[i] = t.Spec().Name
	}
	return names
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.order)
}

// Specs returns the specs of List.
func (r *Registry) Specs() []Spec {
	list := r.List()
	specs := make([]Spec, len(list))
	for i, t := range list {
		specs[i] = t.Spec()
	}
	return specs
}

// Shadowed returns the tools that were refused because their name was taken,
// in the order they were refused.
func (r *Registry) Shadowed() []Shadowed {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Shadowed(nil), r.shadowed...)
}

// Has reports whether a tool with that name is registered.
func (r *Registry) Has(name string) bool {
	_, ok := r.Get(name)
	return ok
}
