package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	gschema "github.com/google/jsonschema-go/jsonschema"
)

// testTool is a Tool whose behaviour each test chooses.
type testTool struct {
	spec Spec
	fn   func(ctx context.Context, args json.RawMessage) (Result, error)
	runs atomic.Int32
}

func (t *testTool) Spec() Spec { return t.spec }

func (t *testTool) Execute(ctx context.Context, args json.RawMessage) (Result, error) {
	t.runs.Add(1)
	return t.fn(ctx, args)
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"first operand"`
	B float64 `json:"b" jsonschema:"second operand"`
}

func newAdder() *testTool {
	return &testTool{
		spec: Spec{Name: "add", Source: "test", Parameters: SchemaFor[addArgs](), Annotations: Annotations{ReadOnly: true, Cacheable: true}},
		fn: func(_ context.Context, raw json.RawMessage) (Result, error) {
			var a addArgs
			if err := json.Unmarshal(raw, &a); err != nil {
				return Result{}, err
			}
			return OK(fmt.Sprint(a.A + a.B)), nil
		},
	}
}

func newExec(t *testing.T, opts ExecutorOptions, ts ...Tool) *Executor {
	t.Helper()
	reg := NewRegistry(nil)
	for _, tool := range ts {
		if !reg.Register(tool) {
			t.Fatalf("register %s failed", tool.Spec().Name)
		}
	}
	return NewExecutor(reg, opts)
}

func wantKind(t *testing.T, r Result, k ErrorKind) {
	t.Helper()
	if r.Success || r.Error == nil || r.Error.Kind != k {
		t.Fatalf("want failure of kind %s, got %+v (error %+v)", k, r, r.Error)
	}
}

func TestExecuteSuccess(t *testing.T) {
	e := newExec(t, ExecutorOptions{}, newAdder())
	r := e.Execute(context.Background(), Call{ID: "1", Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3.5}`)})
	if !r.Success || r.Output != "5.5" || r.Error != nil {
		t.Fatalf("got %+v", r)
	}
	if r.Duration <= 0 {
		t.Fatalf("duration not measured: %v", r.Duration)
	}
}

func TestExecuteNotFound(t *testing.T) {
	e := newExec(t, ExecutorOptions{}, newAdder())
	r := e.Execute(context.Background(), Call{Name: "nope", Arguments: json.RawMessage(`{}`)})
	wantKind(t, r, KindNotFound)
	if !strings.HasPrefix(r.Error.Message, "Tool not found: nope") || !strings.Contains(r.Error.Message, "add") {
		t.Fatalf("message %q", r.Error.Message)
	}
	if len(e.Stats()) != 0 {
		t.Fatalf("unknown tools must not appear in stats: %+v", e.Stats())
	}
}

func TestExecuteParseError(t *testing.T) {
	tool := newAdder()
	e := newExec(t, ExecutorOptions{}, tool)
	raw := `{"a": 1, "b":`
	r := e.Execute(context.Background(), Call{Name: "add", RawArguments: raw, ParseError: "unexpected end of JSON input"})
	wantKind(t, r, KindParseError)
	if !strings.Contains(r.Error.Message, "add") || !strings.Contains(r.Error.Message, fmt.Sprintf("%q", raw)) {
		t.Fatalf("message must name the tool and quote the raw text: %q", r.Error.Message)
	}
	if tool.runs.Load() != 0 {
		t.Fatal("tool ran despite parse error")
	}
}

