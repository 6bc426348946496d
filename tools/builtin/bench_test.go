package builtin

import (
	"context"
	"encoding/json"
	"testing"

	"tact/tools"
)

// BenchmarkExecutorCalculator measures the Executor's per-call overhead
// (lookup, validation, timeout goroutine, metrics, logging) around the real
// calculator, with the cache off so every call runs the tool.
func BenchmarkExecutorCalculator(b *testing.B) {
	reg := tools.NewRegistry(nil)
	reg.Register(calculatorTool())
	e := tools.NewExecutor(reg, tools.ExecutorOptions{DisableCache: true})
	call := tools.Call{ID: "c", Name: "calculator", Arguments: json.RawMessage(`{"a":15,"b":23,"operation":"mul"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := e.Execute(ctx, call); !r.Success || r.Output != "345" {
			b.Fatalf("got %+v", r)
		}
	}
}
