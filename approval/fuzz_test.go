package approval

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzShellMatch checks, for any command and pattern, that nothing panics,
// that a command that does not parse is never allowed, that an allowed
// command has each simple command matching the pattern on its own, and that
// a deny rule with the same pattern always wins.
func FuzzShellMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"git status && rm -rf /", "git status *"},
		{"echo $(rm -rf x) `id`", "echo *"},
		{"bash -c 'sh -c \"rm x\"'", "rm *"},
		{"f() { rm x; }; f | sh", "sh"},
		{"X=1 sudo env -u A xargs -n1 find . -exec rm {} +", "find *"},
		{"echo \"unterminated", "echo *"},
	} {
		f.Add(s[0], s[1])
	}
	dir := f.TempDir()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, cmd, pattern string) {
		// JSON (how arguments travel) cannot carry invalid UTF-8.
		if len(cmd) > 2000 || !utf8.ValidString(cmd) || strings.TrimSpace(pattern) == "" {
			return
		}
		allowP, err := NewPolicy(Config{Default: DecisionAllow, Rules: []Rule{allow(pattern)}}, Options{Workdir: dir})
		if err != nil {
			t.Fatal(err)
		}
		req := shellReq(cmd)
		d, err := allowP.Approve(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		script, perr := analyzeShell(cmd)
		if perr != nil {
			if d.Allow {
				t.Fatalf("unparsable %q was allowed: %+v", cmd, d)
			}
			return
		}
		if d.Allow && d.Source == "rule" {
			if len(script.cmds) == 0 {
				t.Fatalf("%q with no commands allowed by a rule", cmd)
			}
			cp := compilePattern(pattern)
			for _, sc := range script.cmds {
				if !cp.match(sc.words, modeAllow) {
					t.Fatalf("%q allowed by %q but %q does not match", cmd, pattern, sc)
				}
			}
		}
		denyP, err := NewPolicy(Config{Default: DecisionAllow, Rules: []Rule{allow(pattern), deny(pattern, "fuzz deny")}}, Options{Workdir: dir, Yes: true})
		if err != nil {
			t.Fatal(err)
		}
		dd, err := denyP.Approve(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allow && d.Source == "rule" && (dd.Allow || dd.Reason != "fuzz deny") {
			t.Fatalf("%q: deny rule %q did not beat the same allow rule: %+v", cmd, pattern, dd)
		}
		_, _ = SessionScope(req)
		_, _ = allowP.SessionScope(req)
	})
}

// FuzzPatternMatch checks the word matcher: allow mode is never looser than
// deny mode, and star-free patterns match exactly their own words.
func FuzzPatternMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"git log *", "git log --oneline"},
		{"git log*", "git logout"},
		{"git status", "git status -s"},
		{"a*b?c *", "axxbyc d e"},
		{"*", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, cmd string) {
		p := compilePattern(pattern)
		ws := lits(cmd)
		a := p.match(ws, modeAllow)
		if a && !p.match(ws, modeDeny) {
			t.Fatalf("%q matches %q in allow mode but not in deny mode", pattern, cmd)
		}
		if a && !p.restStar && !p.gluedRest && len(ws) != len(p.words) {
			t.Fatalf("%q without a trailing star matched %d words", pattern, len(ws))
		}
		if !strings.ContainsAny(pattern, "*?") && len(ws) > 0 {
			want := strings.Join(strings.Fields(pattern), " ") == strings.Join(strings.Fields(cmd), " ")
			if a != want {
				t.Fatalf("exact %q vs %q: got %v, want %v", pattern, cmd, a, want)
			}
		}
		if a && !p.restStar && len(p.words) > 0 {
			more := append(append([]word(nil), ws...), word{text: "extra"})
			if !compilePattern(pattern+" *").match(more, modeAllow) {
				t.Fatalf("%q matched %q but %q * does not match it plus a word", pattern, cmd, pattern)
			}
		}
	})
}
