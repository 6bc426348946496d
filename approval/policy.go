package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"tact/agent"
)

// Options configure a Policy.
type Options struct {
	// Workdir is the workspace root; `path` arguments are resolved against it
	// and must stay inside it. Empty means the current directory.
	Workdir string
	// Yes turns every "ask" into "allow" (the --yes flag). Deny rules still hold.
	Yes bool
	// Asker is asked when the decision is "ask" (the TUI). Nil means headless:
	// "ask" becomes a deny whose reason names the rule to add.
	Asker agent.Approver
	// Logger receives one debug line per decision; nil discards.
	Logger *slog.Logger
}

// Policy decides tool calls from config rules, session rules and flags. It is
// safe for concurrent use.
type Policy struct {
	root     string
	def      string
	yes      bool
	asker    agent.Approver
	log      *slog.Logger
	deny     []*compiled
	ask      []*compiled
	allow    []*compiled
	mu       sync.RWMutex
	sessions []*compiled
}

// compiled is a Rule ready to match.
type compiled struct {
	Rule
	cmd  cmdPattern
	args map[string]*regexp.Regexp
	desc string
}

var _ agent.Approver = (*Policy)(nil)

// NewPolicy checks cfg and builds a Policy.
func NewPolicy(cfg Config, opts Options) (*Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("approval config: %w; fix the approval section of the config file", err)
	}
	root, err := realRoot(opts.Workdir)
	if err != nil {
		return nil, fmt.Errorf("approval: find the workspace %q: %w; run tact from a readable directory", opts.Workdir, err)
	}
	p := &Policy{root: root, def: cfg.Default, yes: opts.Yes, asker: opts.Asker, log: opts.Logger}
	if p.def == "" {
		p.def = DecisionAsk
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	for i, r := range cfg.Rules {
		c := compile(r, fmt.Sprintf("config rule %d", i+1))
		switch r.Decision {
		case DecisionDeny:
			p.deny = append(p.deny, c)
		case DecisionAsk:
			p.ask = append(p.ask, c)
		default:
			p.allow = append(p.allow, c)
		}
	}
	return p, nil
}

func compile(r Rule, where string) *compiled {
	c := &compiled{Rule: r, cmd: compilePattern(r.Command)}
	if len(r.Args) > 0 {
		c.args = make(map[string]*regexp.Regexp, len(r.Args))
		for k, v := range r.Args {
			c.args[k] = regexp.MustCompile(v) // checked by validate
		}
	}
	c.desc = describe(r) + " (" + where + ")"
	return c
}

// describe renders a rule for people, e.g. `shell command "rm *"`.
func describe(r Rule) string {
	var b strings.Builder
	b.WriteString(r.Tool)
	if r.Command != "" {
		fmt.Fprintf(&b, " command %q", r.Command)
	}
	if r.Path != "" {
		fmt.Fprintf(&b, " path %q", r.Path)
	}
	if len(r.Args) > 0 {
		keys := make([]string, 0, len(r.Args))
		for k := range r.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=~%q", k, r.Args[k])
		}
	}
	return b.String()
}

// call is a request with its arguments read once.
type call struct {
	req  agent.ApprovalRequest
	args map[string]json.RawMessage

	hasCommand bool
	script     shellScript
	shellErr   error
	// writes are the redirection targets as reported; badWrites says why
	// some of them keep allow rules from applying.
	writes    []string
	badWrites []string

	hasPath bool
	rel     string // workspace-relative, slash-separated
	outside bool
	pathErr error
}

func (p *Policy) inspect(req agent.ApprovalRequest) *call {
	c := &call{req: req}
	if len(req.Call.Arguments) > 0 {
		_ = json.Unmarshal(req.Call.Arguments, &c.args) // not an object: no args to match
	}
	if cmd, ok := stringArg(c.args, "command"); ok {
		c.hasCommand = true
		c.script, c.shellErr = analyzeShell(cmd)
		if c.shellErr == nil {
			c.writes, c.badWrites = p.checkWrites(c.script)
		}
	}
	if pth, ok := stringArg(c.args, "path"); ok {
		c.hasPath = true
		rel, inside, err := workspaceRel(p.root, pth)
		c.rel, c.outside, c.pathErr = rel, !inside, err
	}
	return c
}

func stringArg(args map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := args[name]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// scalar stringifies a JSON scalar; objects and arrays do not match.
func scalar(raw json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strings.TrimSpace(string(raw)), true
	case bool:
		return strconv.FormatBool(x), true
	case nil:
		return "null", true
	}
	return "", false
}

