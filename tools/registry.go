package tools

import "log/slog"

// Registry holds tools by name, in registration order. (STUB: H1 implements.)
type Registry struct {
	logger *slog.Logger
	order  []Tool
	byName map[string]Tool
}

// NewRegistry returns an empty Registry that logs warnings to logger (nil discards).
func NewRegistry(logger *slog.Logger) *Registry {
	return &Registry{logger: logger, byName: map[string]Tool{}}
}

// Register adds t. A second tool with a taken name is not added: the first
// stays, a warning names both sources, and Register returns false.
func (r *Registry) Register(t Tool) bool { panic("todo") }

// Get returns the tool with that name.
func (r *Registry) Get(name string) (Tool, bool) { panic("todo") }

// List returns the tools in registration order.
func (r *Registry) List() []Tool { panic("todo") }

// Specs returns the specs of List.
func (r *Registry) Specs() []Spec { panic("todo") }
