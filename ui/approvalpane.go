package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"tact/agent"
	"tact/approval"
)

// approvalKey answers the first queued approval request.
func (m *Model) approvalKey(k tea.KeyMsg) tea.Cmd {
	r := m.asks[0]
	if m.reasoning {
		switch k.String() {
		case "esc":
			m.reasoning = false
			m.reason.Blur()
			m.layout()
			return nil
		case "enter":
			reason := strings.TrimSpace(m.reason.Value())
			if reason == "" {
				reason = "the user denied this call"
			}
			m.answer(agent.Decision{Allow: false, Source: agent.SourceUser, Reason: reason})
			return nil
		}
		var cmd tea.Cmd
		m.reason, cmd = m.reason.Update(k)
		return cmd
	}
	switch k.String() {
	case "y":
		m.answer(agent.Decision{Allow: true, Source: agent.SourceUser, Reason: "allowed once"})
	case "s":
		if m.opts.Policy == nil {
			return nil
		}
		rule, label := m.opts.Policy.SessionScope(r.req)
		if rule.Tool == "" {
			m.add(&entry{kind: kindWarning, text: noScope + ": " + label})
			return nil
		}
		if err := m.opts.Policy.AddSessionRule(rule); err != nil {
			m.add(&entry{kind: kindError, text: err.Error()})
			return nil
		}
		m.addBefore(m.toolByID[callKey(r.req.Call)], &entry{kind: kindNotice, text: "allowed for this session: " + label + " (/permissions to review)"})
		m.answer(agent.Decision{Allow: true, Source: agent.SourceUser, Reason: "allowed for the session", Rule: sessionRulePrefix + scopeName(rule)})
	case "n":
		m.answer(agent.Decision{Allow: false, Source: agent.SourceUser, Reason: "the user denied this call"})
	case "d":
		m.reasoning = true
		m.reason.Reset()
		m.reason.Focus()
		m.layout()
	case "esc":
		m.answer(agent.Decision{Allow: false, Source: agent.SourceUser, Reason: "the user denied this call and stopped the turn", StopTurn: true})
	case "pgup", "pgdown", "up", "down":
		m.approvalScroll(k.String())
	}
	return nil
}

// approvalScroll scrolls the pane's arguments when they do not fit, and the
// transcript (pgup/pgdn only) when they do.
func (m *Model) approvalScroll(key string) {
	page := max(m.argRoom-2, 1)
	if !m.argOverflow {
		switch key {
		case "pgup":
			m.scroll(max(m.transcriptHeight()-2, 1))
		case "pgdown":
			m.scroll(-max(m.transcriptHeight()-2, 1))
		}
		return
	}
	switch key {
	case "pgup":
		m.argOff -= page
	case "pgdown":
		m.argOff += page
	case "up":
		m.argOff--
	case "down":
		m.argOff++
	}
	m.argOff = max(m.argOff, 0) // approvalView clamps the other end
}

// sessionRulePrefix starts the Rule of a Decision made by pressing s; the
// rest names the scope ("`git status *`").
const sessionRulePrefix = "session: "

// noScope is said when "allow for this session" is not offered.
const noScope = "no safe session scope for this command"

// scopeName is the short name of a session rule: its command pattern in
// backticks, or "every TOOL call".
func scopeName(r approval.Rule) string {
	if r.Command != "" {
		return "`" + r.Command + "`"
	}
	return "every " + r.Tool + " call"
}

// scopeNote is the part of a session-scope label after the pattern, e.g.
// " (covers the first of 4 commands; the others still ask)".
func scopeNote(label string) string {
	if i := strings.Index(label, " ("); i >= 0 && strings.HasSuffix(label, ")") {
		return label[i:]
	}
	return ""
}

// addBefore inserts e just before the transcript entry at, or appends it
// when at is not in the transcript.
func (m *Model) addBefore(at, e *entry) {
	for i, x := range m.entries {
		if x == at && at != nil {
			m.entries = append(m.entries[:i], append([]*entry{e}, m.entries[i:]...)...)
			return
		}
	}
	m.add(e)
}

