package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"tact/agent"
	"tact/tools"
)

// entryKind is what a transcript entry shows.
type entryKind int

const (
	kindUser entryKind = iota
	kindAssistant
	kindTool
	kindNotice
	kindWarning
	kindError
	kindInfo // command output, shown as plain text
)

// entry is one block of the transcript. Its rendered lines are cached per
// width; anything that changes what it shows calls invalidate.
type entry struct {
	kind entryKind
	text string

	stream *mdStream // assistant text (while streaming and after)
	done   bool      // the assistant message is complete

	call     tools.Call
	spec     *tools.Spec
	decision *agent.Decision
	result   *tools.Result
	focused  bool

	width int
	lines []string
	valid bool
}

func (e *entry) invalidate() { e.valid = false }

// maxResultLines is how many output lines a result block shows.
const maxResultLines = 4

// render returns the entry's lines for width (cached).
func (m *Model) render(e *entry, width int) []string {
	if e.kind == kindAssistant && !e.done {
		return e.stream.lines(width)
	}
	if e.valid && e.width == width {
		return e.lines
	}
	st := &m.st
	var out []string
	switch e.kind {
	case kindUser:
		for i, l := range wrapPlain(e.text, width-2) {
			p := "  "
			if i == 0 {
				p = st.user.Render("›") + " "
			}
			out = append(out, p+st.userText.Render(l))
		}
	case kindAssistant:
		out = m.md.render(e.stream.text(), width)
	case kindTool:
		out = m.renderTool(e, width)
	case kindNotice, kindWarning, kindError, kindInfo:
		style, mark := st.notice, "• "
		switch e.kind {
		case kindWarning:
			style, mark = st.warning, "! "
		case kindError:
			style, mark = st.errorText, "✗ "
		case kindInfo:
			style, mark = st.userText, "  "
		}
		lines := wrapPlain(e.text, width-2)
		if e.kind == kindInfo {
			lines = wrapHanging(e.text, width-2)
		}
		for i, l := range lines {
			p := "  "
			if i == 0 {
				p = mark
			}
			out = append(out, style.Render(p+l))
		}
	}
	out = fitLines(out, width)
	e.lines, e.width, e.valid = out, width, true
	return out
}

// renderTool draws a compact tool block: the call, the decision, the result.
func (m *Model) renderTool(e *entry, width int) []string {
	st := &m.st
	mark := "⚙ "
	if e.focused {
		mark = st.focus.Render("▶ ")
	}
	head := mark + st.tool.Render(e.call.Name) + " " + st.toolArgs.Render(truncate(argsSummary(e.call), width-len(e.call.Name)-4))
	out := []string{head}
	if d := e.decision; d != nil && !(d.Allow && d.Source == agent.SourceDefault) {
		out = append(out, "  "+decisionLine(st, d))
	}
	r := e.result
	if r == nil {
		return out
	}
	dur := ""
	if r.Duration > 0 {
		dur = " · " + formatDuration(r.Duration)
	}
	if r.Success {
		n := strings.Count(strings.TrimRight(r.Output, "\n"), "\n") + 1
		info := fmt.Sprintf("%s%s · %d line%s", e.call.Name, dur, n, plural(n))
		if r.Cached {
			info += " · cached"
		}
		out = append(out, "  "+st.ok.Render("✓")+" "+st.dim.Render(info))
		out = append(out, firstLines(r.Output, maxResultLines, width-4, "    ")...)
	} else {
		kind, msg := "error", ""
		if r.Error != nil {
			kind, msg = string(r.Error.Kind), r.Error.Message
		}
		out = append(out, "  "+st.fail.Render("✗")+" "+st.errorText.Render(truncate(fmt.Sprintf("%s%s · %s: %s", e.call.Name, dur, kind, firstLine(msg)), width-4)))
		if r.Output != "" {
			out = append(out, firstLines(r.Output, maxResultLines-1, width-4, "    ")...)
		}
	}
	if e.focused {
		out = append(out, "  "+st.help.Render("enter: open the full result"))
	}
	return out
}

func decisionLine(st *styles, d *agent.Decision) string {
	who := d.Source
	switch d.Source {
	case agent.SourceUser:
		who = "you"
	case agent.SourceRule:
		who = "rule"
		if d.Rule != "" {
			who = "rule " + d.Rule
		}
	}
	if scope, ok := strings.CutPrefix(d.Rule, sessionRulePrefix); ok && d.Allow && d.Source == agent.SourceUser {
		return st.ok.Render("✓") + " " + st.dim.Render("allowed for this session ("+scope+")")
	}
	if d.Allow {
		return st.ok.Render("✓") + " " + st.dim.Render("allowed by "+who)
	}
	s := "denied by " + who
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	if d.StopTurn {
		s += " (turn stopped)"
	}
	return st.fail.Render("✗") + " " + st.errorText.Render(s)
}

// argsSummary is the one-line form of a call's arguments for its block.
func argsSummary(c tools.Call) string {
	if c.ParseError != "" {
		return oneLine(c.RawArguments)
	}
	var args map[string]any
	if json.Unmarshal(c.Arguments, &args) == nil {
		if cmd, ok := args["command"].(string); ok && len(args) <= 2 {
			return "$ " + oneLine(cmd)
		}
	}
	return oneLine(string(c.Arguments))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// firstLines returns up to n lines of s, cut to width and indented.
func firstLines(s string, n, width int, indent string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	var out []string
	for i, l := range lines {
		if i == n {
			out = append(out, indent+fmt.Sprintf("… %d more line%s", len(lines)-n, plural(len(lines)-n)))
			break
		}
		out = append(out, indent+truncate(strings.ReplaceAll(l, "\t", "    "), width))
	}
	return out
}

// truncate cuts plain text to width runes with an ellipsis.
func truncate(s string, width int) string {
	if width < 2 {
		width = 2
	}
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// resultText is the full text the result pane shows.
func resultText(e *entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "arguments: %s\n\n", prettyJSON(e.call))
	r := e.result
	if r == nil {
		b.WriteString("(no result yet)")
		return b.String()
	}
	if r.Error != nil {
		fmt.Fprintf(&b, "error (%s): %s\n\n", r.Error.Kind, r.Error.Message)
	}
	if r.Output != "" {
		b.WriteString(r.Output)
	} else if r.Success {
		b.WriteString("(no output)")
	}
	return b.String()
}

// prettyJSON formats a call's arguments, or its raw text when they did not parse.
func prettyJSON(c tools.Call) string {
	if c.ParseError != "" || len(c.Arguments) == 0 {
		if c.RawArguments == "" {
			return "{}"
		}
		return c.RawArguments
	}
	var v any
	if err := json.Unmarshal(c.Arguments, &v); err != nil {
		return string(c.Arguments)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(c.Arguments)
	}
	return string(b)
}
