// Package redact keeps secrets (API keys, tokens, passwords) out of logs, the
// audit file and saved sessions. It replaces known secret values wherever they
// appear in text, and hides the values of JSON object keys whose names look
// secret (api_key, token, password, …).
package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Placeholder is the text every hidden secret is replaced with.
const Placeholder = "[redacted]"

// MinSecretLen is the shortest value treated as a secret. Shorter values
// (such as "1" or "true") would redact ordinary text everywhere.
const MinSecretLen = 6

// secretNameParts are the upper-case fragments of environment variable names
// whose values are secrets.
var secretNameParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
	"CREDENTIAL", "CRED", "COOKIE", "PRIVATE", "DSN", "SSH_AUTH_SOCK"}

// secretNameWords are fragments that count only as a whole word of the name
// (between underscores or at its ends): GITHUB_PAT and NPM_AUTH, but not
// GIT_AUTHOR_NAME or PATH.
var secretNameWords = []string{"PAT", "AUTH", "PW", "PWD"}

// credentialURL matches a URL with a password in it (postgres://u:p@host).
var credentialURL = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`)

// secretKeyParts are the lower-case fragments of JSON object keys whose values
// are hidden by RedactArgs.
var secretKeyParts = []string{"key", "token", "secret", "password", "authorization"}

// Redactor replaces a fixed set of secret values. Build it once with New and
// reuse it; it is safe for concurrent use. A nil *Redactor changes nothing.
type Redactor struct {
	secrets  []string
	replacer *strings.Replacer
}

// New returns a Redactor for the given secret values. Values shorter than
// MinSecretLen and duplicates are ignored; longer values win over values
// they contain.
func New(secrets []string) *Redactor {
	var kept []string
	for _, s := range secrets {
		if len(s) >= MinSecretLen && !slices.Contains(kept, s) {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return &Redactor{}
	}
	// strings.Replacer prefers earlier pairs at the same position, so the
	// longest secret goes first: "abcdef123" must not leave "123" behind
	// because "abcdef" is also a secret.
	slices.SortStableFunc(kept, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(kept))
	for _, s := range kept {
		pairs = append(pairs, s, Placeholder)
	}
	return &Redactor{secrets: kept, replacer: strings.NewReplacer(pairs...)}
}

// Empty reports whether r redacts no values.
func (r *Redactor) Empty() bool { return r == nil || r.replacer == nil }

// String returns s with every occurrence of every secret replaced by
// Placeholder.
func (r *Redactor) String(s string) string {
	if r.Empty() || s == "" {
		return s
	}
	return r.replacer.Replace(s)
}

// Contains reports whether s holds any of r's secrets.
func (r *Redactor) Contains(s string) bool {
	if r.Empty() {
		return false
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			return true
		}
	}
	return false
}

// JSON returns raw with secret-named keys hidden (as RedactArgs does) and
// secret values replaced inside every string, key or value. Values are
// redacted after decoding, so a secret that JSON escapes (quotes, <, >, &,
// non-ASCII) is still found. Text that is not valid JSON is returned as a
// JSON string holding the redacted text, so the result is always valid JSON
// (or nil when raw is empty).
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	v, ok := decode(raw)
	if !ok {
		out, _ := json.Marshal(r.String(string(raw)))
		return out
	}
	out, err := marshal(walk(v, r))
	if err != nil {
		out, _ = json.Marshal(r.String(string(raw)))
	}
	return out
}

// Redact returns s with every occurrence of each secret value (of at least
// MinSecretLen bytes) replaced by "[redacted]". Callers that redact often
// should build a Redactor once with New.
func Redact(s string, secrets []string) string {
	return New(secrets).String(s)
}

// ScrubEnv returns env ("NAME=value" entries) without the variables whose
// names or values look secret (IsSecretEnv), except those named exactly in pass.
// The shell tool and skills run with it.
func ScrubEnv(env []string, pass []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !IsSecretEnv(name, value) || slices.Contains(pass, name) {
			out = append(out, kv)
		}
	}
	return out
}

// IsSecretEnvName reports whether an environment variable's value is treated
// as a secret by its name: it contains KEY, TOKEN, SECRET, PASSWORD, PASSWD,
// PASSPHRASE, CREDENTIAL, CRED, COOKIE, PRIVATE or DSN, or has PAT, AUTH, PW
// or PWD as a word (GITHUB_PAT, NPM_AUTH; not PWD itself, the working
// folder), in any case.
func IsSecretEnvName(name string) bool {
	upper := strings.ToUpper(name)
	if upper == "OPENAI_API_KEY" {
		return true
	}
	for _, part := range secretNameParts {
		if strings.Contains(upper, part) {
			return true
		}
	}
	if upper == "PWD" || upper == "OLDPWD" {
		return false
	}
	for _, word := range strings.Split(upper, "_") {
		if slices.Contains(secretNameWords, word) {
			return true
		}
	}
	return false
}

// IsSecretEnv reports whether a variable is secret by its name or because
// its value is a URL with a password in it.
func IsSecretEnv(name, value string) bool {
	return IsSecretEnvName(name) || credentialURL.MatchString(value)
}

// SecretValuesFromEnv returns the values of the variables in env (in
// os.Environ's NAME=value form) whose names mark them as secrets (see
// IsSecretEnvName), skipping values shorter than MinSecretLen and duplicates.
func SecretValuesFromEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !IsSecretEnv(name, value) || len(value) < MinSecretLen {
			continue
		}
		if !slices.Contains(out, value) {
			out = append(out, value)
		}
	}
	return out
}

// IsSecretKey reports whether a JSON object key names a secret: it contains
// key, token, secret, password or authorization, in any case. The match is
// deliberately broad ("max_tokens" and "keyword" count too): hiding a harmless
// value costs less than showing a key.
func IsSecretKey(name string) bool {
	lower := strings.ToLower(name)
	for _, part := range secretKeyParts {
		if strings.Contains(lower, part) {
			return true
		}
	}
	return false
}

// RedactArgs returns args with the value of every object key that IsSecretKey
// replaced by "[redacted]", at any depth (inside nested objects and arrays).
// Null values are kept. Input that is not valid JSON is returned unchanged;
// use Redactor.JSON to also hide secret values and always get valid JSON.
func RedactArgs(args json.RawMessage) json.RawMessage {
	v, ok := decode(args)
	if !ok {
		return args
	}
	out, err := marshal(walk(v, nil))
	if err != nil {
		return args
	}
	return out
}

// decode parses raw keeping numbers exact.
func decode(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	// Trailing data after the value means this is not one JSON value.
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// marshal encodes v without HTML escaping, so redacted arguments read like
// the original ones.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// walk hides secret-named keys and, when r is not nil, secret values in
// strings.
func walk(v any, r *Redactor) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			key := r.String(k)
			if IsSecretKey(k) && val != nil {
				out[key] = Placeholder
				continue
			}
			out[key] = walk(val, r)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = walk(val, r)
		}
		return out
	case string:
		return r.String(t)
	default:
		return v
	}
}
