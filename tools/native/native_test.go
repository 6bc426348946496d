package native

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"tact/tools"
)

// seen is what the test server received.
type seen struct {
	Method, Path, Query, Body string
	Header                    http.Header
}

// newServer answers /notes, /search, /slow and /broken, and records requests.
func newServer(t *testing.T) (*httptest.Server, func() []seen) {
	t.Helper()
	var (
		mu   sync.Mutex
		reqs []seen
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, seen{r.Method, r.URL.Path, r.URL.RawQuery, string(body), r.Header.Clone()})
		mu.Unlock()
		switch r.URL.Path {
		case "/notes":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":7,"ok":true}`)
		case "/search":
			io.WriteString(w, "plain text result")
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		case "/broken":
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "down for maintenance "+strings.Repeat("x", 1000))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), reqs...)
	}
}

// loadServerTools writes testdata/server/tools.yaml with the server URL into
// a temporary folder and loads it.
func loadServerTools(t *testing.T, srv *httptest.Server) map[string]*Tool {
	t.Helper()
	data, err := os.ReadFile("testdata/server/tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data = bytes.ReplaceAll(data, []byte("{{SERVER}}"), []byte(srv.URL))
	if err := os.WriteFile(filepath.Join(dir, "tools.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ts, errs := Load([]string{dir}, nil)
	if len(errs) > 0 {
		t.Fatalf("Load: %v", errs)
	}
	out := map[string]*Tool{}
	for _, tl := range ts {
		out[tl.Spec().Name] = tl.(*Tool)
	}
	if len(out) != 4 {
		t.Fatalf("loaded %d tools, want 4", len(out))
	}
	return out
}

func TestPostSendsJSONBodyAndAPIKey(t *testing.T) {
	srv, requests := newServer(t)
	ts := loadServerTools(t, srv)
	t.Setenv("TACT_TEST_NOTES_KEY", "k-123")
	note := ts["create_note"]
	spec := note.Spec()
	if spec.Source != "native" || spec.Annotations.ReadOnly || !spec.Annotations.Destructive {
		t.Errorf("spec = %+v, want native, not read-only (POST)", spec)
	}
	var schema map[string]any
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil || schema["required"].([]any)[0] != "title" {
		t.Errorf("parameters = %s (%v)", spec.Parameters, err)
	}

	args := `{"title":"hi","tags":["a","b"],"n":1.5}`
	res, err := note.Execute(context.Background(), json.RawMessage(args))
	if err != nil || !res.Success {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if res.Output != "{\n  \"id\": 7,\n  \"ok\": true\n}" {
		t.Errorf("output not pretty-printed JSON: %q", res.Output)
	}
	r := requests()[0]
	if r.Method != "POST" || r.Path != "/notes" || r.Query != "" {
		t.Errorf("request = %s %s?%s", r.Method, r.Path, r.Query)
	}
	var got, want any
	_ = json.Unmarshal([]byte(r.Body), &got)
	_ = json.Unmarshal([]byte(args), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body = %s, want %s", r.Body, args)
	}
	if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("X-API-Key") != "k-123" ||
		r.Header.Get("X-Client") != "tact-test" || r.Header.Get("Authorization") != "" {
		t.Errorf("headers = %v", r.Header)
	}
}

func TestGetSendsQueryAndBearer(t *testing.T) {
	srv, requests := newServer(t)
	ts := loadServerTools(t, srv)
	t.Setenv("TACT_TEST_NOTES_TOKEN", "tok-9")
	search := ts["search_notes"]
	if !search.Spec().Annotations.ReadOnly || search.Definition().Method != "GET" {
		t.Errorf("GET tool should default to read-only: %+v", search.Spec())
	}
	res, err := search.Execute(context.Background(), json.RawMessage(`{"q":"a b&c","limit":5,"flags":[true,false]}`))
	if err != nil || !res.Success || res.Output != "plain text result" {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	r := requests()[0]
	if r.Method != "GET" || r.Body != "" {
		t.Errorf("request = %s body %q", r.Method, r.Body)
	}
	if want := "flags=true&flags=false&lang=en&limit=5&q=a+b%26c"; r.Query != want {
		t.Errorf("query = %q, want %q", r.Query, want)
	}
	if r.Header.Get("Authorization") != "Bearer tok-9" || r.Header.Get("Content-Type") != "" {
		t.Errorf("headers = %v", r.Header)
	}
}

func TestNon2xxIsExecutionFailed(t *testing.T) {
	srv, requests := newServer(t)
	ts := loadServerTools(t, srv)
	res, err := ts["broken"].Execute(context.Background(), json.RawMessage(`{"id":"42"}`))
	if err != nil || res.Success || res.Error.Kind != tools.KindExecutionFailed {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	prefix := "HTTP 503 Service Unavailable from " + srv.URL + "/broken: down for maintenance x"
	if !strings.HasPrefix(res.Error.Message, prefix) {
		t.Errorf("message = %q\nwant prefix %q", res.Error.Message, prefix)
	}
	if n := len(res.Error.Message) - len("HTTP 503 Service Unavailable from "+srv.URL+"/broken: "); n != 500 {
		t.Errorf("body part is %d bytes, want the first 500", n)
	}
	if strings.Contains(res.Error.Message, "id=42") {
		t.Error("the query (arguments) should not be repeated in the message")
	}
	if r := requests()[0]; r.Method != "DELETE" || r.Query != "id=42" {
		t.Errorf("request = %s ?%s", r.Method, r.Query)
	}
}

func TestTimeout(t *testing.T) {
	srv, _ := newServer(t)
	ts := loadServerTools(t, srv)
	slow := ts["slow"]
	if slow.Spec().Timeout != 50*time.Millisecond {
		t.Errorf("Spec.Timeout = %v, want 50ms", slow.Spec().Timeout)
	}
	start := time.Now()
	res, err := slow.Execute(context.Background(), nil)
	if err != nil || res.Success || res.Error.Kind != tools.KindTimeout {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v; the 50ms timeout did not apply", d)
	}
	if !strings.Contains(res.Error.Message, "within 50ms") {
		t.Errorf("message = %q", res.Error.Message)
	}
	// A cancelled caller is reported as cancelled, not as a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ = slow.Execute(ctx, nil)
	if res.Error == nil || res.Error.Kind != tools.KindCancelled {
		t.Errorf("cancelled: %+v", res)
	}
}

func TestMissingKeyNamesEnvVar(t *testing.T) {
	srv, requests := newServer(t)
	ts := loadServerTools(t, srv)
	os.Unsetenv("TACT_TEST_NOTES_KEY")
	res, err := ts["create_note"].Execute(context.Background(), json.RawMessage(`{"title":"x"}`))
	if err != nil || res.Success || res.Error.Kind != tools.KindExecutionFailed ||
		!strings.Contains(res.Error.Message, "set the environment variable TACT_TEST_NOTES_KEY") {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if len(requests()) != 0 {
		t.Error("no request should be sent without a key")
	}
}

func TestInvalidArguments(t *testing.T) {
	srv, _ := newServer(t)
	ts := loadServerTools(t, srv)
	res, _ := ts["broken"].Execute(context.Background(), json.RawMessage(`[1,2]`))
	if res.Success || res.Error.Kind != tools.KindInvalidParameters {
		t.Errorf("Execute([1,2]) = %+v", res)
	}
}

func TestLoadMixedFolderReportsLinesAndKeepsGoodTools(t *testing.T) {
	var logBuf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logBuf, nil))
	ts, errs := Load([]string{"testdata/mixed", "testdata/does-not-exist"}, logger)
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Spec().Name)
	}
	if want := []string{"good_one", "good_two"}; !reflect.DeepEqual(names, want) {
		t.Errorf("loaded %v, want %v", names, want)
	}
	want := []string{
		"b_syntax.yaml:4:",
		"c_list.yml:9: method \"FETCH\" is not one of GET",
		"c_list.yml:13: timeout \"10\" is not a duration",
		"d_fields.yaml:3: unknown field \"url\"",
		"e_auth.yaml:4: auth type api_key needs env",
		"f_dup.yaml:1: tool \"good_one\" is already defined at testdata/mixed/a_good.yaml:1",
	}
	if len(errs) != len(want) {
		t.Errorf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
	all := errors.Join(errs...).Error()
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("errors lack %q:\n%s", w, all)
		}
	}
	var fe *FileError
	if !errors.As(errs[0], &fe) || fe.Line == 0 {
		t.Errorf("errors[0] = %#v, want a *FileError with a line", errs[0])
	}
	if !strings.Contains(logBuf.String(), "HTTP tool skipped") {
		t.Errorf("bad files were not logged:\n%s", logBuf.String())
	}
}

func TestExampleFileParses(t *testing.T) {
	data, err := os.ReadFile("testdata/examples/get_weather.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ts, errs := ParseFile("get_weather.yaml", data, nil)
	if len(errs) > 0 || len(ts) != 1 {
		t.Fatalf("ParseFile: %v", errs)
	}
	s := ts[0].Spec()
	if s.Name != "get_weather" || s.Timeout != 10*time.Second || !s.Annotations.ReadOnly ||
		!strings.Contains(string(s.Parameters), `"enum":["metric","imperial"]`) {
		t.Errorf("spec = %+v params %s", s, s.Parameters)
	}
	if d := ts[0].Definition(); d.Auth.Header != "X-API-Key" || d.Auth.Env != "WEATHER_API_KEY" || d.Method != "POST" {
		t.Errorf("definition = %+v", d)
	}
}

func TestNewToolValidation(t *testing.T) {
	base := Definition{Name: "x", Description: "d", APIURL: "https://example.com"}
	cases := []struct {
		edit  func(*Definition)
		field string
	}{
		{func(d *Definition) { d.Name = "" }, "name"},
		{func(d *Definition) { d.Name = "has space" }, "name"},
		{func(d *Definition) { d.Description = " " }, "description"},
		{func(d *Definition) { d.APIURL = "ftp://example.com" }, "api_url"},
		{func(d *Definition) { d.Auth = Auth{Type: "oauth", Env: "E"} }, "auth"},
		{func(d *Definition) { d.Parameters = json.RawMessage(`{"type":"string"}`) }, "parameters"},
	}
	for _, c := range cases {
		d := base
		c.edit(&d)
		_, err := NewTool(d, nil)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("NewTool(%+v) = %v, want a %s error", d, err, c.field)
		}
	}
	tl, err := NewTool(base, nil)
	if err != nil || tl.Definition().Method != "GET" || string(tl.Spec().Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("defaults: %+v %v", tl, err)
	}
}

func TestProviderRereadsFolder(t *testing.T) {
	dir := t.TempDir()
	p := NewProvider([]string{dir}, nil, nil)
	if ts, err := p.Tools(context.Background()); len(ts) != 0 || err != nil {
		t.Fatalf("empty folder: %v %v", ts, err)
	}
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\ndescription: A\napi_url: https://example.com\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("name: [\n"), 0o644)
	ts, err := p.Tools(context.Background())
	if len(ts) != 1 || err == nil || !strings.Contains(err.Error(), "b.yaml:") {
		t.Errorf("after adding files: %d tools, err %v", len(ts), err)
	}
	if p.Name() != "native" {
		t.Errorf("Name = %q", p.Name())
	}
}
