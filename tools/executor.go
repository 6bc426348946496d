package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// DefaultTimeout is the time a tool may run when neither its Spec nor the
// ExecutorOptions say otherwise.
const DefaultTimeout = 30 * time.Second

// interruptGrace is how long the Executor waits, after a call's context
// ended, for the tool to return before abandoning it.
const interruptGrace = 250 * time.Millisecond

// DefaultMaxParallel bounds how many calls ExecuteAll runs at once.
const DefaultMaxParallel = 8

// ExecutorOptions configure an Executor.
type ExecutorOptions struct {
	// DefaultTimeout applies to tools whose Spec has no Timeout (default 30s).
	DefaultTimeout time.Duration
	// MaxOutputBytes cuts longer outputs in the middle (default 32 KiB).
	MaxOutputBytes int
	// Parallel runs the calls given to ExecuteAll at the same time.
	Parallel bool
	// MaxParallel bounds the calls running at once when Parallel is set (default 8).
	MaxParallel int
	// DisableCache turns off the result cache for cacheable tools (the cache is
	// on by default).
	DisableCache bool
	// Logger receives one INFO line per call; nil discards.
	Logger *slog.Logger
}

// Executor validates, runs, times, caches and measures tool calls. It is safe
// for concurrent use.
type Executor struct {
	reg        atomic.Pointer[Registry]
	opts       ExecutorOptions
	logger     *slog.Logger
	validators validatorCache
	cache      resultCache
	metrics    Metrics
}

// NewExecutor returns an Executor running the tools of reg (nil means an
// empty registry).
func NewExecutor(reg *Registry, opts ExecutorOptions) *Executor {
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opts.MaxParallel <= 0 {
		opts.MaxParallel = DefaultMaxParallel
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Executor{opts: opts, logger: opts.Logger}
	e.SetRegistry(reg)
	return e
}

// Registry returns the active registry.
func (e *Executor) Registry() *Registry { return e.reg.Load() }

// SetRegistry swaps the active tools (between turns). Calls already running
// finish with the tools they started with.
func (e *Executor) SetRegistry(reg *Registry) {
	if reg == nil {
		reg = NewRegistry(e.logger)
	}
	e.reg.Store(reg)
}

// Stats returns per-tool call metrics, sorted by tool name.
func (e *Executor) Stats() []ToolStats { return e.metrics.Stats() }

// Execute runs one call and always returns a Result.
func (e *Executor) Execute(ctx context.Context, call Call) Result {
	start := time.Now()
	var spec Spec
	res, known := e.execute(ctx, call, &spec)
	res.Duration = time.Since(start)
	if known {
		e.metrics.Record(spec.Name, res.Success, res.Duration)
	}
	e.log(call, spec, res)
	return res
}

// ExecuteAll runs calls (in parallel when configured) and returns their
// results in call order.
func (e *Executor) ExecuteAll(ctx context.Context, calls []Call) []Result {
	results := make([]Result, len(calls))
	if !e.opts.Parallel || len(calls) < 2 {
		for i, c := range calls {
			results[i] = e.Execute(ctx, c)
		}
		return results
	}
	sem := make(chan struct{}, e.opts.MaxParallel)
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
			}
			results[i] = e.Execute(ctx, c)
		}()
	}
	wg.Wait()
	return results
}

// execute does the work of Execute; known reports whether the tool exists
// (so metrics are kept only for real tools). spec is filled when known.
func (e *Executor) execute(ctx context.Context, call Call, spec *Spec) (Result, bool) {
	tool, ok := e.Registry().Get(call.Name)
	if ok {
		*spec = tool.Spec()
	}
	if call.ParseError != "" {
		return Fail(KindParseError, parseErrorMessage(call)), ok
	}
	if !ok {
		return Fail(KindNotFound, fmt.Sprintf("Tool not found: %s (available tools: %s)",
			call.Name, strings.Join(e.Registry().Names(), ", "))), false
	}
	if err := ctx.Err(); err != nil {
		return Fail(KindCancelled, fmt.Sprintf("tool %s was not run: %v", call.Name, err)), true
	}
	if v, err := e.validators.get(spec.Name, spec.Parameters); err != nil {
		// A tool with a broken schema still runs; its own checks apply.
		e.logger.Warn("tool schema does not compile; arguments not validated", "tool", spec.Name, "source", spec.Source, "err", err)
	} else if err := v.Validate(call.Arguments); err != nil {
		return Fail(KindInvalidParameters, err.Error()), true
	}

	var key string
	cacheable := spec.Annotations.Cacheable && !e.opts.DisableCache
	if cacheable {
		key, cacheable = cacheKey(*spec, call.Arguments)
	}
	if cacheable {
		if r, hit := e.cache.get(key); hit {
			r.Cached = true
			return r, true
		}
	}

	res := e.run(ctx, tool, *spec, call)
	if res.Output != "" {
		res.Output = TruncateMiddle(res.Output, e.opts.MaxOutputBytes)
	}
	if cacheable && res.Success {
		e.cache.put(key, res)
	}
	return res, true
}

