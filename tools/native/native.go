// Package native provides HTTP API tools ("native" tools in seed 003): a
// YAML file describes an endpoint, and calling the tool sends the model's
// arguments to it and returns the response body.
//
//	name: get_weather
//	description: Current weather for a city
//	api_url: https://api.example.com/weather
//	method: POST          # POST/PUT/PATCH send a JSON body; GET/DELETE query parameters
//	headers: [{name: Accept-Language, value: en}]
//	auth: {type: api_key, header: X-API-Key, env: WEATHER_API_KEY}  # or bearer, or none
//	timeout: 10s
//	read_only: true       # default: true for GET, false otherwise
//	parameters: {type: object, properties: {city: {type: string}}, required: [city]}
//
// The API key is read from the environment at each call and is never logged
// or shown in results.
package native

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"tact/tools"
)

// Source is the Spec.Source of every HTTP API tool.
const Source = "native"

// Auth types.
const (
	AuthNone   = "none"
	AuthAPIKey = "api_key"
	AuthBearer = "bearer"
)

// DefaultAPIKeyHeader is the header an api_key auth uses when none is given.
const DefaultAPIKeyHeader = "X-API-Key"

// maxBody bounds how much of a response is read; the Executor cuts the
// output further to its own limit.
const maxBody = 1 << 20

// errorBodyBytes is how much of a failed response's body the error shows.
const errorBodyBytes = 500

// Header is one extra request header.
type Header struct {
	Name  string `yaml:"name" json:"name"`
	Value string `yaml:"value" json:"value"`
}

// Auth says how the tool authenticates.
type Auth struct {
	// Type is "none" (default), "api_key" or "bearer".
	Type string `yaml:"type" json:"type"`
	// Header carries the key for api_key auth (default X-API-Key).
	Header string `yaml:"header" json:"header"`
	// Env names the environment variable holding the key.
	Env string `yaml:"env" json:"env"`
}

// Definition is one HTTP API tool as written in a YAML file.
type Definition struct {
	// Name is the tool name the model calls.
	Name string
	// Description tells the model what the tool does.
	Description string
	// APIURL is the endpoint (http or https).
	APIURL string
	// Method is GET, POST, PUT, PATCH or DELETE (default GET).
	Method string
	// Headers are sent with every request.
	Headers []Header
	// Auth says where the key goes and which environment variable holds it.
	Auth Auth
	// Timeout bounds one call (becomes Spec.Timeout); 0 leaves the Executor's default.
	Timeout time.Duration
	// Parameters is the JSON Schema of the arguments; empty means an object
	// with no declared properties.
	Parameters json.RawMessage
	// ReadOnly overrides the default (true for GET, false otherwise) when set.
	ReadOnly *bool
}

// Tool is an HTTP API tool.
type Tool struct {
	def    Definition
	spec   tools.Spec
	client *http.Client
	file   string // where the definition was read, for messages
	line   int
}

// NewTool checks def and returns its tool. A nil client means a fresh
// http.Client without its own timeout (the call's context bounds it).
func NewTool(def Definition, client *http.Client) (*Tool, error) {
	if err := normalize(&def); err != nil {
		return nil, err
	}
	if client == nil {
		client = &http.Client{}
	}
	readOnly := def.Method == http.MethodGet
	if def.ReadOnly != nil {
		readOnly = *def.ReadOnly
	}
	spec := tools.Spec{
		Name:        def.Name,
		Description: def.Description,
		Parameters:  def.Parameters,
		Annotations: tools.Annotations{ReadOnly: readOnly, Destructive: !readOnly},
		Source:      Source,
		Timeout:     def.Timeout,
	}
	return &Tool{def: def, spec: spec, client: client}, nil
}

