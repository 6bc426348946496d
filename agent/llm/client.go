package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultBaseURL is used when Options.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults for Options.
const (
	DefaultMaxRetries = 3
	DefaultTimeout    = 120 * time.Second
)

// Options configure a Client.
type Options struct {
	// BaseURL is the OpenAI-compatible API root, e.g. "http://localhost:11434/v1".
	// Empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token when not empty. It never appears in
	// errors or logs.
	APIKey string
	// Model is the default model; Request.Model overrides it.
	Model string
	// Timeout is how long the server may stay silent (before the response
	// headers, or between two pieces of the stream) before the request fails
	// with ErrTimeout. 0 means DefaultTimeout; negative disables it. It does
	// not limit the length of a steadily streaming answer.
	Timeout time.Duration
	// MaxRetries is how many times a failed request is repeated (429, 5xx,
	// connection reset before any data). 0 means DefaultMaxRetries; negative
	// means no retries.
	MaxRetries int
	// Transport carries the HTTP requests; nil means http.DefaultTransport.
	// DemoTransport serves the offline demo model.
	Transport http.RoundTripper
	// Logger receives debug and warning logs; nil discards them.
	Logger *slog.Logger
	// OnRetry, when set, is called before waiting to retry: attempt is the
	// 1-based number of the attempt that failed, wait the delay before the
	// next one, err what went wrong.
	OnRetry func(attempt int, wait time.Duration, err error)
}

// Client streams chat completions from one OpenAI-compatible server. It is
// safe for concurrent use.
type Client struct {
	opts       Options
	api        *openai.Client
	log        *slog.Logger
	baseURL    string // without credentials, for messages
	maxRetries int
	timeout    time.Duration

	// Replaceable in tests.
	sleep  func(context.Context, time.Duration) error
	jitter func(time.Duration) time.Duration
	now    func() time.Time

	noStreamOptions atomic.Bool // the server rejected stream_options once

	probeMu sync.Mutex
	probes  map[string]bool
}

// New returns a Client for opts. It does not contact the server.
func New(opts Options) *Client {
	base := strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	c := &Client{
		opts:       opts,
		log:        opts.Logger,
		baseURL:    redactURL(base),
		maxRetries: opts.MaxRetries,
		timeout:    opts.Timeout,
		sleep:      sleepCtx,
		jitter:     randomDuration,
		now:        time.Now,
		probes:     map[string]bool{},
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.maxRetries == 0 {
		c.maxRetries = DefaultMaxRetries
	} else if c.maxRetries < 0 {
		c.maxRetries = 0
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	rt := opts.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cfg := openai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = base
	cfg.EmptyMessagesLimit = 10000 // SSE comments such as OpenRouter's keep-alives
	cfg.HTTPClient = &http.Client{Transport: &observingTransport{next: rt, now: func() time.Time { return c.now() }}}
	c.api = openai.NewClientWithConfig(cfg)
	return c
}

// redactURL drops user:password from a URL for display.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Model returns the client's default model.
func (c *Client) Model() string { return c.opts.Model }

// BaseURL returns the server's API root (without credentials).
func (c *Client) BaseURL() string { return c.baseURL }

// Stream sends req and streams the answer: onText (may be nil) receives each
// text delta as it arrives. The returned Response holds the whole text, the
// accumulated tool calls in index order, the finish reason and usage. On an
// error the partial Response (text so far) is returned with it.
//
// Failed attempts are retried (see Options.MaxRetries) only while nothing has
// been passed to onText. A server that rejects the tools field yields a
// *ToolsUnsupportedError; a stream cut before its end an error wrapping
// ErrStreamEndedEarly; cancelling ctx an error wrapping ctx.Err().
func (c *Client) Stream(ctx context.Context, req Request, onText func(string)) (Response, error) {
	if onText == nil {
		onText = func(string) {}
	}
	oreq := c.buildRequest(req)
	if oreq.Model == "" {
		return Response{}, errors.New("no model configured: pass --model or set provider.model")
	}
	for attempt := 1; ; attempt++ {
		c.log.Debug("chat request", "base_url", c.baseURL, "model", oreq.Model, "attempt", attempt,
			"messages", len(oreq.Messages), "tools", len(oreq.Tools))
		res, delivered, info, err := c.attempt(ctx, oreq, onText)
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return res, fmt.Errorf("chat request cancelled: %w", ctx.Err())
		}
		if !delivered && oreq.StreamOptions != nil && streamOptionsRejected(err) {
			c.log.Info("server rejects stream_options; asking without usage", "base_url", c.baseURL)
			c.noStreamOptions.Store(true)
			oreq.StreamOptions = nil
			attempt--
			continue
		}
		if len(oreq.Tools) > 0 && toolsRejected(err) {
			return res, &ToolsUnsupportedError{Model: oreq.Model, Err: c.describe(err, attempt)}
		}
		if delivered || attempt > c.maxRetries || !retryable(err, info) {
			derr := c.describe(err, attempt)
			c.log.Warn("chat request failed", "base_url", c.baseURL, "model", oreq.Model, "error", derr.Error())
			return res, derr
		}
		wait := backoff(attempt, info, c.jitter)
		derr := c.describe(err, attempt)
		c.log.Warn("chat request failed; retrying", "attempt", attempt, "wait", wait, "error", derr.Error())
		if c.opts.OnRetry != nil {
			c.opts.OnRetry(attempt, wait, derr)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return res, fmt.Errorf("chat request cancelled while waiting to retry: %w", err)
		}
	}
}

// buildRequest maps a Request onto go-openai's request.
func (c *Client) buildRequest(req Request) openai.ChatCompletionRequest {
	model := req.Model
	if model == "" {
		model = c.opts.Model
	}
	o := openai.ChatCompletionRequest{
		Model:    model,
		Messages: Sanitize(req.Messages),
		Stream:   true,
	}
	if !c.noStreamOptions.Load() {
		o.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	if req.MaxTokens > 0 {
		if isReasoningModel(model) {
			o.MaxCompletionTokens = req.MaxTokens
		} else {
			o.MaxTokens = req.MaxTokens
		}
	}
	if len(req.Tools) > 0 {
		o.Tools = make([]openai.Tool, len(req.Tools))
		for i, t := range req.Tools {
			if t.Type == "" {
				t.Type = openai.ToolTypeFunction
			}
			o.Tools[i] = t
		}
		o.ToolChoice = toolChoice(req.ToolChoice)
		o.ParallelToolCalls = req.ParallelToolCalls
	}
	return o
}

// isReasoningModel reports models that take max_completion_tokens only
// (go-openai refuses max_tokens for them).
func isReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// toolChoice maps "auto", "none", "required" (or "any") and a tool name onto
// go-openai's tool_choice; "" leaves it to the server (nil).
func toolChoice(s string) any {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "":
		return nil
	case "auto", "none", "required":
		return v
	case "any":
		return "required"
	}
	return openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: strings.TrimSpace(s)}}
}