// matchBase checks the conditions other than the command pattern.
func (r *compiled) matchBase(c *call) bool {
	if !matchTool(r.Tool, c.req) {
		return false
	}
	for name, re := range r.args {
		raw, ok := c.args[name]
		if !ok {
			return false
		}
		s, ok := scalar(raw)
		if !ok || !re.MatchString(s) {
			return false
		}
	}
	if r.Path != "" {
		if !c.hasPath || c.outside || c.pathErr != nil || !matchDoublestar(r.Path, c.rel) {
			return false
		}
	}
	if r.Command != "" && !c.hasCommand {
		return false
	}
	return true
}

func matchTool(pattern string, req agent.ApprovalRequest) bool {
	if strings.HasPrefix(pattern, "mcp:") {
		return wildMatch(pattern, req.Spec.Source)
	}
	name := req.Spec.Name
	if name == "" {
		name = req.Call.Name
	}
	return wildMatch(pattern, name)
}

// matchAny is how deny and ask rules match: any simple command will do, in
// any of its readings. A script with a command tact could not identify
// matches every rule with a command; why then says what was unknown.
func (r *compiled) matchAny(c *call) (ok bool, why string) {
	if !r.matchBase(c) {
		return false, ""
	}
	if r.Command == "" {
		return true, ""
	}
	cmds := c.script.cmds
	if c.shellErr != nil {
		cmd, _ := stringArg(c.args, "command")
		cmds = crudeCommands(cmd)
	}
	for _, sc := range cmds {
		if r.cmd.match(sc.words, modeDeny) {
			return true, ""
		}
		for _, alt := range sc.alts {
			if r.cmd.match(alt, modeDeny) {
				return true, ""
			}
		}
	}
	if c.shellErr == nil && len(c.script.unknown) > 0 {
		return true, c.script.unknown[0]
	}
	return false, ""
}