// normalize fills defaults and validates def.
func normalize(def *Definition) error {
	def.Name = strings.TrimSpace(def.Name)
	if def.Name == "" {
		return fieldErr("name", "name is missing")
	}
	for _, r := range def.Name {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fieldErr("name", "name %q may only hold letters, digits, '_', '-' and '.'", def.Name)
		}
	}
	if strings.TrimSpace(def.Description) == "" {
		return fieldErr("description", "tool %q has no description; the model needs one to know when to call it", def.Name)
	}
	u, err := url.Parse(def.APIURL)
	if def.APIURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fieldErr("api_url", "api_url %q must be an http:// or https:// URL", def.APIURL)
	}
	def.Method = strings.ToUpper(strings.TrimSpace(def.Method))
	switch def.Method {
	case "":
		def.Method = http.MethodGet
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return fieldErr("method", "method %q is not one of GET, POST, PUT, PATCH, DELETE", def.Method)
	}
	switch def.Auth.Type = strings.ToLower(strings.TrimSpace(def.Auth.Type)); def.Auth.Type {
	case "", AuthNone:
		def.Auth.Type = AuthNone
	case AuthAPIKey, AuthBearer:
		if def.Auth.Env == "" {
			return fieldErr("auth", "auth type %s needs env: the environment variable that holds the key", def.Auth.Type)
		}
		if def.Auth.Type == AuthAPIKey && def.Auth.Header == "" {
			def.Auth.Header = DefaultAPIKeyHeader
		}
	default:
		return fieldErr("auth", "auth type %q is not one of api_key, bearer, none", def.Auth.Type)
	}
	for _, h := range def.Headers {
		if h.Name == "" {
			return fieldErr("headers", "a header has no name")
		}
	}
	if def.Timeout < 0 {
		return fieldErr("timeout", "timeout %s is negative", def.Timeout)
	}
	if len(bytes.TrimSpace(def.Parameters)) == 0 {
		def.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	} else {
		var schema map[string]any
		if err := json.Unmarshal(def.Parameters, &schema); err != nil {
			return fieldErr("parameters", "parameters must be a JSON Schema object: %v", err)
		}
		if t, ok := schema["type"]; ok && t != "object" {
			return fieldErr("parameters", "parameters must have type: object, not %v", t)
		}
	}
	return nil
}

// FieldError is a problem with one field of a Definition.
type FieldError struct {
	// Field is the YAML key at fault ("api_url", "auth", …).
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error returns Msg.
func (e *FieldError) Error() string { return e.Msg }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Spec implements tools.Tool.
func (t *Tool) Spec() tools.Spec { return t.spec }

// Origin is "file:line" of the definition, or "" for a tool made in code.
func (t *Tool) Origin() string {
	if t.file == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", t.file, t.line)
}

// Definition returns the checked definition (defaults filled in).
func (t *Tool) Definition() Definition { return t.def }

// Execute sends the arguments to the API and returns the response body,
// pretty-printed when it is JSON. Failures the model can react to (HTTP
// errors, timeouts, a missing key) are failed Results, not Go errors.
func (t *Tool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	params := map[string]any{}
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&params); err != nil {
			return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("arguments of %s must be a JSON object: %v", t.def.Name, err)), nil
		}
	}
	if t.def.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.def.Timeout)
		defer cancel()
	}

	req, failure := t.newRequest(ctx, params)
	if failure != nil {
		return *failure, nil
	}
	where := displayURL(req.URL)
	resp, err := t.client.Do(req)
	if err != nil {
		return t.transportFailure(ctx, err, where), nil
	}
	defer resp.Body.Close()

	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return t.transportFailure(ctx, err, where), nil
		}
		return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("reading the response from %s: %v", where, unwrapURLError(err))), nil
	}
	cut := len(body) > maxBody
	if cut {
		body = body[:maxBody]
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		start := body
		if len(start) > errorBodyBytes {
			start = start[:errorBodyBytes]
		}
		return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("HTTP %s from %s: %s",
			resp.Status, where, strings.TrimSpace(string(start)))), nil
	}
	out := format(body, resp.Header.Get("Content-Type"))
	if out == "" {
		out = "HTTP " + resp.Status + " (empty body)"
	}
	if cut {
		out += fmt.Sprintf("\n[response cut at %d bytes]", maxBody)
	}
	return tools.OK(out), nil
}

