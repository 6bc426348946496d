// Package ui is tact's terminal interface, a Bubble Tea program: a transcript
// with live streaming markdown, an input box, a status bar, the approval and
// result panes, and slash commands. It drives one agent.Agent and never runs
// tools or talks HTTP itself.
package ui

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"tact/agent"
	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/approval"
	"tact/tools"
)

// ToolSetInfo describes one tool set for /toolsets.
type ToolSetInfo struct {
	Name        string
	Description string
	Active      bool
	Tools       []string
}

// Catalog gives the UI the tool sets; main implements it.
type Catalog interface {
	// ToolSets lists the available sets, active ones marked.
	ToolSets() []ToolSetInfo
	// Tools returns the active tools.
	Tools() []tools.Spec
	// Activate makes the named sets the active ones, now; notice describes the
	// result, e.g. "tool sets: coding, web — 9 tools".
	Activate(names []string) (notice string, err error)
	// Stats returns the tool call statistics for /stats.
	Stats() []tools.ToolStats
}

// ConfigUpdate tells the program that the config file changed: Notice says
// what was applied, or Err why the edit was rejected (the old config stays).
type ConfigUpdate struct {
	Notice string
	Err    error
}

// Options configure the UI.
type Options struct {
	// Agent runs the conversation. Required.
	Agent *agent.Agent
	// Asker is the Approver given to the approval Policy; its questions open
	// the approval pane. Nil means nothing is ever asked.
	Asker *Asker
	// Policy adds "allow for this session" rules and serves /permissions; may be nil.
	Policy *approval.Policy
	// Catalog serves /toolsets, /toolset, /tools and /stats; may be nil.
	Catalog Catalog
	// Model is the model name to show (default: the agent's).
	Model string
	// Demo marks the offline demo model; it is labelled everywhere.
	Demo bool
	// Workdir is the workspace, shown in the status bar and used to diff write_file calls.
	Workdir string
	// Theme is dark, light or auto (auto is detected once by Run; New treats it as dark).
	// NO_COLOR in the environment turns colours off.
	Theme string
	// History is a resumed session, shown first.
	History []llm.Message
	// Updates delivers ConfigUpdate (or any other message) into the program.
	Updates <-chan tea.Msg
	// Protocols returns a protocol by name for /protocol (protocol.ForName).
	Protocols func(name string) (protocol.Protocol, error)
	// Warnings are start-up problems (a skill that failed to load, an MCP
	// server that did not start), shown first.
	Warnings []string
	// OnClear is called by /clear after the agent's history is reset (main
	// starts a new session file there); may be nil.
	OnClear func()
	// Input and Output replace the terminal when set (tests).
	Input  io.Reader
	Output io.Writer
	// ProgramOptions are added to the tea.Program Run creates.
	ProgramOptions []tea.ProgramOption
}

// Model is the Bubble Tea model of tact's UI. Use it through a pointer.
type Model struct {
	opts  Options
	st    styles
	md    *markdown
	theme theme

	width, height int
	ready         bool

	entries    []*entry
	streaming  *entry
	toolByID   map[string]*entry
	scrollBack int // lines scrolled up from the bottom; 0 follows new output
	newOutput  bool
	focus      *entry

	input    textarea.Model
	spin     spinner.Model
	bridge   *bridge
	done     chan struct{}
	prompts  []string
	histIdx  int // index into prompts while walking history; len(prompts) when not
	quitWarn time.Time

	running    bool
	cancel     context.CancelFunc
	cancelling bool
	phase      string
	phaseStart time.Time
	lastPrompt string
	canRetry   bool
	tokens     int

	asks      []*askRequest
	reasoning bool
	// The approval pane's argument view: first line shown, lines of room,
	// whether the arguments overflow it (set by approvalView).
	argOff, argRoom int
	argOverflow     bool
	reason          textinput.Model

	pane      *viewport.Model
	paneEntry *entry

	labelReg   *tools.Registry // the registry labelCache describes
	labelCache string
	labelValid bool
}

