package skills

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLoadGoodSkill(t *testing.T) {
	got, errs := Load([]string{"testdata/load"}, Options{})
	if len(got) != 1 {
		t.Fatalf("loaded %d skills, want only echo_args; errors: %v", len(got), errs)
	}
	s := got[0].(*Skill)
	spec := s.Spec()
	if spec.Name != "echo_args" || spec.Description != "Echoes its arguments." || spec.Source != "skill" {
		t.Errorf("spec = %+v", spec)
	}
	if spec.Timeout != 5*time.Second {
		t.Errorf("timeout = %v, want 5s", spec.Timeout)
	}
	if !spec.Annotations.Destructive || spec.Annotations.ReadOnly {
		t.Errorf("annotations = %+v, want destructive (no read_only in front matter)", spec.Annotations)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatalf("parameters are not JSON: %v\n%s", err, spec.Parameters)
	}
	if schema.Type != "object" || len(schema.Properties) != 2 || len(schema.Required) != 1 || schema.Required[0] != "msg" {
		t.Errorf("parameters = %s", spec.Parameters)
	}
	if !strings.HasPrefix(s.Doc(), "# echo_args") || s.Command() != "cat" {
		t.Errorf("doc = %q, command = %q", s.Doc(), s.Command())
	}
	if !filepath.IsAbs(s.Dir()) || filepath.Base(s.Dir()) != "a_good" {
		t.Errorf("dir = %q, want absolute path of a_good", s.Dir())
	}
}

func TestLoadReportsBadSkillsWithFileAndLine(t *testing.T) {
	_, errs := Load([]string{"testdata/load"}, Options{})
	want := map[string]struct {
		line int
		text string
	}{
		"bad_key":     {5, `unknown key "colour"`},
		"bad_params":  {6, `type must be "object"`},
		"bad_timeout": {5, `timeout "soon"`},
		"bad_yaml":    {4, "invalid YAML"},
		"no_front":    {1, `must start with a "---"`},
		"no_run":      {2, `needs a "run"`},
		"z_dup":       {0, "already used by"},
	}
	seen := map[string]bool{}
	for _, err := range errs {
		var le *LoadError
		if !errors.As(err, &le) {
			t.Errorf("error %v is not a *LoadError", err)
			continue
		}
		folder := filepath.Base(filepath.Dir(le.File))
		w, ok := want[folder]
		if !ok {
			t.Errorf("unexpected error: %v", err)
			continue
		}
		seen[folder] = true
		if filepath.Base(le.File) != FileName {
			t.Errorf("%s: file = %q, want the SKILL.md", folder, le.File)
		}
		if le.Line != w.line {
			t.Errorf("%s: line = %d, want %d (%v)", folder, le.Line, w.line, err)
		}
		if !strings.Contains(err.Error(), w.text) {
			t.Errorf("%s: error %q does not contain %q", folder, err, w.text)
		}
		if w.line > 0 && !strings.Contains(err.Error(), le.File+":"+strconv.Itoa(w.line)+":") {
			t.Errorf("%s: error %q does not start with file:line", folder, err)
		}
	}
	for folder := range want {
		if !seen[folder] {
			t.Errorf("no error reported for %s", folder)
		}
	}
}

func TestLoadMissingDir(t *testing.T) {
	got, errs := Load([]string{filepath.Join(t.TempDir(), "nope")}, Options{})
	if len(got) != 0 || len(errs) != 1 || !errors.Is(errs[0], fs.ErrNotExist) {
		t.Fatalf("got %v, errs %v; want one fs.ErrNotExist error", got, errs)
	}
}

func TestLoadShippedExample(t *testing.T) {
	got, errs := Load([]string{"."}, Options{})
	if len(errs) != 0 {
		t.Fatalf("errors loading the shipped skills: %v", errs)
	}
	if len(got) != 1 || got[0].Spec().Name != "word_count" {
		t.Fatalf("got %d skills, want word_count", len(got))
	}
	if a := got[0].Spec().Annotations; !a.ReadOnly || a.Destructive {
		t.Errorf("word_count annotations = %+v, want read-only", a)
	}
}

func TestScrubEnv(t *testing.T) {
	env := []string{"PATH=/usr/bin", "FOO_API_KEY=a", "gh_token=b", "DB_PASSWORD=c", "MY_SECRET=d", "KEEP_TOKEN=e", "HOME=/root", "LANG=C"}
	got := strings.Join(scrubEnv(env, []string{"KEEP_TOKEN"}), " ")
	if got != "PATH=/usr/bin KEEP_TOKEN=e LANG=C" {
		t.Errorf("scrubEnv = %q", got)
	}
}
