package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// quitWindow is how long a first ctrl+c waits for the second.
const quitWindow = 2 * time.Second

// handleKey routes a key to the open pane or the input.
func (m *Model) handleKey(k tea.KeyMsg) tea.Cmd {
	ks := k.String()
	if ks == "ctrl+c" {
		return m.ctrlC()
	}
	if m.pane != nil {
		return m.paneKey(k)
	}
	if len(m.asks) > 0 {
		return m.approvalKey(k)
	}
	switch ks {
	case "esc":
		if m.running {
			m.cancelTurn()
		} else if m.focus != nil {
			m.setFocus(nil)
		}
		return nil
	case "pgup":
		m.scroll(max(m.transcriptHeight()-2, 1))
		return nil
	case "pgdown":
		m.scroll(-max(m.transcriptHeight()-2, 1))
		return nil
	case "end":
		if m.scrollBack > 0 {
			m.scrollBack, m.newOutput = 0, false
			return nil
		}
	case "ctrl+o":
		if e := m.lastResult(); e != nil {
			m.openPane(e)
		}
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return m.quit()
		}
	case "tab":
		if strings.HasPrefix(m.input.Value(), "/") {
			m.complete()
		} else {
			m.cycleFocus()
		}
		return nil
	case "enter":
		return m.submit()
	case "up", "down":
		if m.walkHistory(ks == "up") {
			return nil
		}
	case "ctrl+r":
		if m.canRetry && !m.running {
			return m.startRetry()
		}
		return nil
	}
	if m.focus != nil && ks != "shift+tab" {
		m.setFocus(nil)
	}
	m.quitWarn = time.Time{}
	// Give the input its full height while it takes the key, so it never
	// scrolls its first lines away before layout grows it to fit.
	m.input.SetHeight(m.maxInputRows())
	lines := m.input.LineCount()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	if n := m.input.LineCount(); n < lines && n <= m.maxInputRows() {
		m.unscrollInput()
	}
	m.layout()
	return cmd
}

// unscrollInput scrolls the input back to its first line, keeping the
// cursor, once every line fits again (the textarea keeps its offset when
// lines are deleted).
func (m *Model) unscrollInput() {
	row := m.input.Line()
	li := m.input.LineInfo()
	col := li.StartColumn + li.ColumnOffset
	m.input.SetValue(m.input.Value()) // back to the top, cursor at the end
	for m.input.Line() > row {
		m.input.CursorUp()
	}
	m.input.SetCursor(col)
}

func (m *Model) ctrlC() tea.Cmd {
	if m.running {
		m.cancelTurn()
		m.quitWarn = time.Now()
		return nil
	}
	if !m.quitWarn.IsZero() && time.Since(m.quitWarn) < quitWindow {
		return m.quit()
	}
	m.quitWarn = time.Now()
	m.input.Reset()
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.stop()
	return tea.Quit
}

// submit sends the input: a slash command, the focused result, or a prompt.
func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		if m.focus != nil {
			m.openPane(m.focus)
		}
		return nil
	}
	if strings.HasPrefix(text, "/") {
		m.input.Reset()
		m.layout()
		return m.command(text)
	}
	if m.running {
		m.add(&entry{kind: kindWarning, text: "a turn is running: wait for it or press esc to cancel it"})
		return nil
	}
	m.input.Reset()
	m.prompts = append(m.prompts, text)
	m.histIdx = len(m.prompts)
	m.setFocus(nil)
	return m.startTurn(text)
}

// walkHistory moves through earlier prompts when the input is empty or
// shows one of them; it reports whether it did.
func (m *Model) walkHistory(up bool) bool {
	cur := m.input.Value()
	walking := m.histIdx < len(m.prompts) && cur == m.prompts[m.histIdx]
	if cur != "" && !walking {
		return false
	}
	if up {
		if m.histIdx == 0 {
			return len(m.prompts) > 0
		}
		m.histIdx--
	} else {
		if m.histIdx >= len(m.prompts) {
			return false
		}
		m.histIdx++
	}
	if m.histIdx < len(m.prompts) {
		m.input.SetValue(m.prompts[m.histIdx])
	} else {
		m.input.Reset()
	}
	m.layout()
	return true
}

// cycleFocus moves focus to the previous tool block (from the newest).
func (m *Model) cycleFocus() {
	var blocks []*entry
	for _, e := range m.entries {
		if e.kind == kindTool && e.result != nil {
			blocks = append(blocks, e)
		}
	}
	if len(blocks) == 0 {
		return
	}
	next := blocks[len(blocks)-1]
	for i, e := range blocks {
		if e == m.focus {
			next = blocks[(i-1+len(blocks))%len(blocks)]
		}
	}
	m.setFocus(next)
	m.scrollTo(next)
}

// scrollTo scrolls the transcript so entry e is on screen (its top, when
// it is taller than the transcript).
func (m *Model) scrollTo(e *entry) {
	w := m.contentWidth()
	after := 1 // lines below e: its separator and the later entries
	i := len(m.entries) - 1
	for ; i >= 0 && m.entries[i] != e; i-- {
		after += len(m.render(m.entries[i], w)) + 1
	}
	if i < 0 {
		return
	}
	n, h := len(m.render(e, w)), m.transcriptHeight()
	switch {
	case after+n > m.scrollBack+h:
		m.scrollBack = after + n - h
	case after < m.scrollBack:
		m.scrollBack = after
	}
	if m.scrollBack <= 0 {
		m.scrollBack, m.newOutput = 0, false
	}
}

func (m *Model) setFocus(e *entry) {
	if m.focus != nil {
		m.focus.focused = false
		m.focus.invalidate()
	}
	m.focus = e
	if e != nil {
		e.focused = true
		e.invalidate()
	}
}

func (m *Model) lastResult() *entry {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if e := m.entries[i]; e.kind == kindTool && e.result != nil {
			return e
		}
	}
	return nil
}

// openPane shows a tool result in full.
func (m *Model) openPane(e *entry) {
	vp := viewport.New(m.width, max(m.height-4, 3))
	lines := wrapPlain(resultText(e), m.width)
	vp.SetContent(strings.Join(lines, "\n"))
	m.pane, m.paneEntry = &vp, e
	m.input.Blur()
}

func (m *Model) paneKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc", "q":
		m.pane, m.paneEntry = nil, nil
		if len(m.asks) == 0 {
			m.input.Focus()
		}
		return nil
	}
	vp, cmd := m.pane.Update(k)
	m.pane = &vp
	return cmd
}