// New returns the UI model for opts.
func New(opts Options) *Model {
	if opts.Model == "" && opts.Agent != nil {
		opts.Model = opts.Agent.Model()
	}
	th := resolveTheme(opts.Theme, false)
	m := &Model{
		opts:     opts,
		theme:    th,
		st:       newStyles(th),
		md:       newMarkdown(th.glamourStyle()),
		toolByID: map[string]*entry{},
		bridge:   newBridge(),
		done:     make(chan struct{}),
		width:    80,
		height:   24,
	}
	ta := textarea.New()
	ta.Placeholder = "Ask anything — /help for commands"
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	ta.FocusedStyle.CursorLine = ta.FocusedStyle.Base
	ta.Focus()
	m.input = ta
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(m.st.spinner))
	ri := textinput.New()
	ri.Prompt = "reason: "
	ri.Placeholder = "why not? (sent to the model)"
	m.reason = ri
	m.loadHistory(opts.History)
	for _, w := range opts.Warnings {
		m.add(&entry{kind: kindWarning, text: w})
	}
	if opts.Demo {
		m.add(&entry{kind: kindNotice, text: m.modelLabel() + ": answers come from a built-in offline demo, not a real model; configure base_url and an API key to use one"})
	}
	m.layout()
	return m
}

// Init starts the Cmds that wait for agent events, approval requests and
// config updates.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{textarea.Blink, m.bridge.wait(m.done)}
	if m.opts.Asker != nil {
		cmds = append(cmds, m.opts.Asker.wait(m.done))
	}
	if m.opts.Updates != nil {
		cmds = append(cmds, m.waitUpdate())
	}
	return tea.Batch(cmds...)
}

func (m *Model) waitUpdate() tea.Cmd {
	ch, done := m.opts.Updates, m.done
	return func() tea.Msg {
		select {
		case msg, ok := <-ch:
			if !ok {
				return nil
			}
			return updateMsg{msg}
		case <-done:
			return nil
		}
	}
}

