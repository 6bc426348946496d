package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"tact/tools"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// maxInputRows is the most text rows the input box grows to: a third of
// the window, between 3 and 12.
func (m *Model) maxInputRows() int { return min(max(m.height/3, 3), 12) }

// inputHeight is the number of text rows of the input box.
func (m *Model) inputHeight() int {
	// Count wrapped rows, not only lines: one long line needs several.
	w := max(m.input.Width(), 1)
	n := 0
	for _, line := range strings.Split(m.input.Value(), "\n") {
		n += wrappedRows(line, w)
	}
	return min(max(n, 1), m.maxInputRows())
}

// wrappedRows counts the rows a line takes when wrapped at word boundaries
// to width w, as the input box wraps it (over-long words are cut).
func wrappedRows(line string, w int) int {
	rows, col := 1, 0
	for _, word := range strings.SplitAfter(line, " ") {
		ww := ansi.StringWidth(word)
		if col > 0 && col+ww > w {
			rows, col = rows+1, 0
		}
		for ww > w {
			rows, ww = rows+1, ww-w
		}
		col += ww
	}
	return rows
}

// layout sizes the input for the window.
func (m *Model) layout() {
	m.input.SetWidth(max(m.width, 10))
	m.input.SetHeight(m.inputHeight())
}

// contentWidth is the width transcript entries are rendered for.
func (m *Model) contentWidth() int { return max(m.width-1, 20) }

// bottomHeight is the number of rows under the transcript.
func (m *Model) bottomHeight() int {
	h := 2 // status bar and key help
	if m.running {
		h++ // spinner
	}
	if len(m.asks) > 0 {
		h += len(m.approvalView(m.paneMax()))
	} else {
		h += m.inputHeight() + 1 // input and its rule
	}
	return h
}

// paneMax bounds the approval pane so the transcript stays readable.
func (m *Model) paneMax() int { return max(m.height/2, 6) }

func (m *Model) transcriptHeight() int { return max(m.height-m.bottomHeight(), 1) }

