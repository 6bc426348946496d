package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"time"
)

// attemptInfo records what the transport saw during one HTTP attempt. go-openai
// turns error responses into errors without their headers, and hides whether
// the stream ended with [DONE]; the observing transport fills these in. It is
// written and read on the goroutine that calls Stream (http.Client.Do runs
// RoundTrip and body reads synchronously there).
type attemptInfo struct {
	status     int
	retryAfter time.Duration
	hasRetry   bool
	bodyBytes  int64
	sawDone    bool
	touch      func() // called whenever data arrives (idle timeout)
}

type infoKey struct{}

// observingTransport wraps the real transport and reports into the
// attemptInfo carried by the request's context, if any.
type observingTransport struct {
	next http.RoundTripper
	now  func() time.Time
}

// RoundTrip implements http.RoundTripper.
func (t *observingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	info, _ := req.Context().Value(infoKey{}).(*attemptInfo)
	resp, err := t.next.RoundTrip(req)
	if err != nil || info == nil {
		return resp, err
	}
	info.status = resp.StatusCode
	if d, ok := retryAfter(resp.Header, t.now()); ok {
		info.retryAfter, info.hasRetry = d, true
	}
	if info.touch != nil {
		info.touch()
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, info: info}
	return resp, nil
}

// maxRetryAfter caps a server's Retry-After so a bad header cannot hang tact.
const maxRetryAfter = 60 * time.Second

// retryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or an
// HTTP date), capped at maxRetryAfter.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	var d time.Duration
	if v := h.Get("Retry-After-Ms"); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || ms < 0 {
			return 0, false
		}
		d = time.Duration(ms * float64(time.Millisecond))
	} else if v := h.Get("Retry-After"); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			if secs < 0 {
				return 0, false
			}
			d = time.Duration(secs * float64(time.Second))
		} else if at, err := http.ParseTime(v); err == nil {
			d = max(at.Sub(now), 0)
		} else {
			return 0, false
		}
	} else {
		return 0, false
	}
	return min(d, maxRetryAfter), true
}

// watchedBody counts the bytes of a response body, resets the idle timer on
// each read, and notices a "data: [DONE]" line.
type watchedBody struct {
	io.ReadCloser
	info *attemptInfo
	line []byte // start of the current line, at most lineKeep bytes
	long bool   // the current line is longer than lineKeep
}

const lineKeep = 16

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.info.bodyBytes += int64(n)
		if b.info.touch != nil {
			b.info.touch()
		}
		b.scan(p[:n])
	}
	if err == io.EOF {
		b.endLine()
	}
	return n, err
}

// scan looks at each line's start, keeping only lineKeep bytes: a [DONE]
// line is short, so nothing else needs to be remembered.
func (b *watchedBody) scan(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if !b.long {
			if len(b.line)+len(part) > lineKeep {
				b.long = true
			} else {
				b.line = append(b.line, part...)
			}
		}
		if i < 0 {
			return
		}
		b.endLine()
		p = p[i+1:]
	}
}

func (b *watchedBody) endLine() {
	if !b.long {
		l := bytes.TrimSpace(b.line)
		if v, ok := bytes.CutPrefix(l, []byte("data:")); ok && string(bytes.TrimSpace(v)) == "[DONE]" {
			b.info.sawDone = true
		}
	}
	b.line, b.long = b.line[:0], false
}

// withInfo returns ctx carrying info for the observing transport.
func withInfo(ctx context.Context, info *attemptInfo) context.Context {
	return context.WithValue(ctx, infoKey{}, info)
}
