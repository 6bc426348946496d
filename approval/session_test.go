package approval

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"tact/agent"
)

func TestSessionScope(t *testing.T) {
	cases := []struct {
		req          agent.ApprovalRequest
		tool, cmd    string
		labelContain string
	}{
		{shellReq("git status --short"), "shell", "git status *", `"git status *"`},
		{shellReq("ls -la"), "shell", "ls *", `"ls *"`},
		{shellReq("ls"), "shell", "ls *", ""},
		{shellReq("git"), "shell", "git", ""},
		{shellReq("/usr/bin/go test ./..."), "shell", "/usr/bin/go test *", ""},
		{shellReq("git status && rm -rf /"), "shell", "git status *", "first of 2 commands"},
		{shellReq("sudo rm -rf x"), "", "", "runs other programs"},
		{shellReq("bash -c 'rm x'"), "", "", "runs other programs"},
		// Review: "git -C *" would have allowed `git -C . push origin main`.
		{shellReq("git -C sub status"), "", "", "is an option"},
		{shellReq("git -c alias.x='!touch y' x"), "", "", "is an option"},
		{shellReq("go -C sub test ./..."), "", "", "is an option"},
		{shellReq("python3 -c 'print(1)'"), "", "", "runs other programs"},
		{shellReq("sed -n 1p f"), "", "", "runs other programs"},
		{shellReq("awk '{print}' f"), "", "", "runs other programs"},
		{shellReq("find . -name x"), "", "", "runs other programs"},
		{shellReq("xargs -n1 echo"), "", "", "runs other programs"},
		{shellReq("/usr/bin/env FOO=1 make"), "", "", "runs other programs"},
		{shellReq("strace ls"), "", "", "runs other programs"},
		{shellReq("ssh host ls"), "", "", "runs other programs"},
		{shellReq("timeout 5 make"), "", "", "runs other programs"},
		{shellReq("watch ls"), "", "", "runs other programs"},
		{shellReq("ls -la"), "shell", "ls *", ""},
		{shellReq("$X foo"), "", "", "cannot be allowed"},
		{shellReq("git $SUB"), "", "", "not plain text"},
		{shellReq("FOO=1 make"), "", "", "cannot be allowed"},
		{shellReq(`echo "x`), "", "", "cannot be parsed"},
		{toolReq("write_file", destructive, "builtin", map[string]any{"path": "a"}), "write_file", "", "every write_file call"},
	}
	for _, tc := range cases {
		r, label := SessionScope(tc.req)
		if r.Tool != tc.tool || r.Command != tc.cmd {
			t.Errorf("%s: scope %+v, want tool %q command %q", tc.req.Call.Arguments, r, tc.tool, tc.cmd)
		}
		if r.Tool != "" && r.Decision != DecisionAllow {
			t.Errorf("%s: decision %q, want allow", tc.req.Call.Arguments, r.Decision)
		}
		if !strings.Contains(label, tc.labelContain) {
			t.Errorf("%s: label %q does not contain %q", tc.req.Call.Arguments, label, tc.labelContain)
		}
		if r.Command == "*" || (r.Tool == "shell" && r.Command == "") {
			t.Errorf("%s: scope %+v allows every command", tc.req.Call.Arguments, r)
		}
	}
}

