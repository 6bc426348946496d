package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ErrStreamEndedEarly is wrapped by the error Stream returns when the
// response stream stopped before a finish reason or [DONE]. The partial
// Response is returned with it.
var ErrStreamEndedEarly = errors.New("stream ended early")

// ErrTimeout is wrapped by the error Stream returns when the server sent
// nothing for Options.Timeout.
var ErrTimeout = errors.New("model server timed out")

// userError carries a message written for the user while keeping the
// original error reachable through errors.Is/As.
type userError struct {
	msg string
	err error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// ToolsUnsupportedError reports that the server or model rejected the
// request's tools field: the model has no native function calling there, and
// a text protocol should be used instead.
type ToolsUnsupportedError struct {
	// Model is the model the request was for.
	Model string
	// Err is the server's error.
	Err error
}

// Error implements error.
func (e *ToolsUnsupportedError) Error() string {
	return fmt.Sprintf("native function calling unavailable for %s (the server rejected the tools field): %v", e.Model, e.Err)
}

// Unwrap returns the server's error.
func (e *ToolsUnsupportedError) Unwrap() error { return e.Err }

// IsToolsUnsupported reports whether err (or an error it wraps) is a
// *ToolsUnsupportedError.
func IsToolsUnsupported(err error) bool {
	var t *ToolsUnsupportedError
	return errors.As(err, &t)
}

// httpStatus returns the HTTP status of a go-openai error, or 0. A
// *RequestError is looked for first: it may wrap an *APIError without a
// status (when the body's "error" was not an object).
func httpStatus(err error) int {
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	var api *openai.APIError
	if errors.As(err, &api) {
		return api.HTTPStatusCode
	}
	return 0
}

// serverMessage returns the server's error text of a go-openai error: the
// API error message, or what can be read from a non-standard error body
// (vLLM's top-level "message", Ollama's "error" string, FastAPI's "detail").
func serverMessage(err error) string {
	var re *openai.RequestError
	if !errors.As(err, &re) {
		var api *openai.APIError
		if errors.As(err, &api) {
			return api.Message
		}
		return ""
	}
	if api, ok := re.Err.(*openai.APIError); ok && api.Message != "" {
		return api.Message
	}
	var body struct {
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(re.Body, &body) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case body.Message != "":
			return body.Message
		case json.Unmarshal(body.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(body.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case json.Unmarshal(body.Detail, &s) == nil && s != "":
			return s
		case len(body.Detail) > 0:
			return string(body.Detail)
		}
	}
	if re.Err != nil && len(re.Body) == 0 {
		return re.Err.Error()
	}
	return truncate(strings.TrimSpace(string(re.Body)), 300)
}

// toolsUnsupportedRE matches the ways servers say a model cannot take tools.
var toolsUnsupportedRE = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`does not support tools`,                               // Ollama
	`auto"? tool choice requires`,                          // vLLM without a tool parser
	`no endpoints found that support tool use`,             // OpenRouter
	`tool_choice.{0,60}(not supported|unsupported)`,        // various
	`(not supported|unsupported).{0,30}tool_choice`,        // various
	`tools? (use |calling |calls )?(is|are) not supported`, // various
	`(function|tool) calling is not (supported|enabled)`,
	`does not support (function|tool) call`,
	`tools param requires --jinja`, // llama.cpp server
	`unrecognized request arguments? supplied: .*tool`,
}, "|"))

// toolsRejected reports whether err is a server rejecting the tools field.
func toolsRejected(err error) bool {
	s := httpStatus(err)
	if s < 400 {
		return false
	}
	return toolsUnsupportedRE.MatchString(serverMessage(err))
}

// streamOptionsRejected reports whether err is a server rejecting
// stream_options (older OpenAI-compatible servers do).
func streamOptionsRejected(err error) bool {
	s := httpStatus(err)
	return (s == 400 || s == 422) && strings.Contains(strings.ToLower(serverMessage(err)), "stream_options")
}

// retryable reports whether a failed attempt may be repeated: 429 and 5xx
// (but not 501/505), and connection resets or empty bodies before any byte of
// the body arrived. A refused connection is not retried: nothing listens
// there, and the user should hear that at once.
func retryable(err error, info *attemptInfo) bool {
	if s := httpStatus(err); s != 0 {
		return s == http.StatusTooManyRequests ||
			(s >= 500 && s != http.StatusNotImplemented && s != http.StatusHTTPVersionNotSupported)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	if info.bodyBytes > 0 {
		return false
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, ErrStreamEndedEarly)
}

// backoff returns the wait before retrying after failed attempt n (1-based):
// Retry-After when the server sent one, else 500ms·2^(n-1) capped at 30s,
// with "equal jitter" (a random point in the upper half).
func backoff(n int, info *attemptInfo, rnd func(time.Duration) time.Duration) time.Duration {
	if info.hasRetry {
		return info.retryAfter
	}
	const base, limit = 500 * time.Millisecond, 30 * time.Second
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d/2 + rnd(d/2)
}

// randomDuration returns a random duration in [0, d].
func randomDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// describe turns a final error into one that says what happened and what
// the user can do. The API key never appears in it.
func (c *Client) describe(err error, attempts int) error {
	tries := ""
	if attempts > 1 {
		tries = fmt.Sprintf(" after %d attempts", attempts)
	}
	var msg string
	switch s := httpStatus(err); {
	case s != 0:
		hint := ""
		switch {
		case s == 401 || s == 403:
			hint = " — check the API key (OPENAI_API_KEY, or the variable named by provider.api_key_env)"
		case s == 404:
			hint = " — check the model name (--model) and provider.base_url"
		case s == 429:
			hint = " — the server is rate limiting; wait a moment or raise provider.max_retries"
		case s >= 500:
			hint = " — the server failed; try again later"
		}
		text := serverMessage(err)
		if text == "" {
			text = http.StatusText(s)
		}
		msg = fmt.Sprintf("model server %s returned HTTP %d%s: %s%s", c.baseURL, s, tries, text, hint)
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = fmt.Sprintf("cannot reach %s: connection refused — is the server running? set provider.base_url", c.baseURL)
	case isDNSError(err):
		msg = fmt.Sprintf("cannot reach %s: unknown host — check provider.base_url (%v)", c.baseURL, err)
	case errors.Is(err, ErrStreamEndedEarly), errors.Is(err, ErrTimeout):
		msg = err.Error() + tries
	default:
		// go-openai prefixes an error the server sent mid-stream with "error, ".
		detail := strings.TrimPrefix(err.Error(), "error, ")
		msg = fmt.Sprintf("request to %s failed%s: %s — send the message again to retry", c.baseURL, tries, detail)
	}
	return &userError{msg: c.redact(msg), err: err}
}

func isDNSError(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d)
}

// redact removes the API key from s.
func (c *Client) redact(s string) string {
	if k := c.opts.APIKey; len(k) >= 4 {
		s = strings.ReplaceAll(s, k, "[redacted]")
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
