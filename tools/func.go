package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// FuncTool is a Tool made from a Go function taking a typed argument struct.
type FuncTool[T any] struct {
	spec Spec
	run  func(ctx context.Context, args T) (Result, error)
}

// NewFunc returns a Tool that decodes its JSON arguments into T and calls run.
// When spec.Parameters is empty it is generated from T with SchemaFor.
// Arguments that do not decode into T give an invalid_parameters Result.
func NewFunc[T any](spec Spec, run func(ctx context.Context, args T) (Result, error)) *FuncTool[T] {
	if len(spec.Parameters) == 0 {
		spec.Parameters = SchemaFor[T]()
	}
	return &FuncTool[T]{spec: spec, run: run}
}

// Spec implements Tool.
func (f *FuncTool[T]) Spec() Spec { return f.spec }

// Execute implements Tool.
func (f *FuncTool[T]) Execute(ctx context.Context, args json.RawMessage) (Result, error) {
	var a T
	if len(bytes.TrimSpace(args)) > 0 && !bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		if err := json.Unmarshal(args, &a); err != nil {
			return Fail(KindInvalidParameters, fmt.Sprintf("invalid arguments for %s: %v", f.spec.Name, err)), nil
		}
	}
	return f.run(ctx, a)
}
