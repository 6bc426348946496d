package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// authServer serves an MCP server over streamable HTTP and records the
// values of one request header.
type authServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newAuthServer(t *testing.T, header string) *authServer {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "1"}, nil)
	addEcho(srv, "echo", "remote:")
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	as := &authServer{}
	as.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		as.mu.Lock()
		as.seen = append(as.seen, r.Header.Get(header))
		as.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(as.Close)
	return as
}

// headers returns the distinct header values seen.
func (a *authServer) headers() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	set := map[string]bool{}
	var out []string
	for _, v := range a.seen {
		if !set[v] {
			set[v] = true
			out = append(out, v)
		}
	}
	return out
}

func TestRemoteServerAuth(t *testing.T) {
	const secret = "sekret-value-123"
	for _, tc := range []struct {
		name, header, check, want string
	}{
		{"bearer", "", "Authorization", "Bearer " + secret},
		{"custom header", "X-API-Key", "X-API-Key", secret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TACT_TEST_MCP_KEY", secret)
			as := newAuthServer(t, tc.check)
			logs := &syncBuffer{}
			cfg := ServerConfig{Name: "remote", URL: as.URL, APIKeyEnv: "TACT_TEST_MCP_KEY", Header: tc.header}
			p := NewPool([]ServerConfig{cfg}, PoolOptions{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			if err := p.Connect(context.Background()); err != nil {
				t.Fatalf("Connect: %v", err)
			}
			res := call(t, toolsOf(t, p.Providers()[0])["echo"], `{"message":"hi"}`)
			if res.Output != "remote:hi" {
				t.Fatalf("echo = %+v", res)
			}
			_ = p.Close()
			if h := as.headers(); len(h) != 1 || h[0] != tc.want {
				t.Errorf("%s headers seen = %q, want only %q", tc.check, h, tc.want)
			}
			if strings.Contains(logs.String(), secret) {
				t.Errorf("the API key was logged:\n%s", logs)
			}
		})
	}
}

func TestRemoteServerHeadersExpanded(t *testing.T) {
	t.Setenv("TACT_TEST_TOKEN", "tok")
	as := newAuthServer(t, "Authorization")
	cfg := ServerConfig{Name: "remote", URL: as.URL, Headers: []EnvVar{{Name: "Authorization", Value: "Bearer ${TACT_TEST_TOKEN}"}}}
	p := NewPool([]ServerConfig{cfg}, PoolOptions{})
	defer p.Close()
	if err := p.Connect(context.Background()); err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if h := as.headers(); len(h) != 1 || h[0] != "Bearer tok" {
		t.Errorf("Authorization seen = %q", h)
	}
}

func TestRemoteServerMissingKey(t *testing.T) {
	t.Setenv("TACT_TEST_MCP_KEY", "")
	as := newAuthServer(t, "Authorization")
	p := NewPool([]ServerConfig{{Name: "remote", URL: as.URL, APIKeyEnv: "TACT_TEST_MCP_KEY"}}, PoolOptions{})
	defer p.Close()
	err := p.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "TACT_TEST_MCP_KEY is empty") {
		t.Fatalf("Connect error = %v, want the variable named", err)
	}
	if len(as.headers()) != 0 {
		t.Errorf("no request should be sent without the key")
	}
}
