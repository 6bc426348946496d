package ui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"tact/tools"
)

// slashCommand is one command of the input box.
type slashCommand struct {
	name, args, help string
}

var slashCommands = []slashCommand{
	{"/help", "", "show keys and commands"},
	{"/tools", "", "list the active tools by source"},
	{"/toolsets", "", "list the tool sets (* = active)"},
	{"/toolset", "NAME[,NAME…]", "make these tool sets the active ones"},
	{"/model", "NAME", "use another model from the next request"},
	{"/protocol", "NAME", "carry tool calls natively or in the text (native, tool_action, json, xml)"},
	{"/permissions", "[rm N]", "list this session's approval rules, or remove rule N"},
	{"/stats", "", "tool call counts, success rates and latencies"},
	{"/clear", "", "start a new conversation"},
	{"/quit", "", "leave tact"},
}

// command runs a slash command line.
func (m *Model) command(line string) tea.Cmd {
	fields := strings.Fields(line)
	name, args := fields[0], fields[1:]
	arg := strings.TrimSpace(strings.TrimPrefix(line, name))
	info := func(s string) { m.add(&entry{kind: kindInfo, text: s}) }
	fail := func(s string) { m.add(&entry{kind: kindError, text: s}) }
	m.scrollBack, m.newOutput = 0, false
	m.labelValid = false // a command may change the tool sets
	switch name {
	case "/help":
		info(helpText())
	case "/tools":
		info(m.toolsText())
	case "/toolsets":
		if m.opts.Catalog == nil {
			fail("tool sets are not available in this session")
			return nil
		}
		var b strings.Builder
		for _, ts := range m.opts.Catalog.ToolSets() {
			mark := " "
			if ts.Active {
				mark = "*"
			}
			fmt.Fprintf(&b, "%s %s — %s (%d tool%s)\n", mark, ts.Name, ts.Description, len(ts.Tools), plural(len(ts.Tools)))
		}
		info(strings.TrimRight(b.String(), "\n") + "\n/toolset NAME[,NAME…] switches")
	case "/toolset":
		if m.opts.Catalog == nil {
			fail("tool sets are not available in this session")
			return nil
		}
		if m.running {
			fail("wait for the turn to end (or press esc) before swapping tool sets")
			return nil
		}
		var names []string
		for _, n := range strings.FieldsFunc(arg, func(r rune) bool { return r == ',' || r == ' ' }) {
			names = append(names, n)
		}
		if len(names) == 0 {
			fail("usage: /toolset NAME[,NAME…] (see /toolsets)")
			return nil
		}
		notice, err := m.opts.Catalog.Activate(names)
		if err != nil {
			fail(activateError(err))
			return nil
		}
		m.add(&entry{kind: kindNotice, text: notice})
	case "/model":
		if arg == "" || m.opts.Agent == nil {
			fail("usage: /model NAME")
			return nil
		}
		m.opts.Agent.SetModel(arg)
		// The demo transport stays in use, so the demo label stays too.
		note := " (from the next request)"
		if m.opts.Demo {
			note = " (the offline demo still answers)"
		}
		m.add(&entry{kind: kindNotice, text: "model: " + arg + note})
	case "/protocol":
		if arg == "" || m.opts.Agent == nil || m.opts.Protocols == nil {
			fail("usage: /protocol NAME (native, tool_action, json or xml)")
			return nil
		}
		p, err := m.opts.Protocols(arg)
		if err != nil {
			fail(err.Error())
			return nil
		}
		m.opts.Agent.SetProtocol(p)
		m.add(&entry{kind: kindNotice, text: "protocol: " + p.Name() + " (from the next request)"})
	case "/permissions":
		m.permissions(args)
	case "/stats":
		info(m.statsText())
	case "/clear":
		if m.running {
			fail("wait for the turn to end (or press esc) before clearing")
			return nil
		}
		if m.opts.OnClear != nil {
			m.opts.OnClear()
		} else if m.opts.Agent != nil {
			m.opts.Agent.Reset()
		}
		m.entries, m.streaming, m.focus = nil, nil, nil
		m.toolByID = map[string]*entry{}
		m.canRetry, m.tokens = false, 0
		m.add(&entry{kind: kindNotice, text: "new conversation"})
	case "/quit", "/exit":
		return m.quit()
	default:
		fail(fmt.Sprintf("unknown command %s; /help lists the commands", name))
	}
	return nil
}