// updateMsg wraps a message from Options.Updates.
type updateMsg struct{ msg tea.Msg }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	// While scrolled up, keep the view where it is as the bottom grows.
	anchored := m.scrollBack > 0
	mark, before := 0, 0
	if anchored {
		mark = m.firstMutable()
		before = m.heightFrom(mark)
	}
	cmd := m.update(msg)
	if anchored && m.scrollBack > 0 {
		if after := m.heightFrom(mark); after != before {
			m.scrollBack += after - before
			m.newOutput = true
		}
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height, m.ready = msg.Width, msg.Height, true
		m.scrollBack = 0
		m.layout()
		return nil
	case eventsMsg:
		for _, ev := range msg.events {
			m.handleEvent(ev)
		}
		m.dropStale()
		return m.bridge.wait(m.done)
	case askMsg:
		m.asks = append(m.asks, msg.r)
		m.input.Blur()
		m.layout()
		return m.opts.Asker.wait(m.done)
	case updateMsg:
		if cu, ok := msg.msg.(ConfigUpdate); ok {
			m.configUpdate(cu)
			return m.waitUpdate()
		}
		cmd := m.update(msg.msg)
		return tea.Batch(cmd, m.waitUpdate())
	case ConfigUpdate:
		m.configUpdate(msg)
		return nil
	case spinner.TickMsg:
		if !m.running {
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.scroll(3)
		case tea.MouseButtonWheelDown:
			m.scroll(-3)
		}
		return nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

func (m *Model) configUpdate(cu ConfigUpdate) {
	m.labelValid = false
	if cu.Err != nil {
		m.add(&entry{kind: kindError, text: "config not applied (the old config stays): " + cu.Err.Error()})
	}
	if cu.Notice != "" {
		m.add(&entry{kind: kindNotice, text: cu.Notice})
	}
}

// handleEvent applies one agent event to the transcript.
func (m *Model) handleEvent(ev agent.Event) {
	switch ev.Type {
	case agent.EventText:
		if m.streaming == nil {
			m.streaming = &entry{kind: kindAssistant, stream: &mdStream{md: m.md}}
			m.add(m.streaming)
		}
		m.streaming.stream.append(ev.Text)
		m.setPhase("answering")
	case agent.EventToolCall:
		m.endStream()
		e := &entry{kind: kindTool, call: *ev.Call, spec: ev.Spec}
		m.toolByID[callKey(*ev.Call)] = e
		m.add(e)
		m.setPhase("running " + ev.Call.Name)
	case agent.EventApproval:
		m.endStream()
		if e := m.toolEntry(ev); e != nil {
			e.decision = ev.Decision
			e.invalidate()
		}
		m.setPhase("running " + ev.Call.Name)
	case agent.EventToolResult:
		// The next model response starts a new assistant block.
		m.endStream()
		e := m.toolEntry(ev)
		e.result = ev.Result
		e.invalidate()
		m.setPhase("waiting for the model")
	case agent.EventWarning:
		m.endStream()
		m.add(&entry{kind: kindWarning, text: ev.Message})
	case agent.EventUsage:
		if ev.Usage != nil {
			m.tokens += ev.Usage.TotalTokens
		}
	case agent.EventError:
		m.endStream()
		m.add(&entry{kind: kindError, text: ev.Message + "\npress ctrl+r to retry"})
		m.canRetry = m.lastPrompt != ""
	case agent.EventDone:
		m.endStream()
		if ev.Reason == agent.DoneCancelled {
			m.add(&entry{kind: kindNotice, text: "turn stopped; what was said is kept"})
		}
		m.finishTurn()
	}
}

func callKey(c tools.Call) string { return c.ID + "\x00" + c.Name }

// toolEntry finds the block of an event's call, creating it when the call
// was never announced (calls skipped after a stop).
func (m *Model) toolEntry(ev agent.Event) *entry {
	if e, ok := m.toolByID[callKey(*ev.Call)]; ok {
		return e
	}
	m.endStream()
	e := &entry{kind: kindTool, call: *ev.Call, spec: ev.Spec}
	m.toolByID[callKey(*ev.Call)] = e
	m.add(e)
	return e
}

func (m *Model) setPhase(p string) {
	if m.phase != p {
		m.phase, m.phaseStart = p, time.Now()
	}
}

// endStream marks the streaming message complete (rendered once in full).
func (m *Model) endStream() {
	if m.streaming != nil {
		m.streaming.done = true
		m.streaming.invalidate()
		m.streaming = nil
	}
}

func (m *Model) finishTurn() {
	m.running, m.cancelling = false, false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	for _, a := range m.asks {
		select {
		case a.reply <- agent.Decision{Source: agent.SourceUser, Reason: "the turn ended"}:
		default:
		}
	}
	m.asks, m.reasoning, m.argOff = nil, false, 0
	m.input.Focus()
	m.layout()
}

// add appends an entry to the transcript.
func (m *Model) add(e *entry) { m.entries = append(m.entries, e) }

// startTurn sends prompt to the agent in a goroutine.
func (m *Model) startTurn(prompt string) tea.Cmd {
	if m.opts.Agent == nil {
		m.add(&entry{kind: kindError, text: "no agent is configured"})
		return nil
	}
	m.add(&entry{kind: kindUser, text: prompt})
	m.lastPrompt = prompt
	ag := m.opts.Agent
	return m.launch(func(ctx context.Context, sink agent.Sink) { _ = ag.Run(ctx, prompt, sink) })
}

// startRetry runs the failed turn again; the agent still has the user's
// message, so it is not sent twice.
func (m *Model) startRetry() tea.Cmd {
	m.add(&entry{kind: kindNotice, text: "retrying: " + oneLinePreview(m.lastPrompt)})
	ag := m.opts.Agent
	return m.launch(func(ctx context.Context, sink agent.Sink) { _ = ag.Retry(ctx, sink) })
}

// launch starts a turn in the background; its error arrives as an EventError.
func (m *Model) launch(turn func(context.Context, agent.Sink)) tea.Cmd {
	m.canRetry = false
	m.scrollBack, m.newOutput = 0, false
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel, m.running, m.cancelling = cancel, true, false
	m.phase, m.phaseStart = "", time.Time{}
	m.setPhase("waiting for the model")
	m.layout()
	sink := m.bridge.sink()
	run := func() tea.Msg {
		turn(ctx, sink)
		return nil
	}
	return tea.Batch(run, m.spin.Tick)
}

// oneLinePreview is the start of s on one line.
func oneLinePreview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// cancelTurn stops the running turn; what was said stays.
func (m *Model) cancelTurn() {
	if m.running && m.cancel != nil {
		m.cancel()
		m.cancelling = true
		m.setPhase("cancelling")
	}
}

// firstMutable is the index of the first entry later events may change.
func (m *Model) firstMutable() int {
	for i, e := range m.entries {
		if e == m.streaming || (e.kind == kindTool && e.result == nil) {
			return i
		}
	}
	return len(m.entries)
}

// heightFrom is the rendered height of entries[i:].
func (m *Model) heightFrom(i int) int {
	h := 0
	w := m.contentWidth()
	for ; i < len(m.entries); i++ {
		h += len(m.render(m.entries[i], w)) + 1
	}
	return h
}

// scroll moves the transcript up (n > 0) or down.
func (m *Model) scroll(n int) {
	m.scrollBack += n
	if m.scrollBack <= 0 {
		m.scrollBack, m.newOutput = 0, false
		return
	}
	// Clamp at the top, rendering only as much as needed.
	h := m.transcriptHeight()
	need := m.scrollBack + h
	total, w := 0, m.contentWidth()
	for i := len(m.entries) - 1; i >= 0 && total < need; i-- {
		total += len(m.render(m.entries[i], w)) + 1
	}
	if total < need {
		m.scrollBack = max(0, total-h)
	}
}