func TestExecuteInvalidParameters(t *testing.T) {
	type calcArgs struct {
		A         float64 `json:"a"`
		B         float64 `json:"b"`
		Operation string  `json:"operation"`
	}
	tool := &testTool{
		spec: Spec{Name: "calc", Parameters: SchemaForWith[calcArgs](func(s *gschema.Schema) {
			SetEnum(s, "operation", "add", "sub", "mul", "div")
		})},
		fn: func(context.Context, json.RawMessage) (Result, error) { return OK("ran"), nil },
	}
	e := newExec(t, ExecutorOptions{}, tool)
	r := e.Execute(context.Background(), Call{Name: "calc", Arguments: json.RawMessage(`{"a":"x","operation":"pow","c":1}`)})
	wantKind(t, r, KindInvalidParameters)
	msg := r.Error.Message
	for _, want := range []string{
		"invalid arguments for calc:",
		"/a: got string, want number",
		"/b: required, but missing",
		`/operation: value must be one of "add", "sub", "mul", "div"`,
		"/c: unknown property",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if tool.runs.Load() != 0 {
		t.Fatal("tool ran with invalid arguments")
	}
	// Valid arguments pass; empty arguments mean {} and fail on required fields.
	if r := e.Execute(context.Background(), Call{Name: "calc", Arguments: json.RawMessage(`{"a":1,"b":2,"operation":"add"}`)}); !r.Success {
		t.Fatalf("valid call failed: %+v", r.Error)
	}
	wantKind(t, e.Execute(context.Background(), Call{Name: "calc"}), KindInvalidParameters)
}

func TestExecuteTimeoutIgnoringContext(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	tool := &testTool{
		spec: Spec{Name: "stuck", Timeout: 50 * time.Millisecond},
		fn: func(context.Context, json.RawMessage) (Result, error) {
			<-block // ignores ctx on purpose
			return OK("late"), nil
		},
	}
	e := newExec(t, ExecutorOptions{}, tool)
	start := time.Now()
	r := e.Execute(context.Background(), Call{Name: "stuck"})
	wantKind(t, r, KindTimeout)
	if el := time.Since(start); el > time.Second {
		t.Fatalf("timeout took %v", el)
	}
	if !strings.Contains(r.Error.Message, "50ms") {
		t.Fatalf("message should say the limit: %q", r.Error.Message)
	}
}

func TestExecuteDefaultTimeoutFromOptions(t *testing.T) {
	tool := &testTool{
		spec: Spec{Name: "slow"},
		fn: func(ctx context.Context, _ json.RawMessage) (Result, error) {
			<-ctx.Done()
			return Result{Output: "partial"}, ctx.Err()
		},
	}
	e := newExec(t, ExecutorOptions{DefaultTimeout: 30 * time.Millisecond}, tool)
	r := e.Execute(context.Background(), Call{Name: "slow"})
	wantKind(t, r, KindTimeout)
	if r.Output != "partial" {
		t.Fatalf("partial output lost: %q", r.Output)
	}
}

func TestExecuteCancelled(t *testing.T) {
	started := make(chan struct{})
	tool := &testTool{
		spec: Spec{Name: "wait"},
		fn: func(ctx context.Context, _ json.RawMessage) (Result, error) {
			close(started)
			<-ctx.Done()
			return Result{}, ctx.Err()
		},
	}
	e := newExec(t, ExecutorOptions{}, tool)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	wantKind(t, e.Execute(ctx, Call{Name: "wait"}), KindCancelled)
	// An already cancelled context does not run the tool.
	wantKind(t, e.Execute(ctx, Call{Name: "wait"}), KindCancelled)
	if tool.runs.Load() != 1 {
		t.Fatalf("runs = %d, want 1", tool.runs.Load())
	}
}

func TestExecutePanicRecovered(t *testing.T) {
	tool := &testTool{
		spec: Spec{Name: "boom"},
		fn:   func(context.Context, json.RawMessage) (Result, error) { panic("kaboom") },
	}
	e := newExec(t, ExecutorOptions{}, tool)
	r := e.Execute(context.Background(), Call{Name: "boom"})
	wantKind(t, r, KindExecutionFailed)
	if !strings.Contains(r.Error.Message, "kaboom") {
		t.Fatalf("panic value missing: %q", r.Error.Message)
	}
}

func TestExecuteGoErrorAndFailWithoutError(t *testing.T) {
	e := newExec(t, ExecutorOptions{},
		&testTool{spec: Spec{Name: "err"}, fn: func(context.Context, json.RawMessage) (Result, error) {
			return Result{}, errors.New("disk on fire")
		}},
		&testTool{spec: Spec{Name: "bare"}, fn: func(context.Context, json.RawMessage) (Result, error) {
			return Result{Output: "x"}, nil
		}},
	)
	r := e.Execute(context.Background(), Call{Name: "err"})
	wantKind(t, r, KindExecutionFailed)
	if !strings.Contains(r.Error.Message, "disk on fire") {
		t.Fatalf("message %q", r.Error.Message)
	}
	wantKind(t, e.Execute(context.Background(), Call{Name: "bare"}), KindExecutionFailed)
}

func sleeper(name string, d time.Duration) *testTool {
	return &testTool{
		spec: Spec{Name: name},
		fn: func(ctx context.Context, args json.RawMessage) (Result, error) {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return Result{}, ctx.Err()
			}
			return OK(string(args)), nil
		},
	}
}

