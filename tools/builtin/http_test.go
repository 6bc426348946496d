package builtin

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tact/tools"
)

func TestHTTPFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>T</title><style>p{color:red}</style></head><body><h1>Hello &amp; welcome</h1><script>alert(1)</script><p>First   para</p><p>Second</p></body></html>`)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("z", 5000))
		default:
			http.Error(w, "nothing here", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	h := newHarness(t, Options{HTTPClient: srv.Client()})

	got := h.ok("http_fetch", map[string]any{"url": srv.URL + "/page"})
	if !strings.HasPrefix(got, "HTTP/1.1 200 OK\ncontent-type: text/html") || !strings.HasSuffix(got, "\n\nHello & welcome\nFirst para\nSecond") {
		t.Fatalf("page: %q", got)
	}
	if strings.Contains(got, "alert") || strings.Contains(got, "color") {
		t.Fatalf("script or style kept: %q", got)
	}
	got = h.ok("http_fetch", map[string]any{"url": srv.URL + "/big", "max_bytes": 100})
	if !strings.Contains(got, strings.Repeat("z", 100)+"\n…[body cut at 100 bytes") || strings.Contains(got, strings.Repeat("z", 101)) {
		t.Fatalf("max_bytes not applied: %q", got)
	}
	r := h.fail("http_fetch", map[string]any{"url": srv.URL + "/missing"}, tools.KindExecutionFailed, "404")
	if !strings.Contains(r.Output, "nothing here") {
		t.Fatalf("404 body lost: %q", r.Output)
	}
	h.fail("http_fetch", map[string]any{"url": "file:///etc/passwd"}, tools.KindInvalidParameters, "http")
	h.fail("http_fetch", map[string]any{"url": "/relative"}, tools.KindInvalidParameters, "http")
}
