package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		secrets []string
		want    string
	}{
		{"every occurrence", "k=sk-abc123 again sk-abc123", []string{"sk-abc123"}, "k=[redacted] again [redacted]"},
		{"short values ignored", "token=12345 ok", []string{"12345"}, "token=12345 ok"},
		{"several secrets", "a=hunter22 b=correcthorse", []string{"hunter22", "correcthorse"}, "a=[redacted] b=[redacted]"},
		{"longer secret wins over its prefix", "x=abcdef123456", []string{"abcdef", "abcdef123456"}, "x=[redacted]"},
		{"no secrets", "plain", nil, "plain"},
		{"empty secret ignored", "plain", []string{""}, "plain"},
		{"multi-line", "line1 SECRETVALUE\nline2SECRETVALUE", []string{"SECRETVALUE"}, "line1 [redacted]\nline2[redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.in, tt.secrets); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNilRedactor(t *testing.T) {
	var r *Redactor
	if got := r.String("abc"); got != "abc" {
		t.Errorf("nil Redactor changed text: %q", got)
	}
	if r.Contains("abc") {
		t.Error("nil Redactor contains a secret")
	}
}

func TestSecretValuesFromEnv(t *testing.T) {
	env := []string{
		"OPENAI_API_KEY=sk-live-0001",
		"GITHUB_TOKEN=ghp_abcdef",
		"db_password=pa55word!",
		"MySecret=s3cr3t-value",
		"HOME=/home/user",
		"PATH=/usr/bin:/bin",
		"SHORT_TOKEN=abc",          // too short
		"DUP_KEY=sk-live-0001",     // duplicate value
		"BROKEN_ENTRY_WITHOUT_EQ",  // not NAME=value
		"EMPTY_SECRET=",            // empty
		"VALUE_HAS_EQ_KEY=a=b=c=d", // value with '='
	}
	got := SecretValuesFromEnv(env)
	want := []string{"sk-live-0001", "ghp_abcdef", "pa55word!", "s3cr3t-value", "a=b=c=d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SecretValuesFromEnv = %q, want %q", got, want)
	}
}

func TestRedactArgs(t *testing.T) {
	in := `{"command":"ls","api_key":"sk-1","nested":{"Authorization":"Bearer x","list":[{"access_token":"t"},{"name":"keep"}]},"password":null,"count":12345678901234567890}`
	got := RedactArgs(json.RawMessage(in))
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(got))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("RedactArgs returned invalid JSON %s: %v", got, err)
	}
	if m["command"] != "ls" || m["api_key"] != Placeholder {
		t.Errorf("top level wrong: %s", got)
	}
	nested := m["nested"].(map[string]any)
	if nested["Authorization"] != Placeholder {
		t.Errorf("nested Authorization not redacted: %s", got)
	}
	list := nested["list"].([]any)
	if list[0].(map[string]any)["access_token"] != Placeholder || list[1].(map[string]any)["name"] != "keep" {
		t.Errorf("array elements wrong: %s", got)
	}
	if m["password"] != nil {
		t.Errorf("null password should stay null: %s", got)
	}
	if m["count"].(json.Number).String() != "12345678901234567890" {
		t.Errorf("big number changed: %s", got)
	}
	if strings.Contains(string(got), "sk-1") || strings.Contains(string(got), "Bearer") {
		t.Errorf("secret left in %s", got)
	}
}

func TestRedactArgsInvalidUnchanged(t *testing.T) {
	for _, in := range []string{`{"a":`, `not json`, `{"a":1} trailing`, ``} {
		if got := RedactArgs(json.RawMessage(in)); string(got) != in {
			t.Errorf("RedactArgs(%q) = %q, want unchanged", in, got)
		}
	}
}