// View draws the screen. It touches only the visible part of the
// transcript; every entry's lines are cached.
func (m *Model) View() string {
	if m.pane != nil {
		return m.paneView()
	}
	var b strings.Builder
	bottom := m.bottomLines()
	th := max(m.height-len(bottom), 1)
	for _, l := range m.transcriptLines(th) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for i, l := range bottom {
		b.WriteString(l)
		if i < len(bottom)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (m *Model) bottomLines() []string {
	st := &m.st
	var out []string
	if m.running {
		secs := int(time.Since(m.phaseStart).Seconds())
		label := m.phase
		if len(m.asks) > 0 {
			label = "waiting for your approval"
		}
		out = append(out, m.spin.View()+" "+st.dim.Render(fmt.Sprintf("%s… %ds", label, secs)))
	}
	if len(m.asks) > 0 {
		out = append(out, m.approvalView(m.paneMax())...)
	} else {
		out = append(out, st.dim.Render(strings.Repeat("─", max(m.width, 1))))
		out = append(out, strings.Split(m.input.View(), "\n")...)
	}
	out = append(out, m.statusBar(), m.helpLine())
	return out
}

// transcriptLines returns exactly h lines of the transcript, scrolled
// scrollBack lines up from the bottom.
func (m *Model) transcriptLines(h int) []string {
	w := m.contentWidth()
	need := h + m.scrollBack
	var chunks [][]string // newest first
	total := 0
	for i := len(m.entries) - 1; i >= 0 && total < need; i-- {
		ls := m.render(m.entries[i], w)
		chunks = append(chunks, ls)
		total += len(ls) + 1
	}
	back := m.scrollBack
	if total < need {
		back = max(0, total-h)
	}
	// Lines [start, end) of the collected block, counted from its top.
	end := total - back
	start := max(end-h, 0)
	out := make([]string, 0, h)
	for i := end - start; i < h; i++ {
		out = append(out, "") // short transcript: pad at the top
	}
	pos := 0
	for c := len(chunks) - 1; c >= 0 && pos < end; c-- {
		ls := chunks[c]
		for j := 0; j <= len(ls) && pos < end; j++ {
			if pos >= start {
				l := ""
				if j < len(ls) {
					l = ls[j]
				}
				out = append(out, ansi.Truncate(l, m.width, ""))
			}
			pos++
		}
	}
	if m.scrollBack > 0 && m.newOutput && len(out) > 0 {
		out[len(out)-1] = m.st.newOutput.Render(" ↓ new output (end) ")
	}
	return out
}

// statusBar shows the model, protocol, tools, tokens and workspace. When
// the full form is too wide it drops the tool sets' names and words, then
// shortens the folder with … in the middle.
func (m *Model) statusBar() string {
	st := &m.st
	proto := ""
	if m.opts.Agent != nil {
		proto = m.opts.Agent.Protocol().Name()
	}
	wd := m.workdirLabel()
	join := func(parts ...string) string {
		var keep []string
		for _, p := range parts {
			if p != "" {
				keep = append(keep, p)
			}
		}
		return " " + strings.Join(keep, " │ ") + " "
	}
	full := []string{m.modelLabel(), "", m.toolsLabel(), fmt.Sprintf("%d tokens", m.tokens)}
	if proto != "" {
		full[1] = "protocol " + proto
	}
	s := join(append(full, wd)...)
	if ansi.StringWidth(s) > m.width {
		model := m.modelLabel()
		if m.opts.Demo {
			model = strings.Replace(model, " (offline demo)", " (demo)", 1)
		}
		short := []string{model, proto, m.toolCount(), fmt.Sprintf("%d tokens", m.tokens)}
		room := m.width - ansi.StringWidth(join(short...)) - 3
		if wd != "" && room < 12 {
			short[3] = fmt.Sprintf("%d tok", m.tokens)
			room = m.width - ansi.StringWidth(join(short...)) - 3
		}
		if wd != "" {
			short = append(short, middleCut(wd, max(room, 8)))
		}
		s = join(short...)
	}
	s = ansi.Truncate(s, m.width, "…")
	if pad := m.width - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return st.status.Render(s)
}

// middleCut shortens s to width runes with … in the middle, keeping its
// end (a folder's own name) longer than its start.
func middleCut(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	tail := (width - 1) * 2 / 3
	head := width - 1 - tail
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// modelLabel names the model, marking the offline demo.
func (m *Model) modelLabel() string {
	name := m.opts.Model
	if m.opts.Agent != nil {
		name = m.opts.Agent.Model()
	}
	if m.opts.Demo && !strings.Contains(name, "offline") {
		return name + " (offline demo)"
	}
	return name
}

// toolsLabel names the active tool sets and counts the tools. It is cached
// until the registry changes or a tool-set command or config update
// invalidates it, so View stays cheap.
func (m *Model) toolsLabel() string {
	var reg *tools.Registry
	if m.opts.Agent != nil && m.opts.Agent.Executor() != nil {
		reg = m.opts.Agent.Executor().Registry()
	}
	if m.labelValid && reg == m.labelReg {
		return m.labelCache
	}
	m.labelReg, m.labelCache, m.labelValid = reg, m.computeToolsLabel(), true
	return m.labelCache
}

func (m *Model) computeToolsLabel() string {
	if c := m.opts.Catalog; c != nil {
		var active []string
		for _, ts := range c.ToolSets() {
			if ts.Active {
				active = append(active, ts.Name)
			}
		}
		n := len(c.Tools())
		if len(active) == 0 {
			return fmt.Sprintf("%d tool%s", n, plural(n))
		}
		return fmt.Sprintf("%s (%d tool%s)", strings.Join(active, ", "), n, plural(n))
	}
	if m.opts.Agent != nil && m.opts.Agent.Executor() != nil {
		n := m.opts.Agent.Executor().Registry().Len()
		return fmt.Sprintf("%d tool%s", n, plural(n))
	}
	return "no tools"
}

// toolCount is the short form of toolsLabel: "3 tools" without set names.
func (m *Model) toolCount() string {
	l := m.toolsLabel()
	if i := strings.LastIndex(l, " ("); i >= 0 && strings.HasSuffix(l, ")") {
		return l[i+2 : len(l)-1]
	}
	return l
}

func (m *Model) workdirLabel() string {
	wd := m.opts.Workdir
	if wd == "" {
		return ""
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, wd); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return wd
}

// helpLine lists the keys that matter now. When the line is too wide the
// items before the last are dropped from the end, so the last one (how to
// quit or get back) always shows.
func (m *Model) helpLine() string {
	var items []string
	switch {
	case len(m.asks) > 0 && m.reasoning:
		items = []string{"enter send reason", "esc back"}
	case len(m.asks) > 0:
		items = []string{"y allow", "s session", "n deny", "d reason", "pgup/pgdn scroll", "esc deny+stop"}
	case m.running:
		items = []string{"esc cancel", "pgup/pgdn scroll", "ctrl+o last result", "ctrl+c cancel"}
	case m.canRetry:
		items = []string{"ctrl+r retry", "enter send", "↑↓ history", "tab results", "ctrl+o last result", "ctrl+d quit"}
	case !m.quitWarn.IsZero() && time.Since(m.quitWarn) < quitWindow:
		items = []string{"press ctrl+c again to quit"}
	case m.focus != nil:
		items = []string{"enter open result", "tab next block", "esc unfocus"}
	default:
		items = []string{"enter send", "ctrl+j newline", "↑↓ history", "tab results", "ctrl+o result", "/help", "ctrl+d quit"}
	}
	s := " " + strings.Join(items, " · ")
	for len(items) > 2 && ansi.StringWidth(s) > m.width {
		items = append(items[:len(items)-2], items[len(items)-1])
		s = " " + strings.Join(items, " · ")
	}
	return m.st.help.Render(ansi.Truncate(s, m.width, "…"))
}

// paneView shows a full tool result.
func (m *Model) paneView() string {
	st := &m.st
	e := m.paneEntry
	mark := st.ok.Render("✓")
	if e.result != nil && !e.result.Success {
		mark = st.fail.Render("✗")
	}
	dur := ""
	if e.result != nil && e.result.Duration > 0 {
		dur = " · " + formatDuration(e.result.Duration)
	}
	title := fmt.Sprintf("%s %s%s", mark, st.tool.Render(e.call.Name), st.dim.Render(dur))
	m.pane.Width, m.pane.Height = m.width, max(m.height-3, 1)
	foot := st.help.Render(ansi.Truncate(fmt.Sprintf(" esc close · ↑↓ pgup/pgdn scroll · %d%%", int(m.pane.ScrollPercent()*100)), m.width, "…"))
	return strings.Join([]string{title, st.dim.Render(strings.Repeat("─", max(m.width, 1))), m.pane.View(), foot}, "\n")
}
