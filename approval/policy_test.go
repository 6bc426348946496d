package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tact/agent"
	"tact/tools"
)

var destructive = tools.Annotations{Destructive: true}

// workspace builds ws/{src,docs,secrets} plus an outside directory and the
// symlinks the path tests use.
func workspace(t *testing.T) (ws, outside string) {
	t.Helper()
	base := t.TempDir()
	ws = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{ws + "/src", ws + "/docs", ws + "/secrets", outside + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		ws + "/src/out":  outside + "/sub",        // absolute, outside
		ws + "/src/in":   "../docs",               // relative, inside
		ws + "/src/dang": outside + "/newfile",    // dangling, outside
		ws + "/src/rel":  "../../outside/sub/../", // relative, outside
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlinks not available: %v", err)
		}
	}
	return ws, outside
}

func TestPathRules(t *testing.T) {
	ws, outside := workspace(t)
	cfg := Config{Rules: []Rule{
		{Tool: "write_file", Path: "src/**", Decision: DecisionAllow},
		{Tool: "write_file", Path: "secrets/**", Decision: DecisionDeny, Message: "no secrets"},
		{Tool: "write_file", Path: "*.md", Decision: DecisionAllow},
	}}
	cases := []struct {
		path, want, contains string
	}{
		{"src/a.go", "allow", `path "src/**"`},
		{"src/new/dir/f.go", "allow", ""},
		{"./src/./a.go", "allow", ""},
		{ws + "/src/b.go", "allow", ""},
		{"README.md", "allow", `path "*.md"`},
		{"docs/README.md", "ask", ""}, // * stays within one segment
		{"src/../secrets/key", "deny", "no secrets"},
		{"src/../../outside/x", "deny", "outside the workspace"},
		{outside + "/x", "deny", "outside the workspace"},
		{"/etc/passwd", "deny", "outside the workspace"},
		{"src/out/x", "deny", "outside the workspace"},
		{"src/out/../x", "deny", "outside the workspace"}, // lexically src/x, really outside/x
		{"src/dang", "deny", "outside the workspace"},
		{"src/rel/f", "deny", "outside the workspace"},
		{"src/in/x", "ask", ""}, // really docs/x: not under src/**
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			asker := &recordingAsker{}
			p := newPolicy(t, cfg, Options{Workdir: ws, Asker: asker})
			d, err := p.Approve(context.Background(), toolReq("write_file", destructive, "builtin", map[string]any{"path": tc.path, "content": "x"}))
			if err != nil {
				t.Fatal(err)
			}
			got := map[bool]string{true: "allow", false: "deny"}[d.Allow]
			if asker.calls.Load() > 0 {
				got = "ask"
			}
			if got != tc.want {
				t.Fatalf("path %q: got %s (%+v), want %s", tc.path, got, d, tc.want)
			}
			if !strings.Contains(d.Reason+" | "+d.Rule, tc.contains) {
				t.Errorf("decision %+v does not contain %q", d, tc.contains)
			}
		})
	}
}

func TestOutsideWorkspaceBeatsYes(t *testing.T) {
	ws, _ := workspace(t)
	p := newPolicy(t, Config{Default: DecisionAllow}, Options{Workdir: ws, Yes: true})
	d, err := p.Approve(context.Background(), toolReq("read_file", tools.Annotations{ReadOnly: true}, "builtin", map[string]any{"path": "../x"}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Allow || d.Rule != "outside the workspace" {
		t.Fatalf("got %+v, want a deny for a path outside the workspace", d)
	}
}

func TestRemotePathNotBounded(t *testing.T) {
	ws, _ := workspace(t)
	p := newPolicy(t, Config{Default: DecisionAllow}, Options{Workdir: ws})
	for _, src := range []string{"mcp:github", "native"} {
		d, err := p.Approve(context.Background(), toolReq("get_file", tools.Annotations{}, src, map[string]any{"path": "/repos/x/README.md"}))
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allow {
			t.Errorf("%s tool with a remote path: got %+v, want the default allow", src, d)
		}
	}
}

func TestArgsRules(t *testing.T) {
	cfg := Config{Rules: []Rule{
		{Tool: "get_weather", Args: map[string]string{"city": "^(Paris|Rome)$"}, Decision: DecisionAllow},
		{Tool: "get_weather", Args: map[string]string{"days": "^[1-3]$", "metric": "^true$"}, Decision: DecisionAllow},
	}}
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"city": "Paris"}, "allow"},
		{map[string]any{"city": "Rome", "days": 9}, "allow"},
		{map[string]any{"city": "Parisx"}, "ask"},
		{map[string]any{"town": "Paris"}, "ask"},
		{map[string]any{"city": []string{"Paris"}}, "ask"},
		{map[string]any{"days": 2, "metric": true}, "allow"},
		{map[string]any{"days": 2, "metric": false}, "ask"},
		{map[string]any{"days": 2}, "ask"},
	}
	for _, tc := range cases {
		got, d := outcome(t, cfg, toolReq("get_weather", tools.Annotations{}, "native", tc.args))
		if got != tc.want {
			t.Errorf("args %v: got %s (%+v), want %s", tc.args, got, d, tc.want)
		}
	}
}