// activateError is the message of a failed tool-set switch, without the
// "config error in built-in defaults: " prefix: the user typed a name, they
// did not edit a config.
func activateError(err error) string {
	s := err.Error()
	if !strings.HasPrefix(s, "config error") {
		return s
	}
	if i := strings.Index(s, "unknown tool"); i >= 0 {
		return s[i:]
	}
	if i := strings.Index(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

func (m *Model) permissions(args []string) {
	p := m.opts.Policy
	if p == nil {
		m.add(&entry{kind: kindError, text: "approval rules are not available in this session"})
		return
	}
	if len(args) == 2 && (args[0] == "rm" || args[0] == "remove") {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			m.add(&entry{kind: kindError, text: "usage: /permissions rm N (N from /permissions)"})
			return
		}
		if err := p.RemoveSessionRule(n - 1); err != nil {
			m.add(&entry{kind: kindError, text: err.Error()})
			return
		}
		m.add(&entry{kind: kindNotice, text: fmt.Sprintf("session rule %d removed", n)})
		return
	}
	rules := p.SessionRules()
	if len(rules) == 0 {
		m.add(&entry{kind: kindInfo, text: "no session rules; press s in the approval pane to add one"})
		return
	}
	var b strings.Builder
	b.WriteString("session rules (checked after the config's):\n")
	for i, r := range rules {
		what := r.Tool
		if r.Command != "" {
			what += fmt.Sprintf(" command %q", r.Command)
		}
		if r.Path != "" {
			what += fmt.Sprintf(" path %q", r.Path)
		}
		fmt.Fprintf(&b, "%d. allow %s\n", i+1, what)
	}
	b.WriteString("/permissions rm N removes one")
	m.add(&entry{kind: kindInfo, text: b.String()})
}

func helpText() string {
	var b strings.Builder
	b.WriteString("keys: enter send · alt+enter/ctrl+j newline · ↑↓ history (empty input) · pgup/pgdn/wheel scroll\n")
	b.WriteString("      tab focus result blocks · enter open focused · ctrl+o open last result · esc cancel turn\n")
	b.WriteString("      ctrl+c cancel, twice quit · ctrl+d quit (empty input) · ctrl+r retry after an error\n")
	b.WriteString("approval: y once · s for the session (scope shown) · n deny · d deny with reason · esc deny and stop\n")
	b.WriteString("commands (tab completes):\n")
	for _, c := range slashCommands {
		fmt.Fprintf(&b, "  %-13s %-14s %s\n", c.name, c.args, c.help)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Model) activeSpecs() []tools.Spec {
	if m.opts.Catalog != nil {
		return m.opts.Catalog.Tools()
	}
	if m.opts.Agent != nil && m.opts.Agent.Executor() != nil {
		return m.opts.Agent.Executor().Registry().Specs()
	}
	return nil
}

func (m *Model) toolsText() string {
	specs := m.activeSpecs()
	if len(specs) == 0 {
		return "no active tools"
	}
	bySource := map[string][]tools.Spec{}
	var sources []string
	for _, s := range specs {
		src := s.Source
		if src == "" {
			src = "other"
		}
		if _, ok := bySource[src]; !ok {
			sources = append(sources, src)
		}
		bySource[src] = append(bySource[src], s)
	}
	sort.Strings(sources)
	var b strings.Builder
	if len(specs) == 1 {
		b.WriteString("1 active tool\n")
	} else {
		fmt.Fprintf(&b, "%d active tools\n", len(specs))
	}
	for _, src := range sources {
		fmt.Fprintf(&b, "%s:\n", src)
		for _, s := range bySource[src] {
			kind := ""
			switch {
			case s.Annotations.Destructive:
				kind = " [destructive]"
			case s.Annotations.ReadOnly:
				kind = " [read-only]"
			}
			fmt.Fprintf(&b, "  %s%s — %s\n", s.Name, kind, firstLine(s.Description))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Model) statsText() string {
	var stats []tools.ToolStats
	if m.opts.Catalog != nil {
		stats = m.opts.Catalog.Stats()
	} else if m.opts.Agent != nil && m.opts.Agent.Executor() != nil {
		stats = m.opts.Agent.Executor().Stats()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tokens this session: %d\n", m.tokens)
	if len(stats) == 0 {
		b.WriteString("no tool calls yet")
		return b.String()
	}
	fmt.Fprintf(&b, "%-18s %6s %8s %9s %9s\n", "tool", "calls", "success", "p50", "p95")
	for _, s := range stats {
		fmt.Fprintf(&b, "%-18s %6d %7.0f%% %9s %9s\n", s.Name, s.Calls, s.SuccessRate*100, formatDuration(s.P50), formatDuration(s.P95))
	}
	return strings.TrimRight(b.String(), "\n")
}

// complete finishes the slash command or tool-set name being typed.
func (m *Model) complete() {
	v := m.input.Value()
	if strings.Contains(v, "\n") {
		return
	}
	if !strings.Contains(v, " ") {
		var hits []string
		for _, c := range slashCommands {
			if strings.HasPrefix(c.name, v) {
				hits = append(hits, c.name)
			}
		}
		m.applyCompletion(v, hits, " ")
		return
	}
	if strings.HasPrefix(v, "/toolset ") && m.opts.Catalog != nil {
		cut := strings.LastIndexAny(v, ", ") + 1
		prefix := v[cut:]
		var hits []string
		for _, ts := range m.opts.Catalog.ToolSets() {
			if strings.HasPrefix(ts.Name, prefix) {
				hits = append(hits, v[:cut]+ts.Name)
			}
		}
		m.applyCompletion(v, hits, "")
	}
	if strings.HasPrefix(v, "/protocol ") {
		prefix := strings.TrimPrefix(v, "/protocol ")
		var hits []string
		for _, n := range []string{"native", "tool_action", "json", "xml"} {
			if strings.HasPrefix(n, prefix) {
				hits = append(hits, "/protocol "+n)
			}
		}
		m.applyCompletion(v, hits, "")
	}
}

// applyCompletion fills in a single hit, or the common prefix and a list.
func (m *Model) applyCompletion(v string, hits []string, suffix string) {
	switch len(hits) {
	case 0:
		return
	case 1:
		m.input.SetValue(hits[0] + suffix)
	default:
		p := hits[0]
		for _, h := range hits[1:] {
			for !strings.HasPrefix(h, p) {
				p = p[:len(p)-1]
			}
		}
		if len(p) > len(v) {
			m.input.SetValue(p)
		} else {
			m.add(&entry{kind: kindInfo, text: strings.Join(hits, "  ")})
		}
	}
	m.input.CursorEnd()
}