func TestExecuteAllParallelKeepsOrder(t *testing.T) {
	e := newExec(t, ExecutorOptions{Parallel: true}, sleeper("sleep", 200*time.Millisecond))
	calls := make([]Call, 8)
	for i := range calls {
		calls[i] = Call{ID: fmt.Sprint(i), Name: "sleep", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
	}
	start := time.Now()
	res := e.ExecuteAll(context.Background(), calls)
	el := time.Since(start)
	if el > 700*time.Millisecond {
		t.Fatalf("8 parallel 200ms calls took %v", el)
	}
	for i, r := range res {
		if want := fmt.Sprintf(`{"n":%d}`, i); !r.Success || r.Output != want {
			t.Fatalf("result %d = %+v, want output %s", i, r, want)
		}
	}
}

func TestExecuteAllSequential(t *testing.T) {
	e := newExec(t, ExecutorOptions{}, sleeper("sleep", 30*time.Millisecond))
	calls := []Call{{Name: "sleep", Arguments: json.RawMessage(`{"n":0}`)}, {Name: "sleep", Arguments: json.RawMessage(`{"n":1}`)}, {Name: "sleep", Arguments: json.RawMessage(`{"n":2}`)}}
	start := time.Now()
	res := e.ExecuteAll(context.Background(), calls)
	if el := time.Since(start); el < 90*time.Millisecond {
		t.Fatalf("sequential calls overlapped: %v", el)
	}
	for i, r := range res {
		if r.Output != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("order broken at %d: %q", i, r.Output)
		}
	}
}