// answer replies to the first queued request and closes it.
func (m *Model) answer(d agent.Decision) {
	r := m.asks[0]
	select {
	case r.reply <- d:
	default:
	}
	m.asks = m.asks[1:]
	m.argOff = 0
	m.reasoning = false
	m.reason.Blur()
	if len(m.asks) == 0 {
		m.input.Focus()
	}
	m.layout()
}

// dropStale removes requests whose turn has ended.
func (m *Model) dropStale() {
	kept := m.asks[:0]
	for _, a := range m.asks {
		if a.ctx == nil || a.ctx.Err() == nil {
			kept = append(kept, a)
		}
	}
	m.asks = kept
}

// approvalView renders the pane for the first queued request.
func (m *Model) approvalView(maxLines int) []string {
	r := m.asks[0]
	st := &m.st
	w := m.width
	spec := r.req.Spec
	kind := "needs approval"
	switch {
	case spec.Annotations.ReadOnly && !spec.Annotations.Destructive:
		kind = "read-only"
	case spec.Annotations.Destructive:
		kind = "destructive"
	case !spec.Annotations.ReadOnly:
		kind = "may change things"
	}
	source := spec.Source
	if source == "" {
		source = "unknown source"
	}
	title := fmt.Sprintf("Approve %s?", r.req.Call.Name)
	switch {
	case r.req.Total > 1:
		title += fmt.Sprintf("  (call %d of %d)", r.req.Index, r.req.Total)
	case len(m.asks) > 1:
		title += fmt.Sprintf("  (1 of %d)", len(m.asks))
	}
	out := []string{
		st.paneTitle.Render(truncate(title, w)),
		st.dim.Render(truncate(source+" · "+kind, w)),
	}
	var choices []string
	add := func(k, what string) { choices = append(choices, st.key.Render(k)+" "+what) }
	add("y", "allow once")
	if m.opts.Policy != nil {
		rule, label := m.opts.Policy.SessionScope(r.req)
		switch {
		case rule.Tool == "":
			choices = append(choices, st.dim.Render("("+noScope+": "+label+")"))
		case rule.Command != "":
			add("s", fmt.Sprintf("allow `%s` for this session%s", rule.Command, scopeNote(label)))
		default:
			add("s", "allow "+label)
		}
	}
	add("n", "deny")
	add("d", "deny with a reason")
	add("esc", "deny and stop")
	keys := flowJoin(choices, "   ", w)
	if m.reasoning {
		m.reason.Width = max(w-len(m.reason.Prompt)-2, 10)
		keys = []string{m.reason.View()} // the help line says "enter send reason · esc back"
	}
	room := maxLines - len(out) - len(keys) - 1 // 1: the border
	args := m.argLines(r.req, w-2)
	if room < 2 {
		room = 2
	}
	m.argRoom, m.argOverflow = room, len(args) > room
	if m.argOverflow {
		// A window of room-1 lines, then where it is and how to move it.
		show := room - 1
		m.argOff = min(max(m.argOff, 0), len(args)-show)
		end := m.argOff + show
		foot := fmt.Sprintf("  lines %d–%d of %d · pgup/pgdn ↑↓ scroll", m.argOff+1, end, len(args))
		args = append(args[m.argOff:end:end], st.dim.Render(truncate(foot, w)))
	} else {
		m.argOff = 0
	}
	out = append(out, args...)
	out = append(out, keys...)
	border := st.paneBorder.Render(strings.Repeat("─", max(w, 1)))
	return append([]string{border}, out...)
}

