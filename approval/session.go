package approval

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"tact/agent"
)

// twoWordPrograms are programs whose first argument is a subcommand, so a
// session scope keeps it ("git status *" rather than "git *").
var twoWordPrograms = map[string]bool{
	"git": true, "go": true, "npm": true, "npx": true, "pnpm": true, "yarn": true, "bun": true,
	"cargo": true, "rustup": true, "docker": true, "podman": true, "kubectl": true, "helm": true,
	"make": true, "gh": true, "pip": true, "pip3": true, "uv": true, "poetry": true,
	"apt": true, "apt-get": true, "brew": true, "systemctl": true, "terraform": true,
	"dotnet": true, "mvn": true, "gradle": true, "composer": true, "bundle": true,
}

// noScopePrograms run other programs or code given as arguments, so no
// prefix rule built from their first words is as narrow as its label
// ("python -c *", "awk *" or "sudo rm *" would allow code or commands the
// user never saw).
var noScopePrograms = map[string]bool{
	"strace": true, "ltrace": true, "ssh": true, "awk": true, "gawk": true, "mawk": true, "nawk": true,
	"sed": true, "find": true, "xargs": true, "flock": true, "env": true, "sudo": true, "doas": true,
	"su": true, "runuser": true, "pkexec": true, "perl": true, "ruby": true, "node": true, "nodejs": true,
	"deno": true, "bun": true, "php": true, "lua": true, "luajit": true, "tclsh": true, "expect": true,
	"eval": true, "exec": true, "command": true, "builtin": true, "time": true, "nice": true, "nohup": true,
	"timeout": true, "watch": true, "script": true, "source": true, ".": true, "trap": true, "busybox": true,
	"gdb": true, "valgrind": true, "firejail": true, "systemd-run": true, "setpriv": true, "unshare": true,
	"chroot": true, "stdbuf": true, "taskset": true, "ionice": true, "setsid": true, "chrt": true,
	"fakeroot": true, "osascript": true, "pwsh": true, "Rscript": true, "julia": true, "parallel": true,
}

// noScope reports whether a session scope for the program is refused.
func noScope(name string) bool {
	return noScopePrograms[name] || isShell(name) || wrapperSpecs[name] != nil ||
		strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")
}

// SessionScope returns the rule that "allow for this session" adds for req
// and a label to show before the user presses the key. It does not know the
// rules, so it scopes the first simple command even when a rule already
// allows it; the UI should call (*Policy).SessionScope, which scopes the
// first command no allow rule covers.
//
// For a call with a `command` argument the scope is the first simple
// command's first word, or first two words for programs with subcommands
// (git, go, npm, …), in the space form ("git status *"); it never covers
// every command. When the command has several simple commands only the
// first is covered and the label says so. When no safe scope exists, the
// rule is empty (Tool == "") and the label explains; do not add it. That
// is the case for an unparsable command, a first word with $…, a program
// with subcommands whose second word is an option (`git -C dir status`:
// "git -C *" would also allow `git -C . push`), and interpreters and
// program runners (bash, python*, sudo, env, xargs, find, awk, sed, …),
// where any prefix rule would allow arbitrary code.
// For other tools the scope is the tool.
func SessionScope(req agent.ApprovalRequest) (rule Rule, label string) {
	rule, label, _ = sessionScope(req, nil, "")
	return rule, label
}

// SessionScope returns the rule that "allow for this session" adds for req
// and its label, like the package function SessionScope, but built from the
// first simple command that no allow rule (config or session) covers:
// for `wc -l $(git ls-files)` with "wc *" allowed it is "git ls-files *".
// When every command is already covered and the call asks for another
// reason (a write outside the workspace, an expansion that can run code),
// the rule is empty and the label gives that reason.
func (p *Policy) SessionScope(req agent.ApprovalRequest) (rule Rule, label string) {
	rule, label, _ = p.sessionScope(req)
	return rule, label
}

func (p *Policy) sessionScope(req agent.ApprovalRequest) (Rule, string, string) {
	c := p.inspect(req)
	p.mu.RLock()
	rules := append(append([]*compiled(nil), p.allow...), p.sessions...)
	p.mu.RUnlock()
	var base []*compiled
	for _, r := range rules {
		if r.matchBase(c) {
			base = append(base, r)
		}
	}
	covered := func(sc simpleCmd) bool {
		for _, r := range base {
			if r.Command == "" || r.cmd.match(sc.words, modeAllow) {
				return true
			}
		}
		return false
	}
	return sessionScope(req, covered, c.blocked())
}