func TestRedactorJSON(t *testing.T) {
	r := New([]string{`se<c>"ret&1`, "sk-test-999"})
	// The first secret is escaped by JSON (\u003c, \", \u0026) in the input.
	in, _ := json.Marshal(map[string]any{
		"command":     `curl -H "X: se<c>"ret&1" https://x`,
		"token":       "whatever",
		"sk-test-999": 1,
	})
	got := r.JSON(in)
	if !json.Valid(got) {
		t.Fatalf("invalid JSON: %s", got)
	}
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	if m["command"] != `curl -H "X: [redacted]" https://x` {
		t.Errorf("command = %q", m["command"])
	}
	if m["token"] != Placeholder {
		t.Errorf("token = %q", m["token"])
	}
	if _, ok := m[Placeholder]; !ok {
		t.Errorf("secret used as key not redacted: %s", got)
	}
	// Invalid JSON becomes a redacted JSON string.
	bad := r.JSON(json.RawMessage(`{"cmd": "echo sk-test-999`))
	var s string
	if err := json.Unmarshal(bad, &s); err != nil || s != `{"cmd": "echo [redacted]` {
		t.Errorf("invalid input: got %s (%v)", bad, err)
	}
	if r.JSON(nil) != nil {
		t.Error("empty input should give nil")
	}
}

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

func TestHandler(t *testing.T) {
	const key = "sk-proj-SECRET123"
	var buf bytes.Buffer
	base := slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	log := slog.New(NewHandler(base, []string{key}))

	log = log.With("client", "key="+key)
	log.WithGroup("req").Info("calling with "+key,
		"auth", "Bearer "+key,
		"err", errors.New("401: bad key "+key),
		"who", stringer{"me " + key},
		"n", 42,
		slog.Group("inner", "h", key),
		"plain", "hello",
	)
	out := buf.String()
	if strings.Contains(out, key) {
		t.Fatalf("secret leaked into log: %s", out)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("bad log line %q: %v", out, err)
	}
	if m["msg"] != "calling with [redacted]" || m["client"] != "key=[redacted]" {
		t.Errorf("message or With attr wrong: %s", out)
	}
	req := m["req"].(map[string]any)
	want := map[string]any{
		"auth":  "Bearer [redacted]",
		"err":   "401: bad key [redacted]",
		"who":   "me [redacted]",
		"n":     float64(42),
		"inner": map[string]any{"h": "[redacted]"},
		"plain": "hello",
	}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("group = %v, want %v", req, want)
	}
}

func TestHandlerNoSecretsReturnsSame(t *testing.T) {
	base := slog.NewTextHandler(&bytes.Buffer{}, nil)
	if got := NewHandler(base, []string{"abc"}); got != base {
		t.Error("NewHandler without usable secrets should return the handler unchanged")
	}
}

func TestHandlerKeepsNonSecretAny(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewJSONHandler(&buf, nil), []string{"topsecret"}))
	log.Info("x", "list", []int{1, 2})
	if !strings.Contains(buf.String(), `"list":[1,2]`) {
		t.Errorf("non-secret value was changed: %s", buf.String())
	}
}

func TestSecretEnvNamesAndValues(t *testing.T) {
	secret := []string{"GITHUB_PAT", "NPM_AUTH", "AWS_SESSION_TOKEN", "my_api_key", "DB_PASSWD", "LLM_CRED",
		"SSH_AUTH_SOCK", "SENTRY_DSN", "GPG_PASSPHRASE", "SMTP_PW"}
	plain := []string{"PATH", "PWD", "OLDPWD", "GIT_AUTHOR_NAME", "HOME", "LANG", "PATCH_LEVEL", "TERM"}
	for _, n := range secret {
		if !IsSecretEnvName(n) {
			t.Errorf("%s should be secret", n)
		}
	}
	for _, n := range plain {
		if IsSecretEnvName(n) {
			t.Errorf("%s should not be secret", n)
		}
	}
	if !IsSecretEnv("DATABASE_URL", "postgres://user:dbpass@db:5432/x") {
		t.Error("a URL with a password should be secret")
	}
	if IsSecretEnv("HOMEPAGE_URL", "https://example.com/a:b") {
		t.Error("a URL without a password is not secret")
	}
	env := ScrubEnv([]string{"PATH=/bin", "DATABASE_URL=postgres://u:p4ss@h/x", "GITHUB_PAT=ghp_x"}, nil)
	if len(env) != 1 || env[0] != "PATH=/bin" {
		t.Errorf("ScrubEnv = %v", env)
	}
}
