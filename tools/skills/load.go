// Package skills loads "skills" — folders with a SKILL.md and a script — and
// runs them as tact tools inside a Landlock sandbox.
//
// A skill folder holds a SKILL.md whose YAML front matter declares the tool:
//
//	---
//	name: word_count
//	description: Count the lines, words and characters of a text
//	parameters:
//	  type: object
//	  properties:
//	    text: {type: string}
//	  required: [text]
//	run: bash count.sh
//	timeout: 10s        # optional
//	read_only: true     # optional; without it the skill is marked destructive
//	---
//	# word_count
//	Free-form documentation for people.
//
// Calling the tool runs `bash -c RUN` in the skill folder with the arguments
// as compact JSON on stdin. The process is sandboxed (see [SandboxMain]):
// it may read the system folders and its own folder, write only a fresh
// temporary folder (also its TMPDIR and HOME), and open no TCP connections.
// Its environment is scrubbed of secrets, its output is capped and it is
// killed, with its whole process group, when it runs too long.
package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"tact/tools"
)

// FileName is the name of the file that makes a folder a skill.
const FileName = "SKILL.md"

// LoadError is a problem with one SKILL.md: the skill is skipped.
type LoadError struct {
	// File is the SKILL.md (or folder) the problem is in.
	File string
	// Line is the 1-based line in File, or 0 when the problem has no line.
	Line int
	// Err is the problem itself.
	Err error
}

// Error formats the problem as "file:line: message".
func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the underlying problem.
func (e *LoadError) Unwrap() error { return e.Err }

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Load scans the direct subfolders of every folder in dirs for a SKILL.md and
// returns one tool per valid skill, in folder order and then by subfolder name.
// Folders without SKILL.md are ignored. A bad SKILL.md, a second skill with a
// name already loaded, or a folder in dirs that cannot be read is reported as a
// *LoadError and skipped; a missing folder in dirs wraps fs.ErrNotExist, so a
// caller scanning default folders can ignore it with errors.Is.
func Load(dirs []string, opts Options) ([]tools.Tool, []error) {
	opts = opts.withDefaults()
	var (
		out  []tools.Tool
		errs []error
		seen = map[string]string{} // name → file
	)
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, &LoadError{File: dir, Err: fmt.Errorf("cannot read the skills folder (check tool_dirs.skills in the config): %w", err)})
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			file := filepath.Join(sub, FileName)
			data, err := os.ReadFile(file)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				errs = append(errs, &LoadError{File: file, Err: fmt.Errorf("cannot read: %w", err)})
				continue
			}
			s, err := parse(file, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if prev, dup := seen[s.spec.Name]; dup {
				errs = append(errs, &LoadError{File: file, Err: fmt.Errorf("skill name %q is already used by %s; rename one of them", s.spec.Name, prev)})
				continue
			}
			seen[s.spec.Name] = file
			abs, err := filepath.Abs(sub)
			if err != nil {
				errs = append(errs, &LoadError{File: file, Err: fmt.Errorf("cannot resolve the folder: %w", err)})
				continue
			}
			s.dir = abs
			s.opts = opts
			out = append(out, s)
		}
	}
	return out, errs
}

// split separates the front matter from the body. It returns the front
// matter text, the line in the file where the front matter starts, and the body.
func split(data []byte) (front string, firstLine int, body string, err error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(text, "---\n") {
		return "", 0, "", errors.New(`SKILL.md must start with a "---" line opening the YAML front matter`)
	}
	rest := text[len("---\n"):]
	lines := strings.SplitAfter(rest, "\n")
	n := 0
	for _, l := range lines {
		t := strings.TrimRight(l, "\n")
		if t == "---" || t == "..." {
			return rest[:n], 2, rest[n+len(l):], nil
		}
		n += len(l)
	}
	return "", 0, "", errors.New(`the YAML front matter is not closed by a "---" line`)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parse reads one SKILL.md into a skill (without dir and options).
func parse(file string, data []byte) (*Skill, error) {
	fail := func(line int, format string, a ...any) error {
		return &LoadError{File: file, Line: line, Err: fmt.Errorf(format, a...)}
	}
	front, first, body, err := split(data)
	if err != nil {
		return nil, fail(1, "%w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		line := first
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = first + n - 1
			msg = strings.TrimSpace(strings.Replace(msg, m[0]+":", "", 1))
		}
		return nil, fail(line, "invalid YAML front matter: %s", msg)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fail(first, "the front matter must be a YAML mapping with name, description, parameters and run")
	}
	m := doc.Content[0]
	at := func(n *yaml.Node) int { return first + n.Line - 1 }
	s := &Skill{doc: strings.TrimSpace(body)}
	s.spec.Source = "skill"
	var params *yaml.Node
	readOnly := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		str := func(dst *string) error {
			if v.Kind != yaml.ScalarNode {
				return fail(at(v), "%s must be a text", k.Value)
			}
			*dst = strings.TrimSpace(v.Value)
			return nil
		}
		var err error
		switch k.Value {
		case "name":
			err = str(&s.spec.Name)
			if err == nil && !namePattern.MatchString(s.spec.Name) {
				err = fail(at(v), "name %q must be 1-64 letters, digits, '_' or '-'", s.spec.Name)
			}
		case "description":
			err = str(&s.spec.Description)
		case "run":
			err = str(&s.run)
		case "timeout":
			var t string
			if err = str(&t); err == nil {
				s.spec.Timeout, err = parseTimeout(t)
				if err != nil {
					err = fail(at(v), "%w", err)
				}
			}
		case "read_only":
			if v.Decode(&readOnly) != nil {
				err = fail(at(v), "read_only must be true or false")
			}
		case "parameters":
			params = v
		default:
			err = fail(at(k), "unknown key %q (known: name, description, parameters, run, timeout, read_only)", k.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, req := range []struct{ key, val string }{{"name", s.spec.Name}, {"description", s.spec.Description}, {"run", s.run}} {
		if req.val == "" {
			return nil, fail(first, "the front matter needs a %q", req.key)
		}
	}
	if params == nil {
		s.spec.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	} else {
		raw, err := schemaJSON(params)
		if err != nil {
			return nil, fail(at(params), "parameters: %w", err)
		}
		s.spec.Parameters = raw
	}
	s.spec.Annotations = tools.Annotations{ReadOnly: readOnly, Destructive: !readOnly}
	return s, nil
}

// parseTimeout accepts a Go duration ("10s", "2m") or a number of seconds.
func parseTimeout(t string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(t, 64); err == nil {
		t = strconv.FormatFloat(n, 'f', -1, 64) + "s"
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("timeout %q must be a positive duration such as 10s or 2m", t)
	}
	return d, nil
}

// schemaJSON turns the YAML parameters into a JSON object schema and checks
// that it compiles.
func schemaJSON(n *yaml.Node) (json.RawMessage, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("must be a JSON Schema object such as {type: object, properties: {...}}")
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("keys must be text")
	}
	if t, has := obj["type"]; !has {
		obj["type"] = "object"
	} else if t != "object" {
		return nil, fmt.Errorf(`type must be "object", not %v`, t)
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot be written as JSON: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("skill.json", doc); err != nil {
		return nil, err
	}
	if _, err := c.Compile("skill.json"); err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %w", err)
	}
	return raw, nil
}