// sessionScope builds the scope from the first simple command that covered
// does not accept (every command when covered is nil). The third result is
// the exact command prefix through the subcommand when the scope is refused
// because the second word is an option ("git --no-pager log"), for
// suggestions in the config.
func sessionScope(req agent.ApprovalRequest, covered func(simpleCmd) bool, blocked string) (Rule, string, string) {
	var args map[string]json.RawMessage
	_ = json.Unmarshal(req.Call.Arguments, &args)
	name := req.Call.Name
	cmd, ok := stringArg(args, "command")
	if !ok {
		return Rule{Tool: name, Decision: DecisionAllow}, fmt.Sprintf("every %s call this session", name), ""
	}
	script, err := analyzeShell(cmd)
	if err != nil {
		return Rule{}, "this command cannot be parsed, so it cannot be allowed for the session", ""
	}
	var first []word
	open, total := 0, 0
	for _, sc := range script.cmds {
		if len(sc.words) == 0 {
			continue
		}
		total++
		if covered != nil && covered(sc) {
			continue
		}
		open++
		if first == nil {
			first = sc.words
		}
	}
	if first == nil && covered != nil && total > 0 {
		why := "every command in it is already allowed by a rule"
		if blocked != "" {
			why += "; it needs approval because " + blocked
		}
		return Rule{}, why, ""
	}
	if len(first) == 0 || !plainWord(first[0]) || isAssignment(first[0].text) {
		return Rule{}, "this command does not start with a plain program name, so it cannot be allowed for the session", ""
	}
	base := path.Base(first[0].text)
	if noScope(base) {
		return Rule{}, fmt.Sprintf("%s runs other programs or code, so no rule for the session can be as narrow as this one command", base), ""
	}
	var pattern string
	switch {
	case !twoWordPrograms[base]:
		pattern = first[0].text + " *"
	case len(first) == 1:
		pattern = first[0].text // "git" alone: exactly that, not every git command
	case strings.HasPrefix(first[1].text, "-"):
		return Rule{}, fmt.Sprintf("the second word of this %s command is an option (%s), so a rule for the session would cover more than its subcommand; allow it once instead", first[0].text, first[1].text), exactPrefix(base, first)
	case plainWord(first[1]):
		pattern = first[0].text + " " + first[1].text + " *"
	default:
		return Rule{}, fmt.Sprintf("the second word of this %s command is not plain text, so it cannot be allowed for the session", first[0].text), ""
	}
	rule := Rule{Tool: name, Command: pattern, Decision: DecisionAllow}
	label := fmt.Sprintf("%s commands matching %q", name, pattern)
	switch {
	case covered == nil && len(script.cmds) > 1:
		label += fmt.Sprintf(" (covers the first of %d commands; the others still ask)", len(script.cmds))
	case covered != nil && open > 1:
		label += fmt.Sprintf(" (covers one of the %d commands no rule allows yet; the others still ask)", open)
	}
	return rule, label, ""
}

// exactPrefix returns the words of a command through its subcommand when
// options come before it (git --no-pager log, go -C dir test), or "". For
// programs whose options tact does not know, an option without "=" may
// take the next word as its value, so the prefix runs through the second
// word that is not an option (npm --prefix x run): narrower, never wider.
func exactPrefix(base string, ws []word) string {
	n := 0
	switch base {
	case "git":
		g, _ := stripGitGlobals(ws)
		if len(g) > 1 {
			n = len(ws) - len(g) + 2
		}
	case "go":
		if ws[1].text == "-C" || ws[1].text == "--C" {
			n = 4
		} else {
			n = 3
		}
	default:
		seen := 0
		for i := 1; i < len(ws); i++ {
			if strings.HasPrefix(ws[i].text, "-") {
				continue
			}
			seen++
			if seen == 2 || strings.Contains(ws[i-1].text, "=") || !strings.HasPrefix(ws[i-1].text, "-") {
				n = i + 1
				break
			}
		}
	}
	if n == 0 || n > len(ws) {
		return ""
	}
	parts := make([]string, n)
	for i, w := range ws[:n] {
		if !plainWord(w) {
			return ""
		}
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

// AddSessionRule adds an allow rule for the rest of the session; it is
// checked after the config's allow rules. The decision is always allow.
func (p *Policy) AddSessionRule(r Rule) error {
	r.Decision = DecisionAllow
	if err := r.validate(); err != nil {
		return fmt.Errorf("session rule: %w", err)
	}
	if strings.TrimSpace(r.Command) == "*" {
		return fmt.Errorf("session rule %q would allow every command; scope it to a program, e.g. \"git status *\"", r.Command)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sessions = append(p.sessions, compile(r, fmt.Sprintf("session rule %d", len(p.sessions)+1)))
	p.log.Debug("session rule added", "rule", describe(r))
	return nil
}

// SessionRules lists the session's rules in the order they are checked.
func (p *Policy) SessionRules() []Rule {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]Rule, len(p.sessions))
	for i, c := range p.sessions {
		out[i] = c.Rule
	}
	return out
}

// RemoveSessionRule removes the i-th session rule (0-based, as listed by
// SessionRules).
func (p *Policy) RemoveSessionRule(i int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i < 0 || i >= len(p.sessions) {
		return fmt.Errorf("no session rule %d; there are %d (see /permissions)", i+1, len(p.sessions))
	}
	p.sessions = append(p.sessions[:i:i], p.sessions[i+1:]...)
	for j := i; j < len(p.sessions); j++ {
		p.sessions[j] = compile(p.sessions[j].Rule, fmt.Sprintf("session rule %d", j+1))
	}
	return nil
}

// plainWord reports whether w can stand in a pattern as itself.
func plainWord(w word) bool {
	return w.literal && w.text != "" && !strings.ContainsAny(w.text, " \t\n*?")
}