// flowJoin lays items out left to right, wrapping at width; an item wider
// than width gets lines of its own, its continuation indented.
func flowJoin(items []string, sep string, width int) []string {
	var lines []string
	cur := ""
	for _, it := range items {
		switch {
		case lipgloss.Width(it) > width:
			if cur != "" {
				lines = append(lines, cur)
				cur = ""
			}
			for i, l := range strings.Split(ansi.Wrap(it, max(width-2, 10), ""), "\n") {
				if i > 0 {
					l = "  " + l
				}
				lines = append(lines, l)
			}
		case cur == "":
			cur = it
		case lipgloss.Width(cur)+len(sep)+lipgloss.Width(it) <= width:
			cur += sep + it
		default:
			lines = append(lines, cur)
			cur = it
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// argLines formats a call's arguments for the pane: the command for shell,
// a diff for write_file over an existing file, pretty JSON otherwise.
func (m *Model) argLines(req agent.ApprovalRequest, width int) []string {
	st := &m.st
	var args map[string]any
	_ = json.Unmarshal(req.Call.Arguments, &args)
	if cmd, ok := args["command"].(string); ok {
		var out []string
		for i, l := range wrapPlain(cmd, width-2) {
			p := "  "
			if i == 0 {
				p = "$ "
			}
			out = append(out, "  "+st.userText.Render(p+l))
		}
		if wd, ok := args["workdir"].(string); ok && wd != "" {
			out = append(out, "  "+st.dim.Render("in "+wd))
		}
		return out
	}
	path, _ := args["path"].(string)
	switch req.Call.Name {
	case "write_file":
		content, _ := args["content"].(string)
		if old, err := os.ReadFile(m.resolve(path)); err == nil && path != "" {
			return m.diffLines("--- "+path+" (current)", string(old), content, width)
		}
		if path != "" {
			head := []string{"  " + st.dim.Render("new file "+path)}
			return append(head, m.diffLines("", "", content, width)...)
		}
	case "edit_file":
		o, _ := args["old_string"].(string)
		n, _ := args["new_string"].(string)
		if path != "" && (o != "" || n != "") {
			return m.diffLines("--- "+path, o, n, width)
		}
	}
	var out []string
	for _, l := range strings.Split(prettyJSON(req.Call), "\n") {
		out = append(out, "  "+truncate(l, width-2))
	}
	return out
}

func (m *Model) resolve(p string) string {
	if filepath.IsAbs(p) || m.opts.Workdir == "" {
		return p
	}
	return filepath.Join(m.opts.Workdir, p)
}

// diffLines renders a line diff of old and new.
func (m *Model) diffLines(header, old, new string, width int) []string {
	st := &m.st
	var out []string
	if header != "" {
		out = append(out, "  "+st.dim.Render(truncate(header, width-2)))
	}
	for _, d := range lineDiff(splitLines(old), splitLines(new)) {
		l := truncate(strings.ReplaceAll(d.text, "\t", "    "), width-4)
		switch d.op {
		case '+':
			out = append(out, "  "+st.diffAdd.Render("+ "+l))
		case '-':
			out = append(out, "  "+st.diffDel.Render("- "+l))
		default:
			out = append(out, "  "+st.dim.Render("  "+l))
		}
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type diffLine struct {
	op   byte // ' ', '+', '-'
	text string
}

// lineDiff is a longest-common-subsequence line diff that keeps only the
// changed lines and up to two lines of context around them. Inputs too
// large for the table are shown as all-removed, all-added.
func lineDiff(a, b []string) []diffLine {
	// Trim the common prefix and suffix first; most edits are local.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var mid []diffLine
	if len(am)*len(bm) > 4_000_000 {
		for _, l := range am {
			mid = append(mid, diffLine{'-', l})
		}
		for _, l := range bm {
			mid = append(mid, diffLine{'+', l})
		}
	} else {
		mid = lcsDiff(am, bm)
	}
	var all []diffLine
	for _, l := range a[:pre] {
		all = append(all, diffLine{' ', l})
	}
	all = append(all, mid...)
	for _, l := range a[len(a)-suf:] {
		all = append(all, diffLine{' ', l})
	}
	// Keep two lines of context around changes.
	const ctx = 2
	keep := make([]bool, len(all))
	for i, d := range all {
		if d.op != ' ' {
			for j := max(0, i-ctx); j <= min(len(all)-1, i+ctx); j++ {
				keep[j] = true
			}
		}
	}
	var out []diffLine
	skipped := false
	for i, d := range all {
		if keep[i] {
			out = append(out, d)
			skipped = false
		} else if !skipped && len(out) > 0 {
			out = append(out, diffLine{' ', "…"})
			skipped = true
		}
	}
	return out
}

func lcsDiff(a, b []string) []diffLine {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, diffLine{'-', a[i]})
	}
	for ; j < m; j++ {
		out = append(out, diffLine{'+', b[j]})
	}
	return out
}