// newRequest builds the request, or returns the failure to report.
func (t *Tool) newRequest(ctx context.Context, params map[string]any) (*http.Request, *tools.Result) {
	u, err := url.Parse(t.def.APIURL)
	if err != nil { // checked in NewTool; kept for safety
		r := tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("api_url of %s is invalid: %v", t.def.Name, err))
		return nil, &r
	}
	var body io.Reader
	switch t.def.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		data, err := json.Marshal(params)
		if err != nil {
			r := tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("encoding the arguments of %s: %v", t.def.Name, err))
			return nil, &r
		}
		body = bytes.NewReader(data)
	default:
		q := u.Query()
		keys := make([]string, 0, len(params))
		for k := range params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range queryValues(params[k]) {
				q.Add(k, v)
			}
		}
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, t.def.Method, u.String(), body)
	if err != nil {
		r := tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("building the request of %s: %v", t.def.Name, err))
		return nil, &r
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.8")
	req.Header.Set("User-Agent", "tact")
	for _, h := range t.def.Headers {
		req.Header.Set(h.Name, h.Value)
	}
	if t.def.Auth.Type != AuthNone {
		key, ok := os.LookupEnv(t.def.Auth.Env)
		if !ok || strings.TrimSpace(key) == "" {
			r := tools.Fail(tools.KindExecutionFailed, fmt.Sprintf(
				"tool %s needs an API key: set the environment variable %s and start tact again",
				t.def.Name, t.def.Auth.Env))
			return nil, &r
		}
		if t.def.Auth.Type == AuthBearer {
			req.Header.Set("Authorization", "Bearer "+key)
		} else {
			req.Header.Set(t.def.Auth.Header, key)
		}
	}
	return req, nil
}

// transportFailure classifies a failed round trip.
func (t *Tool) transportFailure(ctx context.Context, err error, where string) tools.Result {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("no complete response from %s in time", where)
		if t.def.Timeout > 0 {
			msg = fmt.Sprintf("no complete response from %s within %s (timeout in the tool file)", where, t.def.Timeout)
		}
		return tools.Fail(tools.KindTimeout, msg)
	case errors.Is(ctx.Err(), context.Canceled):
		return tools.Fail(tools.KindCancelled, fmt.Sprintf("request to %s cancelled", where))
	}
	return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("request to %s failed: %v", where, unwrapURLError(err)))
}

// unwrapURLError drops the *url.Error wrapper, whose text repeats the full
// URL with the query (the arguments).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// displayURL is the URL without query or user info, for messages.
func displayURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.User = "", "", nil
	return c.String()
}

// queryValues turns one argument into query values: scalars as text,
// arrays as repeated values, objects as JSON.
func queryValues(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case json.Number:
		return []string{x.String()}
	case bool:
		return []string{strconv.FormatBool(x)}
	case []any:
		var out []string
		for _, e := range x {
			if s := queryValues(e); len(s) > 0 {
				if _, nested := e.([]any); nested {
					data, _ := json.Marshal(e)
					out = append(out, string(data))
					continue
				}
				out = append(out, s...)
			}
		}
		return out
	default:
		data, _ := json.Marshal(x)
		return []string{string(data)}
	}
}

// format pretty-prints JSON bodies and returns other bodies as text.
func format(body []byte, contentType string) string {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return ""
	}
	looksJSON := strings.Contains(contentType, "json") || trimmed[0] == '{' || trimmed[0] == '['
	if looksJSON && json.Valid(trimmed) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, trimmed, "", "  "); err == nil {
			return buf.String()
		}
	}
	return string(trimmed)
}
