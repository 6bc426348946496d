package approval

import (
	"strings"
	"testing"
)

func TestShellRules(t *testing.T) {
	cases := []struct {
		name  string
		rules []Rule
		cmd   string
		want  string // allow, deny or ask
		// contains is looked for in the decision's Reason + " | " + Rule.
		contains string
	}{
		{"plain allow", []Rule{allow("git status *")}, "git status", "allow", `"git status *" (config rule 1)`},
		{"allow with args", []Rule{allow("git status *")}, "git status --short", "allow", ""},
		{"chained hides nothing", []Rule{allow("git status *")}, "git status && rm -rf /", "ask", ""},
		{"chained deny", []Rule{allow("git status *"), deny("rm *", "never delete files")}, "git status && rm -rf /", "deny", "never delete files"},
		{"semicolon and or", []Rule{allow("ls *"), deny("rm *", "")}, "ls; false || rm x", "deny", `shell command "rm *" (config rule 2)`},
		{"pipe to sh asks", []Rule{allow("cat *")}, "cat x | sh", "ask", ""},
		{"pipe to sh denied", []Rule{allow("cat *"), deny("sh *", "no shells")}, "cat x | sh", "deny", "no shells"},
		{"both piped allowed", []Rule{allow("cat *"), allow("grep *")}, "cat x | grep y", "allow", "config rule 2"},
		{"substitution denied", []Rule{allow("echo *"), deny("rm *", "no rm")}, "echo $(rm -rf x)", "deny", "no rm"},
		{"substitution needs own allow", []Rule{allow("echo *")}, "echo $(rm -rf x)", "ask", ""},
		{"substitution both allowed", []Rule{allow("echo *"), allow("date *")}, "echo $(date)", "allow", ""},
		{"backticks denied", []Rule{allow("echo *"), deny("rm *", "no rm")}, "echo `rm -rf x`", "deny", "no rm"},
		{"substitution in quotes", []Rule{allow("echo *"), deny("rm *", "no rm")}, `echo "a $(rm x) b"`, "deny", "no rm"},
		{"substitution in assignment", []Rule{deny("rm *", "no rm")}, "X=$(rm x)", "deny", "no rm"},
		{"subshell", []Rule{allow("cd *"), deny("rm *", "no rm")}, "(cd x; rm -rf y)", "deny", "no rm"},
		{"process substitution", []Rule{allow("diff *"), deny("rm *", "no rm")}, "diff <(rm x) y", "deny", "no rm"},
		{"if body", []Rule{deny("rm *", "no rm")}, "if true; then rm x; fi", "deny", "no rm"},
		{"for body", []Rule{deny("rm *", "no rm")}, "for f in a b; do rm $f; done", "deny", "no rm"},
		{"while body", []Rule{deny("rm *", "no rm")}, "while false; do rm x; done", "deny", "no rm"},
		{"case body", []Rule{deny("rm *", "no rm")}, "case x in x) rm y;; esac", "deny", "no rm"},
		{"function body", []Rule{deny("rm *", "no rm")}, "f() { rm x; }; f", "deny", "no rm"},
		{"bash -c denied", []Rule{allow("bash *"), deny("rm *", "no rm")}, "bash -c 'rm -rf x'", "deny", "no rm"},
		{"sh -lc denied", []Rule{deny("rm *", "no rm")}, `sh -lc "echo hi; rm -rf x"`, "deny", "no rm"},
		{"bash -c inner needs allow", []Rule{allow("bash *")}, "bash -c 'rm -rf x'", "ask", ""},
		{"bash -c all allowed", []Rule{allow("bash -c *"), allow("git status *")}, "bash -c 'git status'", "allow", ""},
		{"bash -c dynamic never allowed", []Rule{allow("bash *")}, `bash -c "$X"`, "ask", ""},
		{"nested bash -c", []Rule{deny("rm *", "no rm")}, `bash -c "sh -c 'rm x'"`, "deny", "no rm"},
		{"eval denied", []Rule{deny("rm *", "no rm")}, "eval 'rm -rf x'", "deny", "no rm"},
		{"eval dynamic", []Rule{allow("eval *")}, `eval "$CMD"`, "ask", ""},
		{"git log matches git log", []Rule{allow("git log *")}, "git log", "allow", ""},
		{"git log with args", []Rule{allow("git log *")}, "git log --oneline -5", "allow", ""},
		{"git log never git logout", []Rule{allow("git log *")}, "git logout", "ask", ""},
		{"glued star matches logout", []Rule{allow("git log*")}, "git logout", "allow", ""},
		{"glued star matches rest", []Rule{allow("git log*")}, "git log --all", "allow", ""},
		{"glued star needs prefix", []Rule{allow("git log*")}, "git status", "ask", ""},
		{"exact pattern", []Rule{allow("git status")}, "git status", "allow", ""},
		{"exact pattern no extra words", []Rule{allow("git status")}, "git status -s", "ask", ""},
		{"deny beats earlier allow", []Rule{allow("rm *"), deny("rm *", "deny wins")}, "rm x", "deny", "deny wins"},
		{"first deny decides", []Rule{deny("rm -rf *", "first"), deny("rm *", "second")}, "rm -rf x", "deny", "first"},
		{"first deny that matches", []Rule{deny("rm -rf *", "first"), deny("rm *", "second")}, "rm x", "deny", "second"},
		{"ask beats allow", []Rule{allow("git *"), askRule("git push *")}, "git push origin", "ask", ""},
		{"deny beats ask", []Rule{askRule("git *"), deny("git push *", "no push")}, "git push", "deny", "no push"},
		{"unparsable asks", []Rule{allow("echo *")}, `echo "unterminated`, "ask", ""},
		{"unparsable still denied", []Rule{deny("rm *", "no rm")}, `rm -rf x; echo "oops`, "deny", "no rm"},
		{"unparsable never allowed by tool rule", []Rule{{Tool: "shell", Decision: DecisionAllow}}, `echo "x`, "ask", ""},
		{"tool-wide allow", []Rule{{Tool: "shell", Decision: DecisionAllow}}, "rm -rf x", "allow", ""},
		{"tool-wide allow below deny", []Rule{{Tool: "shell", Decision: DecisionAllow}, deny("rm *", "no rm")}, "rm -rf x", "deny", "no rm"},
		{"absolute path deny", []Rule{deny("rm *", "no rm")}, "/bin/rm -rf x", "deny", "no rm"},
		{"absolute path not allowed", []Rule{allow("rm *")}, "/tmp/evil/rm x", "ask", ""},
		{"escaped name", []Rule{deny("rm *", "no rm")}, `r\m -rf x`, "deny", "no rm"},
		{"quoted name", []Rule{deny("rm *", "no rm")}, `'rm' -rf x`, "deny", "no rm"},
		{"quoted name allowed", []Rule{allow("git status *")}, `"git" 'status'`, "allow", ""},
		{"brace expansion", []Rule{allow("echo *"), deny("rm *", "no rm")}, "{rm,-rf,x}", "deny", "no rm"},
		{"variable command", []Rule{deny("rm *", "no rm")}, "$CMD -rf x", "deny", "no rm"},
		{"variable command not allowed", []Rule{allow("git status *")}, "$GIT status", "ask", ""},
		{"variable in tail allowed", []Rule{allow("echo *")}, "echo $HOME", "allow", ""},
		{"variable in fixed word", []Rule{allow("git status")}, "git $X", "ask", ""},
		{"sudo wrapper", []Rule{allow("sudo *"), deny("rm *", "no rm")}, "sudo -u root rm -rf x", "deny", "no rm"},
		{"sudo inner needs allow", []Rule{allow("sudo *")}, "sudo rm -rf x", "ask", ""},
		{"env wrapper", []Rule{deny("rm *", "no rm")}, "env FOO=1 rm x", "deny", "no rm"},
		{"timeout wrapper", []Rule{deny("rm *", "no rm")}, "timeout 5 rm x", "deny", "no rm"},
		{"xargs wrapper", []Rule{allow("xargs *"), deny("rm *", "no rm")}, "xargs -n 1 rm < list", "deny", "no rm"},
		{"find exec", []Rule{allow("find *"), deny("rm *", "no rm")}, `find . -name '*.o' -exec rm {} \;`, "deny", "no rm"},
		{"find exec needs allow", []Rule{allow("find *")}, `find . -exec rm {} +`, "ask", ""},
		{"assignment prefix", []Rule{allow("git status *")}, "GIT_DIR=x git status", "ask", ""},
		{"assignment alone", []Rule{allow("git status *")}, "PATH=/tmp/evil; git status", "ask", ""},
		{"export", []Rule{allow("git status *")}, "export PATH=/tmp/evil && git status", "ask", ""},
		{"cd needs its own allow", []Rule{allow("git status *")}, "cd sub && git status", "ask", ""},
		{"cd allowed", []Rule{allow("cd *"), allow("git status *")}, "cd sub && git status", "allow", "(config rule 1); shell command \"git status *\" (config rule 2)"},
		{"cd does not hide push", []Rule{allow("cd *"), deny("git push *", "no push")}, "cd x && git push", "deny", "no push"},
		{"redirect reported", []Rule{allow("echo *")}, "echo hi > out.txt 2>&1", "allow", "writes to out.txt"},
		{"empty command", []Rule{allow("echo *")}, "", "ask", ""},
		{"comment only", []Rule{allow("echo *")}, "# nothing", "ask", ""},
		{"glob in tail", []Rule{allow("ls *")}, "ls *.go", "allow", ""},
		{"glob in fixed word", []Rule{allow("ls a.go")}, "ls *.go", "ask", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, d := outcome(t, Config{Rules: tc.rules}, shellReq(tc.cmd))
			if got != tc.want {
				t.Fatalf("%q: got %s (%+v), want %s", tc.cmd, got, d, tc.want)
			}
			if got == "allow" && d.Source != "rule" {
				t.Errorf("allow source = %q, want rule", d.Source)
			}
			if got == "deny" && d.Source != "rule" {
				t.Errorf("deny source = %q, want rule", d.Source)
			}
			if all := d.Reason + " | " + d.Rule; !strings.Contains(all, tc.contains) {
				t.Errorf("decision %q does not contain %q", all, tc.contains)
			}
		})
	}
}

func TestRedirectsReported(t *testing.T) {
	cases := map[string]string{
		"echo hi >/dev/null 2>&1": "",
		"echo hi >> log.txt":      "writes to log.txt",
		"echo a > x; echo b &> y": "writes to x, y",
		"cat < in.txt":            "",
	}
	for cmd, want := range cases {
		got, d := outcome(t, Config{Rules: []Rule{allow("echo *"), allow("cat *")}}, shellReq(cmd))
		if got != "allow" || d.Reason != want {
			t.Errorf("%q: got %s with reason %q, want allow with %q", cmd, got, d.Reason, want)
		}
	}
}