type outcome struct {
	res Result
	err error
}

// run executes the tool in its own goroutine under a timeout, so a tool that
// ignores its context cannot hold the caller past the deadline.
func (e *Executor) run(ctx context.Context, tool Tool, spec Spec, call Call) Result {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = e.opts.DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				e.logger.Error("tool panicked", "tool", spec.Name, "source", spec.Source, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				done <- outcome{Fail(KindExecutionFailed, fmt.Sprintf("tool %s crashed: panic: %v", spec.Name, p)), nil}
			}
		}()
		r, err := tool.Execute(tctx, args)
		done <- outcome{r, err}
	}()

	var o outcome
	select {
	case o = <-done:
	case <-tctx.Done():
		// Give a tool that honours its context a moment to return its
		// partial output; one that ignores it is abandoned.
		grace := time.NewTimer(interruptGrace)
		defer grace.Stop()
		select {
		case o = <-done:
		case <-grace.C:
			return e.interrupted(ctx, spec, timeout, "")
		}
	}
	if o.err != nil {
		if tctx.Err() != nil {
			return e.interrupted(ctx, spec, timeout, o.res.Output)
		}
		r := Fail(KindExecutionFailed, fmt.Sprintf("tool %s failed: %v", spec.Name, o.err))
		r.Output = o.res.Output
		return r
	}
	r := o.res
	if !r.Success {
		if tctx.Err() != nil && (r.Error == nil || r.Error.Kind != KindInvalidParameters) {
			return e.interrupted(ctx, spec, timeout, r.Output)
		}
		if r.Error == nil {
			r.Error = &ToolError{Kind: KindExecutionFailed, Message: "tool " + spec.Name + " failed without a message"}
		}
	} else {
		r.Error = nil
	}
	r.Cached = false
	return r
}

// interrupted builds the timeout or cancelled result for a call whose
// context ended, keeping any partial output.
func (e *Executor) interrupted(parent context.Context, spec Spec, timeout time.Duration, output string) Result {
	var r Result
	if parent.Err() != nil {
		r = Fail(KindCancelled, fmt.Sprintf("tool %s was cancelled", spec.Name))
	} else {
		r = Fail(KindTimeout, fmt.Sprintf("tool %s did not finish within %s and was stopped", spec.Name, timeout))
	}
	r.Output = output
	return r
}

func (e *Executor) log(call Call, spec Spec, res Result) {
	if !e.logger.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	attrs := []any{"tool", call.Name, "id", call.ID}
	if spec.Source != "" {
		attrs = append(attrs, "source", spec.Source)
	}
	if call.ParseError != "" {
		attrs = append(attrs, "raw_arguments_bytes", len(call.RawArguments))
	} else {
		attrs = append(attrs, "arguments", RedactArguments(call.Arguments))
	}
	attrs = append(attrs, "result_bytes", len(res.Output), "success", res.Success)
	if res.Error != nil {
		attrs = append(attrs, "error_kind", string(res.Error.Kind))
	}
	if res.Cached {
		attrs = append(attrs, "cached", true)
	}
	attrs = append(attrs, "duration", res.Duration)
	e.logger.Info("tool call", attrs...)
}

// maxLoggedArgs bounds the argument text written to the log.
const maxLoggedArgs = 1024

// RedactArguments returns args as compact JSON for logging, with the values of
// keys whose name contains key, token, secret or password (any case) replaced
// by "[redacted]", cut to a readable length.
func RedactArguments(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Sprintf("(unreadable, %d bytes)", len(args))
	}
	b, err := json.Marshal(redact(v))
	if err != nil {
		return fmt.Sprintf("(unreadable, %d bytes)", len(args))
	}
	return TruncateMiddle(string(b), maxLoggedArgs)
}

func redact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if secretName(k) {
				t[k] = "[redacted]"
			} else {
				t[k] = redact(val)
			}
		}
	case []any:
		for i := range t {
			t[i] = redact(t[i])
		}
	}
	return v
}

func secretName(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"key", "token", "secret", "password"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// maxRawInError is how much of a call's raw text a parse_error message quotes.
const maxRawInError = 300

// parseErrorMessage is the parse_error text for a call the model wrote
// wrongly: which tool (if known), the protocol's reason and advice
// (ParseError as it stands) and the start of the raw text.
func parseErrorMessage(call Call) string {
	who := "a tool call with no name"
	if call.Name != "" {
		who = "the call to " + call.Name
	}
	raw := call.RawArguments
	more := ""
	if len(raw) > maxRawInError {
		cut := maxRawInError
		for k := 0; cut > 0 && k < utf8.UTFMax-1 && !utf8.RuneStart(raw[cut]); k++ {
			cut--
		}
		more = fmt.Sprintf("… (%d bytes in all)", len(raw))
		raw = raw[:cut]
	}
	return fmt.Sprintf("could not read %s: %s; raw: %q%s", who, call.ParseError, raw, more)
}
