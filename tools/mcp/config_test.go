package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadDir(t *testing.T) {
	cfgs, errs := LoadDir("testdata/servers")

	names := []string{}
	for _, c := range cfgs {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "everything,remote" {
		t.Fatalf("servers = %v, want everything,remote (off is disabled, broken files skipped)", names)
	}
	ev := cfgs[0]
	if ev.Command != "npx" || len(ev.Args) != 2 || ev.Args[1] != "@modelcontextprotocol/server-everything" {
		t.Errorf("everything command = %q %q", ev.Command, ev.Args)
	}
	if len(ev.Env) != 1 || ev.Env[0] != (EnvVar{Name: "DEBUG", Value: "0"}) {
		t.Errorf("everything env = %+v", ev.Env)
	}
	if ev.Timeout != 45*time.Second {
		t.Errorf("everything timeout = %v, want 45s", ev.Timeout)
	}
	if ev.Source != filepath.Join("testdata/servers", "everything.yaml") {
		t.Errorf("source = %q", ev.Source)
	}
	rm := cfgs[1]
	if !rm.Remote() || rm.URL != "https://mcp.example.com/mcp" || rm.APIKeyEnv != "EXAMPLE_MCP_KEY" || rm.Header != "X-API-Key" {
		t.Errorf("remote = %+v", rm)
	}

	want := map[string]string{
		"typo.yaml":        "typo.yaml: line 2: field comand not found",
		"bad_timeout.yaml": "bad_timeout.yaml:3: timeout \"soon\"",
		"both.yaml":        "both.yaml:3: MCP server \"both\" has both command and url",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
	for _, err := range errs {
		found := false
		for file, frag := range want {
			if strings.Contains(err.Error(), file) {
				found = true
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error for %s = %q, want it to contain %q", file, err, frag)
				}
			}
		}
		if !found {
			t.Errorf("unexpected error %q", err)
		}
	}
}

func TestLoadDirMissingAndDuplicate(t *testing.T) {
	cfgs, errs := LoadDir(filepath.Join(t.TempDir(), "nope"))
	if cfgs != nil || errs != nil {
		t.Fatalf("missing dir: %v %v", cfgs, errs)
	}

	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", "name: same\ncommand: x\n")
	write("b.yml", "name: same\ncommand: y\n")
	write("c.yaml", "name: bad name!\ncommand: y\n")
	cfgs, errs = LoadDir(dir)
	if len(cfgs) != 1 || cfgs[0].Command != "x" {
		t.Fatalf("cfgs = %+v, want only a.yaml's server", cfgs)
	}
	if len(errs) != 2 {
		t.Fatalf("errs = %v, want duplicate and bad name", errs)
	}
	if !strings.Contains(errs[0].Error(), "b.yml") || !strings.Contains(errs[0].Error(), "a.yaml") {
		t.Errorf("duplicate error should name both files: %v", errs[0])
	}
	if !strings.Contains(errs[1].Error(), "c.yaml:1") {
		t.Errorf("bad name error should point at c.yaml:1: %v", errs[1])
	}
}

func TestLoadMCPJSON(t *testing.T) {
	cfgs, err := LoadMCPJSON("testdata/mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != 2 || cfgs[0].Name != "fs" || cfgs[1].Name != "remote" {
		t.Fatalf("cfgs = %+v, want fs and remote (old is disabled)", cfgs)
	}
	fs := cfgs[0]
	if fs.Command != "npx" || len(fs.Args) != 3 || fs.Args[2] != "/tmp" {
		t.Errorf("fs = %+v", fs)
	}
	if len(fs.Env) != 2 || fs.Env[0] != (EnvVar{"A", "1"}) || fs.Env[1] != (EnvVar{"B", "2"}) {
		t.Errorf("fs env = %+v, want A=1 B=2 in name order", fs.Env)
	}
	rm := cfgs[1]
	if rm.URL != "https://mcp.example.com/mcp" || len(rm.Headers) != 1 || rm.Headers[0].Value != "Bearer ${EXAMPLE_TOKEN}" {
		t.Errorf("remote = %+v", rm)
	}

	_, err = LoadMCPJSON("testdata/bad.json")
	if err == nil || !strings.Contains(err.Error(), "bad.json:3") {
		t.Errorf("bad.json error = %v, want it to point at line 3", err)
	}
	_, err = LoadMCPJSON("testdata/missing.json")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file error = %v, want ErrNotExist", err)
	}
}

func TestEverythingFixtureLoads(t *testing.T) {
	cfgs, errs := LoadDir("../../test/mcp-everything/mcp")
	if len(errs) != 0 || len(cfgs) != 1 || cfgs[0].Name != "everything" || cfgs[0].Command != "mcp-server-everything" {
		t.Fatalf("fixture = %+v, %v", cfgs, errs)
	}
}
