package approval

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Decisions a rule or the default can take.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
	DecisionAsk   = "ask"
)

// Rule is one entry of approval.rules. All the conditions it sets must match.
type Rule struct {
	// Tool is the tool name, a glob with * and ?, or "mcp:SERVER" for every
	// tool of that MCP server. Required.
	Tool string `yaml:"tool" mapstructure:"tool" json:"tool"`
	// Command is a word pattern matched against each simple command of a
	// `command` argument, e.g. "git status *".
	Command string `yaml:"command,omitempty" mapstructure:"command" json:"command,omitempty"`
	// Path is a pattern relative to the workspace ("src/**", "*.md") matched
	// against the resolved `path` argument.
	Path string `yaml:"path,omitempty" mapstructure:"path" json:"path,omitempty"`
	// Args maps an argument name to a regular expression its value must match.
	Args map[string]string `yaml:"args,omitempty" mapstructure:"args" json:"args,omitempty"`
	// Decision is allow, deny or ask. Required.
	Decision string `yaml:"decision" mapstructure:"decision" json:"decision"`
	// Message is shown to the user and the model when the rule denies.
	Message string `yaml:"message,omitempty" mapstructure:"message" json:"message,omitempty"`
}

// Config is the approval section of the config file.
type Config struct {
	// Default is the decision for tools that are not read-only and match no
	// rule: ask (when empty), allow or deny.
	Default string `yaml:"default" mapstructure:"default" json:"default"`
	// Rules are checked deny first, then ask, then allow.
	Rules []Rule `yaml:"rules" mapstructure:"rules" json:"rules"`
}

// Validate reports the first problem in the config, naming the rule.
func (c Config) Validate() error {
	switch c.Default {
	case "", DecisionAsk, DecisionAllow, DecisionDeny:
	default:
		return fmt.Errorf("approval.default: unknown decision %q; use ask, allow or deny", c.Default)
	}
	var errs []error
	for i, r := range c.Rules {
		if err := r.validate(); err != nil {
			errs = append(errs, fmt.Errorf("approval.rules[%d] (rule %d): %w", i, i+1, err))
		}
	}
	return errors.Join(errs...)
}

func (r Rule) validate() error {
	if strings.TrimSpace(r.Tool) == "" {
		return errors.New(`tool is empty; name a tool ("shell"), a glob ("*"), or "mcp:SERVER"`)
	}
	switch r.Decision {
	case DecisionAllow, DecisionDeny, DecisionAsk:
	case "":
		return errors.New("decision is missing; use allow, deny or ask")
	default:
		return fmt.Errorf("unknown decision %q; use allow, deny or ask", r.Decision)
	}
	if r.Command != "" && strings.TrimSpace(r.Command) == "" {
		return errors.New(`command is blank; write a pattern such as "git status *"`)
	}
	if r.Path != "" {
		if err := validPathPattern(r.Path); err != nil {
			return err
		}
	}
	for name, expr := range r.Args {
		if _, err := regexp.Compile(expr); err != nil {
			return fmt.Errorf("args.%s: bad regular expression %q: %w", name, expr, err)
		}
	}
	return nil
}

func validPathPattern(p string) error {
	if strings.HasPrefix(p, "/") {
		return fmt.Errorf("path %q is absolute; write it relative to the workspace, e.g. \"src/**\"", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return fmt.Errorf("path %q contains \"..\"; only paths inside the workspace can match", p)
		}
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("path %q: bad pattern segment %q: %w", p, seg, err)
		}
	}
	return nil
}
