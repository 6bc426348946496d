package builtin

import (
	"context"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"tact/tools"
)

const (
	defaultHTTPTimeout  = 30 * time.Second
	defaultFetchBytes   = 256 << 10
	maxFetchBytesCeil   = 4 << 20
	fetchUserAgentValue = "tact (terminal chat agent)"
)

// HTTPFetchArgs are the parameters of http_fetch.
type HTTPFetchArgs struct {
	URL      string `json:"url" jsonschema:"http or https URL to GET"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"read at most this many bytes of the body (default 262144)"`
}

func httpFetchTool(client *http.Client) tools.Tool {
	spec := tools.Spec{
		Name:        "http_fetch",
		Description: "GET an http or https URL. Returns the status line and the body; HTML is reduced to its text.",
		Annotations: readOnly(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(ctx context.Context, a HTTPFetchArgs) (tools.Result, error) {
		u, err := url.Parse(a.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("url %q must be an absolute http:// or https:// URL", a.URL)), nil
		}
		limit := a.MaxBytes
		if limit <= 0 {
			limit = defaultFetchBytes
		}
		limit = min(limit, maxFetchBytesCeil)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("bad request for %q: %v", a.URL, err)), nil
		}
		req.Header.Set("User-Agent", fetchUserAgentValue)
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return tools.Result{}, ctx.Err()
			}
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("fetching %s failed: %v", u.Redacted(), err)), nil
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
		if err != nil {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("reading the body of %s failed: %v", u.Redacted(), err)), nil
		}
		more := len(body) > limit
		if more {
			body = body[:limit]
		}
		ctype := resp.Header.Get("Content-Type")
		text := string(body)
		if mt, _, _ := mime.ParseMediaType(ctype); mt == "text/html" || mt == "application/xhtml+xml" {
			text = HTMLToText(text)
		}
		if more {
			text += fmt.Sprintf("\n…[body cut at %d bytes; pass a larger max_bytes to read more]", limit)
		}
		out := fmt.Sprintf("%s %s\ncontent-type: %s\n\n%s", resp.Proto, resp.Status, ctype, text)
		if resp.StatusCode >= 400 {
			r := tools.Fail(tools.KindExecutionFailed, "the server answered "+resp.Status)
			r.Output = out
			return r, nil
		}
		return tools.OK(out), nil
	})
}

var (
	reDropBlocks = regexp.MustCompile(`(?is)<(script|style|noscript|svg|head)\b.*?</(script|style|noscript|svg|head)\s*>`)
	reComments   = regexp.MustCompile(`(?s)<!--.*?-->`)
	reBreaks     = regexp.MustCompile(`(?i)<(br|/p|/div|/li|/tr|/h[1-6]|/pre|/section|/article|/table|/ul|/ol)\b[^>]*>`)
	reTags       = regexp.MustCompile(`(?s)<[^>]*>`)
	reSpaces     = regexp.MustCompile(`[ \t\r\f\v]+`)
	reBlankLines = regexp.MustCompile(`\n\s*\n+`)
)

// HTMLToText reduces an HTML document to rough readable text: scripts,
// styles and tags removed, entities decoded, white space collapsed.
func HTMLToText(s string) string {
	s = reComments.ReplaceAllString(s, "")
	s = reDropBlocks.ReplaceAllString(s, "")
	s = reBreaks.ReplaceAllString(s, "\n")
	s = reTags.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = reSpaces.ReplaceAllString(s, " ")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	s = strings.Join(lines, "\n")
	s = reBlankLines.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}