func TestSessionRules(t *testing.T) {
	ctx := context.Background()
	p := newPolicy(t, Config{Rules: []Rule{deny("rm *", "no rm")}}, Options{})
	approve := func(cmd string) agent.Decision {
		t.Helper()
		d, err := p.Approve(ctx, shellReq(cmd))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := approve("git status"); d.Allow {
		t.Fatalf("allowed before any session rule: %+v", d)
	}
	r, _ := SessionScope(shellReq("git status -s"))
	if err := p.AddSessionRule(r); err != nil {
		t.Fatal(err)
	}
	if err := p.AddSessionRule(Rule{Tool: "shell", Command: "rm *"}); err != nil {
		t.Fatal(err)
	}
	if d := approve("git status --porcelain"); !d.Allow || d.Source != agent.SourceRule || !strings.Contains(d.Rule, "session rule 1") {
		t.Fatalf("session rule not applied: %+v", d)
	}
	if d := approve("git status && git push"); d.Allow {
		t.Fatalf("session scope allowed another command: %+v", d)
	}
	if d := approve("rm x"); d.Allow || d.Reason != "no rm" {
		t.Fatalf("session rule beat a config deny: %+v", d)
	}
	got := p.SessionRules()
	if len(got) != 2 || got[0].Command != "git status *" || got[1].Decision != DecisionAllow {
		t.Fatalf("SessionRules = %+v", got)
	}
	got[0].Command = "*" // the copy must not change the policy
	if err := p.RemoveSessionRule(0); err != nil {
		t.Fatal(err)
	}
	if d := approve("git status"); d.Allow {
		t.Fatalf("removed rule still applies: %+v", d)
	}
	if rs := p.SessionRules(); len(rs) != 1 || rs[0].Command != "rm *" {
		t.Fatalf("after remove: %+v", rs)
	}
	if err := p.RemoveSessionRule(5); err == nil || !strings.Contains(err.Error(), "no session rule 6") {
		t.Fatalf("RemoveSessionRule(5) = %v", err)
	}
	if err := p.AddSessionRule(Rule{Tool: "shell", Command: "*"}); err == nil {
		t.Fatal("a session rule allowing every command was accepted")
	}
	if err := p.AddSessionRule(Rule{}); err == nil {
		t.Fatal("an empty session rule was accepted")
	}
}

func TestSessionRulesConcurrent(t *testing.T) {
	p := newPolicy(t, Config{}, Options{})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_ = p.AddSessionRule(allow(fmt.Sprintf("tool%d *", i)))
			_, _ = p.Approve(context.Background(), shellReq(fmt.Sprintf("tool%d x", i)))
			_ = p.SessionRules()
			_ = p.RemoveSessionRule(0)
		}(i)
	}
	wg.Wait()
	if n := len(p.SessionRules()); n != 0 {
		t.Fatalf("%d session rules left, want 0", n)
	}
}

// TestPolicySessionScope checks that the Policy's scope skips commands an
// allow rule (config or session) already covers.
func TestPolicySessionScope(t *testing.T) {
	p := newPolicy(t, Config{Rules: []Rule{allow("wc *"), allow("grep *"), allow("true"), allow("ls *")}}, Options{})
	cases := []struct {
		cmd, scope, labelContain string
	}{
		{`wc -l $(git ls-files)`, "git ls-files *", `"git ls-files *"`},
		{`grep -c foo *.txt || git status`, "git status *", ""},
		{`ls && make test && git diff`, "make test *", "one of the 2 commands no rule allows yet"},
		{`git --no-pager log && ls`, "", "is an option"},
		{`ls | sudo tee x`, "", "runs other programs"},
		{`ls > /tmp/x`, "", "already allowed by a rule; it needs approval because writes to /tmp/x"},
		{`grep x y || true`, "", "already allowed"},
	}
	for _, tc := range cases {
		r, label := p.SessionScope(shellReq(tc.cmd))
		if r.Command != tc.scope || (tc.scope != "" && r.Tool != "shell") || (tc.scope == "" && r.Tool != "") {
			t.Errorf("%q: scope %+v, want %q", tc.cmd, r, tc.scope)
		}
		if !strings.Contains(label, tc.labelContain) {
			t.Errorf("%q: label %q does not contain %q", tc.cmd, label, tc.labelContain)
		}
	}
	// The package function keeps scoping the first command.
	if r, _ := SessionScope(shellReq(`wc -l $(git ls-files)`)); r.Command != "wc *" {
		t.Errorf("package SessionScope = %+v, want the first command", r)
	}
	// A session rule counts as covering.
	if err := p.AddSessionRule(Rule{Tool: "shell", Command: "git ls-files *"}); err != nil {
		t.Fatal(err)
	}
	if r, _ := p.SessionScope(shellReq(`wc -l $(git ls-files) && make build`)); r.Command != "make build *" {
		t.Errorf("after a session rule: scope %+v, want make build *", r)
	}
	// Other tools: the tool itself.
	if r, _ := p.SessionScope(toolReq("write_file", destructive, "builtin", map[string]any{"path": "a"})); r.Tool != "write_file" || r.Command != "" {
		t.Errorf("write_file scope = %+v", r)
	}
}