// allowedBy returns the allow rules that together cover the call, or nil.
func allowedBy(rules []*compiled, c *call) []*compiled {
	if c.hasCommand && c.shellErr != nil {
		return nil
	}
	var base []*compiled
	for _, r := range rules {
		if !r.matchBase(c) {
			continue
		}
		if r.Command == "" {
			return []*compiled{r}
		}
		base = append(base, r)
	}
	if len(base) == 0 || len(c.script.cmds) == 0 {
		return nil
	}
	// A single rule that covers every command decides first.
	for _, r := range base {
		if coversAll(r, c.script.cmds) {
			return []*compiled{r}
		}
	}
	var used []*compiled
	for _, sc := range c.script.cmds {
		found := false
		for _, r := range base {
			if r.cmd.match(sc.words, modeAllow) {
				if !contains(used, r) {
					used = append(used, r)
				}
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return used
}

func coversAll(r *compiled, cmds []simpleCmd) bool {
	for _, sc := range cmds {
		if !r.cmd.match(sc.words, modeAllow) {
			return false
		}
	}
	return true
}

func contains(rs []*compiled, r *compiled) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// Approve decides whether the call may run. It implements agent.Approver.
func (p *Policy) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	if err := ctx.Err(); err != nil {
		return agent.Decision{}, err
	}
	d, err := p.decide(ctx, req)
	if err == nil {
		p.log.Debug("approval decision", "tool", req.Call.Name, "call_id", req.Call.ID,
			"allow", d.Allow, "source", d.Source, "rule", d.Rule)
	}
	return d, err
}

func (p *Policy) decide(ctx context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	c := p.inspect(req)
	name := req.Call.Name
	if c.hasPath && localPaths(req.Spec.Source) && (c.outside || c.pathErr != nil) {
		reason := fmt.Sprintf("%s: path %q is outside the workspace %s", name, c.rel, p.root)
		if c.pathErr != nil {
			reason = fmt.Sprintf("%s: path cannot be resolved (%v), so it may be outside the workspace %s", name, c.pathErr, p.root)
		}
		return agent.Decision{Source: agent.SourceDefault, Reason: reason, Rule: "outside the workspace"}, nil
	}
	for _, r := range p.deny {
		if ok, why := r.matchAny(c); ok {
			reason := r.Message
			if reason == "" {
				reason = fmt.Sprintf("%s is denied by rule: %s", name, r.desc)
			}
			if why != "" {
				reason += fmt.Sprintf(" (the command could not be checked against the deny rules: %s)", why)
			}
			return agent.Decision{Source: agent.SourceRule, Reason: reason, Rule: r.desc}, nil
		}
	}
	for _, r := range p.ask {
		if ok, why := r.matchAny(c); ok {
			msg := r.Message
			if why != "" {
				msg = strings.TrimPrefix(msg+"; ", "; ") + "the command could not be checked against the rules: " + why
			}
			return p.askFor(ctx, c, r.desc, msg)
		}
	}
	if c.hasCommand && c.shellErr != nil {
		return p.askFor(ctx, c, "", fmt.Sprintf("the command could not be parsed (%v), so no rule can allow it", c.shellErr))
	}
	p.mu.RLock()
	rules := append(append([]*compiled(nil), p.allow...), p.sessions...)
	p.mu.RUnlock()
	blocked := c.blocked()
	if used := allowedBy(rules, c); used != nil {
		descs := make([]string, len(used))
		for i, r := range used {
			descs[i] = r.desc
		}
		if blocked != "" && used[0].Command != "" {
			return p.askFor(ctx, c, "", blocked+", so the allow rules ("+strings.Join(descs, "; ")+") do not apply")
		}
		d := agent.Decision{Allow: true, Source: agent.SourceRule, Rule: strings.Join(descs, "; ")}
		if len(c.writes) > 0 {
			d.Reason = "writes to " + strings.Join(c.writes, ", ")
		}
		return d, nil
	}
	a := req.Spec.Annotations
	if a.ReadOnly && !a.Destructive {
		return agent.Decision{Allow: true, Source: agent.SourceDefault, Reason: "read-only tool"}, nil
	}
	switch p.def {
	case DecisionAllow:
		return agent.Decision{Allow: true, Source: agent.SourceDefault, Reason: "approval.default is allow"}, nil
	case DecisionDeny:
		return agent.Decision{Source: agent.SourceDefault,
			Reason: fmt.Sprintf("%s is denied by approval.default: deny; allow it in config: %s", name, p.suggest(req))}, nil
	}
	return p.askFor(ctx, c, "", blocked)
}

// blocked says why no command allow rule may cover the call, or "".
func (c *call) blocked() string {
	var why []string
	why = append(why, c.script.noAllow...)
	for _, u := range c.script.unknown {
		why = append(why, u+" (so no allow rule can cover it)")
	}
	why = append(why, c.badWrites...)
	return strings.Join(why, "; ")
}

// askFor handles an "ask": --yes allows, the Asker decides, headless denies.
func (p *Policy) askFor(ctx context.Context, c *call, rule, why string) (agent.Decision, error) {
	if p.yes {
		return agent.Decision{Allow: true, Source: agent.SourceFlag, Reason: "allowed by --yes", Rule: rule}, nil
	}
	if p.asker != nil {
		d, err := p.asker.Approve(ctx, c.req)
		if err != nil {
			return agent.Decision{}, fmt.Errorf("ask for approval of %s: %w", c.req.Call.Name, err)
		}
		if d.Source == "" {
			d.Source = agent.SourceUser
		}
		return d, nil
	}
	name := c.req.Call.Name
	var reason string
	switch {
	case why != "" && rule == "":
		reason = fmt.Sprintf("%s needs approval: %s; run with --yes to allow it", name, why)
	case rule != "":
		reason = fmt.Sprintf("%s needs approval (rule: %s); run with --yes to allow it", name, rule)
		if why != "" {
			reason += ": " + why
		}
	default:
		reason = fmt.Sprintf("%s needs approval; run with --yes, or allow it in config: %s", name, p.suggest(c.req))
	}
	return agent.Decision{Source: agent.SourceDefault, Reason: reason, Rule: rule}, nil
}

// suggest renders the rule that would allow calls like req, in YAML flow
// form: the session scope of the first simple command no allow rule covers.
// When that command puts options before its subcommand, the suggestion
// names the exact prefix ("git --no-pager log *"), since options stay part
// of a rule.
func (p *Policy) suggest(req agent.ApprovalRequest) string {
	r, _, exact := p.sessionScope(req)
	if r.Tool == "" && exact != "" {
		note := "options stay part of a rule"
		if ws := strings.Fields(exact); path.Base(ws[0]) == "git" || path.Base(ws[0]) == "go" {
			note += fmt.Sprintf(": %q does not cover %q", ws[0]+" "+ws[len(ws)-1]+" *", exact)
		}
		return fmt.Sprintf("approval: {rules: [{tool: %s, command: %s, decision: allow}]} (%s)",
			req.Call.Name, strconv.Quote(exact+" *"), note)
	}
	if r.Tool == "" {
		// Never suggest a rule that allows every command.
		return fmt.Sprintf("approval: {rules: [{tool: %s, command: \"PROGRAM SUBCOMMAND *\", decision: allow}]} naming the program", req.Call.Name)
	}
	s := "approval: {rules: [{tool: " + r.Tool
	if r.Command != "" {
		s += ", command: " + strconv.Quote(r.Command)
	}
	return s + ", decision: allow}]}"
}

// localPaths reports whether a tool's `path` argument names a local file.
// Remote tools (MCP servers, native HTTP tools) may use `path` for something
// else, so the workspace boundary is not applied to them; their path rules
// still only match paths inside the workspace.
func localPaths(source string) bool {
	return !strings.HasPrefix(source, "mcp:") && source != "native"
}