func TestCache(t *testing.T) {
	tool := newAdder()
	e := newExec(t, ExecutorOptions{}, tool)
	ctx := context.Background()
	r1 := e.Execute(ctx, Call{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
	r2 := e.Execute(ctx, Call{Name: "add", Arguments: json.RawMessage(` { "b" : 2, "a" : 1 } `)})
	if tool.runs.Load() != 1 || r1.Cached || !r2.Cached || r2.Output != "3" {
		t.Fatalf("runs=%d r1=%+v r2=%+v", tool.runs.Load(), r1, r2)
	}
	r3 := e.Execute(ctx, Call{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":3}`)})
	if tool.runs.Load() != 2 || r3.Cached || r3.Output != "4" {
		t.Fatalf("different args must run: runs=%d r3=%+v", tool.runs.Load(), r3)
	}
	st := e.Stats()
	if len(st) != 1 || st[0].Calls != 3 || st[0].Successes != 3 || st[0].SuccessRate != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCacheDisabledAndNotCacheable(t *testing.T) {
	tool := newAdder()
	e := newExec(t, ExecutorOptions{DisableCache: true}, tool)
	for range 2 {
		e.Execute(context.Background(), Call{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
	}
	if tool.runs.Load() != 2 {
		t.Fatalf("cache disabled but runs=%d", tool.runs.Load())
	}
	plain := newAdder()
	plain.spec.Annotations.Cacheable = false
	e = newExec(t, ExecutorOptions{}, plain)
	for range 2 {
		e.Execute(context.Background(), Call{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
	}
	if plain.runs.Load() != 2 {
		t.Fatalf("not cacheable but runs=%d", plain.runs.Load())
	}
}

func TestExecuteTruncatesOutput(t *testing.T) {
	big := strings.Repeat("héllo wörld ", 5000) // multi-byte runes throughout
	tool := &testTool{spec: Spec{Name: "big"}, fn: func(context.Context, json.RawMessage) (Result, error) { return OK(big), nil }}
	e := newExec(t, ExecutorOptions{MaxOutputBytes: 1000}, tool)
	r := e.Execute(context.Background(), Call{Name: "big"})
	if len(r.Output) > 1000 || !utf8.ValidString(r.Output) {
		t.Fatalf("len=%d valid=%v", len(r.Output), utf8.ValidString(r.Output))
	}
	if !strings.HasPrefix(r.Output, "héllo") || !strings.HasSuffix(r.Output, "wörld ") {
		t.Fatalf("start or end lost: %q…%q", r.Output[:20], r.Output[len(r.Output)-20:])
	}
	if !strings.Contains(r.Output, fmt.Sprintf(" bytes of %d]", len(big))) {
		t.Fatalf("marker missing: %q", r.Output)
	}
}

func TestSetRegistrySwap(t *testing.T) {
	e := newExec(t, ExecutorOptions{}, newAdder())
	reg := NewRegistry(nil)
	reg.Register(sleeper("other", 0))
	done := make(chan struct{})
	go func() {
		for range 100 {
			e.Execute(context.Background(), Call{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":1}`)})
		}
		close(done)
	}()
	e.SetRegistry(reg)
	<-done
	if e.Registry() != reg {
		t.Fatal("registry not swapped")
	}
	wantKind(t, e.Execute(context.Background(), Call{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":1}`)}), KindNotFound)
}

func TestLogLineRedactsSecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	tool := &testTool{spec: Spec{Name: "login", Source: "test"}, fn: func(context.Context, json.RawMessage) (Result, error) { return OK("ok"), nil }}
	e := newExec(t, ExecutorOptions{Logger: logger}, tool)
	e.Execute(context.Background(), Call{Name: "login", Arguments: json.RawMessage(`{"user":"ann","api_key":"sk-123","nested":{"Password":"hunter2"}}`)})
	line := buf.String()
	for _, want := range []string{"level=INFO", "tool=login", "source=test", "ann", "result_bytes=2", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "sk-123") || strings.Contains(line, "hunter2") {
		t.Fatalf("secret leaked into log: %q", line)
	}
}

func TestStatsPercentiles(t *testing.T) {
	var m Metrics
	for i := 1; i <= 100; i++ {
		m.Record("t", i%4 != 0, time.Duration(i)*time.Millisecond)
	}
	m.Record("a", true, time.Millisecond)
	st := m.Stats()
	if len(st) != 2 || st[0].Name != "a" || st[1].Name != "t" {
		t.Fatalf("not sorted by name: %+v", st)
	}
	s := st[1]
	if s.Calls != 100 || s.Successes != 75 || s.SuccessRate != 0.75 || s.P50 != 50*time.Millisecond || s.P95 != 95*time.Millisecond {
		t.Fatalf("stats %+v", s)
	}
}

// TestParseErrorMessage: the parse_error text names the tool (or says it had
// no name), keeps the protocol's own advice, and quotes at most ~300 bytes.
func TestParseErrorMessage(t *testing.T) {
	e := newExec(t, ExecutorOptions{}, newAdder())
	advice := `the <tool_action> tag has no name attribute; write <tool_action name="TOOL">`
	r := e.Execute(context.Background(), Call{RawArguments: `<x value="1"/>`, ParseError: advice})
	wantKind(t, r, KindParseError)
	want := `could not read a tool call with no name: ` + advice + `; raw: "<x value=\"1\"/>"`
	if r.Error.Message != want {
		t.Fatalf("message\n got %q\nwant %q", r.Error.Message, want)
	}
	if strings.Contains(r.Error.Message, "not valid JSON") {
		t.Fatalf("markup error described as JSON: %q", r.Error.Message)
	}
	long := strings.Repeat("中", 200) // 600 bytes
	r = e.Execute(context.Background(), Call{Name: "add", RawArguments: long, ParseError: "the parameter element <a> is never closed"})
	msg := r.Error.Message
	if !strings.HasPrefix(msg, "could not read the call to add: the parameter element <a> is never closed; raw: ") ||
		!strings.Contains(msg, "(600 bytes in all)") || strings.Count(msg, "中") != 100 {
		t.Fatalf("long raw text: %q", msg)
	}
}
