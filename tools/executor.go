package tools

import (
	"context"
	"log/slog"
	"time"
)

// ExecutorOptions configure an Executor. (STUB: H1 implements.)
type ExecutorOptions struct {
	// DefaultTimeout applies to tools whose Spec has no Timeout (default 30s).
	DefaultTimeout time.Duration
	// MaxOutputBytes cuts longer outputs in the middle (default 32 KiB).
	MaxOutputBytes int
	// Parallel runs the calls given to ExecuteAll at the same time.
	Parallel bool
	// Logger receives one INFO line per call; nil discards.
	Logger *slog.Logger
}

// Executor validates, runs, times, caches and measures tool calls.
type Executor struct{}

// NewExecutor returns an Executor running the tools of reg.
func NewExecutor(reg *Registry, opts ExecutorOptions) *Executor { panic("todo") }

// Registry returns the active registry.
func (e *Executor) Registry() *Registry { panic("todo") }

// SetRegistry swaps the active tools (between turns).
func (e *Executor) SetRegistry(reg *Registry) { panic("todo") }

// Execute runs one call and always returns a Result.
func (e *Executor) Execute(ctx context.Context, call Call) Result { panic("todo") }

// ExecuteAll runs calls (in parallel when configured) and returns their
// results in call order.
func (e *Executor) ExecuteAll(ctx context.Context, calls []Call) []Result { panic("todo") }
