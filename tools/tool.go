// Package tools defines what a tool is for tact: its Spec, how it runs, the
// Result it returns, and the Registry and Executor that hold and run tools.
package tools

import (
	"context"
	"encoding/json"
	"time"
)

// Annotations describe how a tool behaves, so approval and caching can decide
// without running it.
type Annotations struct {
	// ReadOnly tools do not change anything outside tact; they run without asking.
	ReadOnly bool `json:"read_only"`
	// Destructive tools may change or delete things; they need approval.
	Destructive bool `json:"destructive"`
	// Cacheable tools return the same result for the same arguments within a session.
	Cacheable bool `json:"cacheable"`
}

// Spec is what the model and the user learn about a tool.
type Spec struct {
	// Name is the unique name the model calls the tool by.
	Name string `json:"name"`
	// Description tells the model what the tool does.
	Description string `json:"description"`
	// Parameters is the JSON Schema (an object schema) of the tool's arguments.
	Parameters json.RawMessage `json:"parameters"`
	// Annotations say whether the tool is read-only, destructive or cacheable.
	Annotations Annotations `json:"annotations"`
	// Source names where the tool comes from: "builtin", "native", "mcp:SERVER", "skill".
	Source string `json:"source"`
	// Timeout overrides the executor's default timeout when non-zero.
	Timeout time.Duration `json:"-"`
}

// Tool is anything the model can call.
//
// A Go error returned from Execute is a system failure (the executor turns it
// into an execution_failed result); a failure the model should read and react
// to is a Result with Success false and an Error.
type Tool interface {
	Spec() Spec
	Execute(ctx context.Context, args json.RawMessage) (Result, error)
}

// ErrorKind classifies a failed tool call.
type ErrorKind string

// The error kinds a tool result can carry.
const (
	KindNotFound          ErrorKind = "not_found"
	KindInvalidParameters ErrorKind = "invalid_parameters"
	KindParseError        ErrorKind = "parse_error"
	KindTimeout           ErrorKind = "timeout"
	KindExecutionFailed   ErrorKind = "execution_failed"
	KindDenied            ErrorKind = "denied"
	KindCancelled         ErrorKind = "cancelled"
)

// ToolError is the error part of a failed Result.
type ToolError struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message"`
}

// Error implements error so a ToolError can travel as one.
func (e *ToolError) Error() string { return string(e.Kind) + ": " + e.Message }

// Result is the outcome of one tool call.
type Result struct {
	// Success is true when the tool did its job.
	Success bool `json:"success"`
	// Output is the text the model reads (already cut to the output limit by the Executor).
	Output string `json:"output"`
	// Error is set when Success is false.
	Error *ToolError `json:"error"`
	// Duration is how long the call took, measured by the Executor.
	Duration time.Duration `json:"-"`
	// Cached is true when the Executor answered from its cache.
	Cached bool `json:"-"`
}

// OK returns a successful Result with the given output.
func OK(output string) Result { return Result{Success: true, Output: output} }

// Fail returns a failed Result of the given kind.
func Fail(kind ErrorKind, message string) Result {
	return Result{Success: false, Error: &ToolError{Kind: kind, Message: message}}
}

// Text is what goes back to the model: the output on success, the error
// message on failure. It is never empty, because strict servers reject empty
// tool messages.
func (r Result) Text() string {
	if r.Success {
		if r.Output == "" {
			return "(no output)"
		}
		return r.Output
	}
	if r.Error == nil {
		return "error: tool failed without a message"
	}
	msg := "error (" + string(r.Error.Kind) + "): " + r.Error.Message
	if r.Output != "" {
		msg += "\n" + r.Output
	}
	return msg
}