// attempt runs one HTTP request and reads its stream. delivered reports
// whether onText was called.
func (c *Client) attempt(ctx context.Context, oreq openai.ChatCompletionRequest, onText func(string)) (res Response, delivered bool, info *attemptInfo, err error) {
	info = &attemptInfo{}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if c.timeout > 0 {
		idle := &userError{
			msg: fmt.Sprintf("%v: no data from %s for %s — the model may be loading or overloaded; raise provider.timeout",
				ErrTimeout, c.baseURL, c.timeout),
			err: ErrTimeout,
		}
		timer := time.AfterFunc(c.timeout, func() { cancel(idle) })
		defer timer.Stop()
		info.touch = func() { timer.Reset(c.timeout) }
	}
	// cause prefers the idle-timeout error over the "context canceled" it caused.
	cause := func(err error) error {
		if ctx.Err() == nil && actx.Err() != nil {
			return context.Cause(actx)
		}
		return err
	}

	stream, err := c.api.CreateChatCompletionStream(withInfo(actx, info), oreq)
	if err != nil {
		return res, false, info, cause(err)
	}
	defer stream.Close()

	var (
		acc    accumulator
		text   strings.Builder
		finish string
	)
	partial := func() Response {
		res.Content = text.String()
		res.ToolCalls = acc.result()
		res.FinishReason = finish
		return res
	}
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			err = cause(err)
			if ctx.Err() == nil && !errors.Is(err, ErrTimeout) && httpStatus(err) == 0 && !isAPIError(err) {
				err = fmt.Errorf("%w after %d characters: %w", ErrStreamEndedEarly, text.Len(), err)
			}
			return partial(), delivered, info, err
		}
		var ch chunk
		if err := json.Unmarshal(raw, &ch); err != nil {
			return partial(), delivered, info, fmt.Errorf("the server sent a malformed stream chunk %q: %w", truncate(string(raw), 200), err)
		}
		if ch.Usage != nil {
			res.Usage = ch.Usage
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue // tact asks for one choice
			}
			if d := choice.Delta.Content; d != "" {
				text.WriteString(d)
				delivered = true
				onText(d)
			}
			for _, tc := range choice.Delta.ToolCalls {
				acc.add(tc)
			}
			if choice.FinishReason != nil && *choice.FinishReason != "" {
				finish = *choice.FinishReason
			}
		}
	}
	res = partial()
	if finish == "" && !info.sawDone {
		return res, delivered, info, fmt.Errorf("%w: %s closed the response after %d characters without finishing it",
			ErrStreamEndedEarly, c.baseURL, text.Len())
	}
	return res, delivered, info, nil
}

func isAPIError(err error) bool {
	var api *openai.APIError
	return errors.As(err, &api)
}