func TestToolMatching(t *testing.T) {
	cfg := Config{Rules: []Rule{
		{Tool: "mcp:github", Decision: DecisionAsk},
		{Tool: "mcp:*", Decision: DecisionAllow},
		{Tool: "web_*", Decision: DecisionDeny, Message: "no web"},
	}}
	cases := []struct {
		name, source, want string
		ann                tools.Annotations
	}{
		{"create_issue", "mcp:github", "ask", tools.Annotations{ReadOnly: true}},
		{"query", "mcp:db", "allow", tools.Annotations{}},
		{"web_fetch", "builtin", "deny", tools.Annotations{ReadOnly: true}},
		{"github", "builtin", "ask", tools.Annotations{}}, // the name is not the server
	}
	for _, tc := range cases {
		got, d := outcome(t, cfg, toolReq(tc.name, tc.ann, tc.source, nil))
		if got != tc.want {
			t.Errorf("%s from %s: got %s (%+v), want %s", tc.name, tc.source, got, d, tc.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	cases := []struct {
		name   string
		def    string
		ann    tools.Annotations
		want   string
		source string
	}{
		{"read-only allowed", "", tools.Annotations{ReadOnly: true}, "allow", agent.SourceDefault},
		{"read-only allowed under default deny", DecisionDeny, tools.Annotations{ReadOnly: true}, "allow", agent.SourceDefault},
		{"read-only but destructive asks", "", tools.Annotations{ReadOnly: true, Destructive: true}, "ask", agent.SourceUser},
		{"unannotated is destructive", "", tools.Annotations{}, "ask", agent.SourceUser},
		{"default allow", DecisionAllow, tools.Annotations{}, "allow", agent.SourceDefault},
		{"default deny", DecisionDeny, destructive, "deny", agent.SourceDefault},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, d := outcome(t, Config{Default: tc.def}, toolReq("tool_x", tc.ann, "mcp:srv", map[string]any{"a": 1}))
			if got != tc.want || d.Source != tc.source {
				t.Fatalf("got %s/%s (%+v), want %s/%s", got, d.Source, d, tc.want, tc.source)
			}
		})
	}
}

func TestHeadless(t *testing.T) {
	p := newPolicy(t, Config{Rules: []Rule{askRule("git push *")}}, Options{})
	cases := []struct {
		req      agent.ApprovalRequest
		contains string
	}{
		{shellReq("git status -s"), `approval: {rules: [{tool: shell, command: "git status *", decision: allow}]}`},
		{shellReq("ls -la | wc -l"), `command: "ls *"`},
		{shellReq("$X foo"), `could not be checked against the rules`},
		{shellReq("sudo make"), `PROGRAM SUBCOMMAND *`},
		{shellReq("git push origin"), `rule: shell command "git push *" (config rule 1)`},
		{shellReq(`echo "x`), "could not be parsed"},
		{toolReq("write_file", destructive, "builtin", map[string]any{"path": "a"}), `{tool: write_file, decision: allow}`},
	}
	for _, tc := range cases {
		d, err := p.Approve(context.Background(), tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow || d.Source != agent.SourceDefault {
			t.Errorf("%s: got %+v, want a default deny", tc.req.Call.Arguments, d)
		}
		if !strings.Contains(d.Reason, tc.contains) || !strings.Contains(d.Reason, "--yes") {
			t.Errorf("%s: reason %q should contain %q and mention --yes", tc.req.Call.Arguments, d.Reason, tc.contains)
		}
	}
}

func TestYesFlag(t *testing.T) {
	cfg := Config{Rules: []Rule{deny("rm *", "never delete files"), askRule("git push *")}}
	p := newPolicy(t, cfg, Options{Yes: true, Asker: &recordingAsker{}})
	cases := []struct {
		cmd    string
		allow  bool
		source string
	}{
		{"rm -rf x", false, agent.SourceRule},
		{"ls && rm x", false, agent.SourceRule},
		{"git push", true, agent.SourceFlag},
		{"make build", true, agent.SourceFlag},
		{`echo "x`, true, agent.SourceFlag},
	}
	for _, tc := range cases {
		d, err := p.Approve(context.Background(), shellReq(tc.cmd))
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow != tc.allow || d.Source != tc.source {
			t.Errorf("%q with --yes: got %+v, want allow=%v source=%s", tc.cmd, d, tc.allow, tc.source)
		}
	}
}

func TestAsker(t *testing.T) {
	asker := &recordingAsker{answer: agent.Decision{Allow: true}}
	p := newPolicy(t, Config{}, Options{Asker: asker})
	d, err := p.Approve(context.Background(), shellReq("make"))
	if err != nil || !d.Allow || d.Source != agent.SourceUser {
		t.Fatalf("got %+v, %v; want the asker's allow with source user", d, err)
	}
	asker.answer = agent.Decision{StopTurn: true, Source: agent.SourceUser, Reason: "stop"}
	d, _ = p.Approve(context.Background(), shellReq("make"))
	if d.Allow || !d.StopTurn {
		t.Fatalf("got %+v, want the asker's deny with StopTurn", d)
	}
	asker.err = context.Canceled
	if _, err := p.Approve(context.Background(), shellReq("make")); !errors.Is(err, context.Canceled) {
		t.Fatalf("asker error: got %v, want context.Canceled wrapped", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := asker.calls.Load()
	if _, err := p.Approve(ctx, shellReq("make")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: got %v", err)
	}
	if asker.calls.Load() != before {
		t.Fatal("asker was called with a cancelled context")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		cfg      Config
		contains string
	}{
		{Config{Default: "maybe"}, `approval.default: unknown decision "maybe"`},
		{Config{Rules: []Rule{allow("ls *"), {Tool: "", Decision: DecisionAllow}}}, "approval.rules[1] (rule 2): tool is empty"},
		{Config{Rules: []Rule{{Tool: "shell", Decision: "yes"}}}, `unknown decision "yes"; use allow, deny or ask`},
		{Config{Rules: []Rule{{Tool: "shell"}}}, "decision is missing"},
		{Config{Rules: []Rule{{Tool: "x", Args: map[string]string{"a": "("}, Decision: DecisionAllow}}}, "args.a: bad regular expression"},
		{Config{Rules: []Rule{{Tool: "x", Path: "/etc/**", Decision: DecisionAllow}}}, "absolute"},
		{Config{Rules: []Rule{{Tool: "x", Path: "../**", Decision: DecisionAllow}}}, `".."`},
		{Config{Rules: []Rule{{Tool: "x", Path: "src/[", Decision: DecisionAllow}}}, "bad pattern segment"},
		{Config{Rules: []Rule{{Tool: "x", Command: "  ", Decision: DecisionAllow}}}, "command is blank"},
	}
	for _, tc := range cases {
		err := tc.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("Validate(%+v) = %v, want error containing %q", tc.cfg, err, tc.contains)
		}
		if _, err := NewPolicy(tc.cfg, Options{Workdir: t.TempDir()}); err == nil {
			t.Errorf("NewPolicy accepted %+v", tc.cfg)
		}
	}
	good := Config{Default: DecisionDeny, Rules: []Rule{allow("git status *"), {Tool: "write_file", Path: "src/**", Decision: DecisionAllow}}}
	if err := good.Validate(); err != nil {
		t.Errorf("valid config rejected: %v", err)
	}
}

// TestSuggestUncovered checks that the headless suggestion names the first
// command no allow rule covers, and the exact prefix when options come
// before the subcommand.
func TestSuggestUncovered(t *testing.T) {
	rules := []Rule{allow("wc *"), allow("grep *"), allow("git log *"), allow("ls *")}
	p := newPolicy(t, Config{Rules: rules}, Options{})
	cases := []struct {
		cmd, contains, not string
	}{
		{`wc -l $(git ls-files)`, `command: "git ls-files *"`, `"wc *"`},
		{`grep -c foo *.txt || true`, `command: "true *"`, `"grep *"`},
		{`ls; grep x y | sort -n`, `command: "sort *"`, `"ls *"`},
		{`git --no-pager log -5`, `command: "git --no-pager log *"`, "SUBCOMMAND"},
		{`git --no-pager log -5`, `options stay part of a rule: "git log *" does not cover "git --no-pager log"`, ""},
		{`git -C sub -c color.ui=never status`, `command: "git -C sub -c color.ui=never status *"`, ""},
		{`go -C sub vet ./...`, `command: "go -C sub vet *"`, ""},
		{`npm --prefix x run build`, `command: "npm --prefix x run *"`, `"npm --prefix x *"`},
		{`npm --prefix=x run build`, `command: "npm --prefix=x run *"`, ""},
		{`sudo make`, `PROGRAM SUBCOMMAND *`, ""},
	}
	for _, tc := range cases {
		d, err := p.Approve(context.Background(), shellReq(tc.cmd))
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow {
			t.Errorf("%q: allowed (%+v), want a headless deny", tc.cmd, d)
			continue
		}
		if !strings.Contains(d.Reason, tc.contains) {
			t.Errorf("%q: reason %q does not contain %q", tc.cmd, d.Reason, tc.contains)
		}
		if tc.not != "" && strings.Contains(d.Reason, tc.not) {
			t.Errorf("%q: reason %q suggests %s", tc.cmd, d.Reason, tc.not)
		}
	}
}
