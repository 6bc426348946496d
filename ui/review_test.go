package ui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	openai "github.com/sashabaranov/go-openai"

	"tact/agent"
	"tact/agent/llm"
	"tact/approval"
	"tact/internal/fakeopenai"
	"tact/tools"
)

// squash drops escape codes and all white space, so text split over lines
// can be searched for.
func squash(s string) string {
	return strings.Join(strings.Fields(ansi.Strip(s)), "")
}

func sized(m *Model, w, h int) *Model {
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// keyRunes types s, drawing a frame after each key as the program does.
func keyRunes(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		m.View()
	}
}

// Fix 1: long words, URLs and code lines wrap instead of being cut.
func TestLongWordsWrapNotCut(t *testing.T) {
	word := strings.Repeat("abcdefghij", 25) // 250 characters
	url := "https://example.com/" + strings.Repeat("segment/", 20) + "URLEND"
	code := `const s = "` + strings.Repeat("0123456789", 14) + `CODEEND"`
	src := "A word: " + word + "\n\nA link: " + url + "\n\n```go\n" + code + "\n```\n"
	for _, done := range []bool{true, false} {
		m := sized(New(Options{Model: "m", Theme: "dark"}), 100, 60)
		s := &mdStream{md: m.md}
		s.append(src)
		e := &entry{kind: kindAssistant, stream: s, done: done}
		m.add(e)
		v := checkFrame(t, m, 100, 60)
		got := squash(v)
		for _, want := range []string{word, url, squash(code)} {
			if !strings.Contains(got, want) {
				t.Errorf("done=%v: the screen lost part of %q:\n%s", done, want[len(want)-12:], v)
			}
		}
	}
}

// Fix 2: a resumed text-protocol session shows no markup and no fake prompts.
func TestResumedTextProtocolSession(t *testing.T) {
	hist := []llm.Message{
		{Role: openai.ChatMessageRoleUser, Content: "what is 15*23"},
		{Role: openai.ChatMessageRoleAssistant, Content: "Let me compute that.\n\n" + calcTag},
		{Role: openai.ChatMessageRoleUser, Content: "[Tool result for calculator]\n345"},
		{Role: openai.ChatMessageRoleAssistant, Content: "Two more." + `<tool_action name="current_time"></tool_action>` + `<tool_action name="shell"><command value="ls" /></tool_action>`},
		{Role: openai.ChatMessageRoleUser, Content: "[Tool result for current_time]\n12:00\n\n[Tool result for shell]\nerror (denied): the user denied this call"},
		{Role: openai.ChatMessageRoleAssistant, Content: "Checking.\n```json\n{\"tool\": \"http_fetch\", \"parameters\": {\"url\": \"x\"}}\n```\n"},
		{Role: openai.ChatMessageRoleUser, Content: "[Tool result for http_fetch]\nfetched"},
		{Role: openai.ChatMessageRoleAssistant, Content: "The product is 345."},
	}
	m := sized(New(Options{Model: "m", Theme: "dark", History: hist}), 100, 50)
	v := m.View()
	for _, bad := range []string{"<tool_action", "tool_action>", "[Tool result for", "› 345", `"parameters"`} {
		if strings.Contains(v, bad) {
			t.Errorf("the resumed session shows %q:\n%s", bad, v)
		}
	}
	for _, want := range []string{"Let me compute that.", "calculator", "345", "current_time", "The product is 345."} {
		if !strings.Contains(v, want) {
			t.Errorf("the resumed session lacks %q:\n%s", want, v)
		}
	}
	if len(m.prompts) != 1 || m.prompts[0] != "what is 15*23" {
		t.Errorf("prompt history = %q, want only the typed prompt", m.prompts)
	}
	var blocks []*entry
	for _, e := range m.entries {
		if e.kind == kindTool {
			blocks = append(blocks, e)
		}
		if e.kind == kindUser && strings.Contains(e.text, "Tool result") {
			t.Errorf("a tool result is shown as a prompt: %q", e.text)
		}
	}
	if len(blocks) != 4 {
		t.Fatalf("got %d tool blocks, want 4 (one per call)", len(blocks))
	}
	names := []string{"calculator", "current_time", "shell", "http_fetch"}
	for i, b := range blocks {
		if b.call.Name != names[i] || b.result == nil {
			t.Errorf("block %d = %s with result %v, want %s with a result", i, b.call.Name, b.result, names[i])
		}
	}
	if r := blocks[2].result; r == nil || r.Success || r.Error == nil || r.Error.Kind != tools.KindDenied {
		t.Errorf("the denied shell result came back as %+v", r)
	}
	if r := blocks[0].result; r == nil || !r.Success || strings.TrimSpace(r.Output) != "345" {
		t.Errorf("the calculator result came back as %+v", r)
	}
}

// Fix 3: failed native results come back failed, with their kind.
func TestResumedFailedResults(t *testing.T) {
	call := func(id string) openai.ToolCall {
		return openai.ToolCall{ID: id, Type: "function", Function: openai.FunctionCall{Name: "shell", Arguments: `{"command":"make"}`}}
	}
	hist := []llm.Message{
		{Role: "user", Content: "build"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{call("a"), call("b"), call("c")}},
		{Role: "tool", ToolCallID: "a", Content: "error (execution_failed): exit status 2\nmake: *** no rule"},
		{Role: "tool", ToolCallID: "b", Content: "error (denied): the user denied this call"},
		{Role: "tool", ToolCallID: "c", Content: "built"},
	}
	m := sized(New(Options{Model: "m", Theme: "dark", History: hist}), 100, 30)
	want := map[string]struct {
		ok   bool
		kind tools.ErrorKind
	}{"a": {false, tools.KindExecutionFailed}, "b": {false, tools.KindDenied}, "c": {true, ""}}
	for id, w := range want {
		r := m.toolByID[id].result
		if r == nil || r.Success != w.ok || (!w.ok && (r.Error == nil || r.Error.Kind != w.kind)) {
			t.Errorf("result %s = %+v, want success=%v kind=%s", id, r, w.ok, w.kind)
		}
	}
	if r := m.toolByID["a"].result; r.Error == nil || r.Error.Message != "exit status 2" || !strings.Contains(r.Output, "no rule") {
		t.Errorf("the failure's message and output were not split: %+v", r)
	}
	v := m.View()
	if n := strings.Count(v, "✗"); n != 2 {
		t.Errorf("the screen shows %d failures, want 2:\n%s", n, v)
	}
}

// Fix 4: every line of a multi-line input shows, and ↑ recalls all of it.
func TestMultilineInputShowsEveryLine(t *testing.T) {
	m := sized(New(Options{Model: "m", Theme: "dark"}), 80, 24)
	keyRunes(m, "aaa")
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlJ})
	m.View()
	keyRunes(m, "bbb")
	for _, want := range []string{"│ aaa", "│ bbb"} {
		if v := m.View(); !strings.Contains(v, want) {
			t.Errorf("the input box lacks %q:\n%s", want, v)
		}
	}
	// Seven lines scroll the box; deleting back to two shows both again.
	for i := 0; i < 5; i++ {
		m.Update(tea.KeyMsg{Type: tea.KeyCtrlJ})
		m.View()
	}
	for i := 0; i < 5; i++ {
		m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
		m.View()
	}
	for _, want := range []string{"│ aaa", "│ bbb"} {
		if v := m.View(); !strings.Contains(v, want) {
			t.Errorf("after deleting lines the input box lacks %q:\n%s", want, v)
		}
	}
	keyRunes(m, "c")
	if got := m.input.Value(); got != "aaa\nbbbc" {
		t.Errorf("the cursor moved: input = %q", got)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter}) // no agent: an error, but the prompt is kept
	m.View()
	m.Update(tea.KeyMsg{Type: tea.KeyUp})
	if got := m.input.Value(); got != "aaa\nbbbc" {
		t.Errorf("↑ recalled %q, want the whole prompt", got)
	}
	for _, want := range []string{"│ aaa", "│ bbbc"} {
		if v := m.View(); !strings.Contains(v, want) {
			t.Errorf("the recalled prompt lacks %q:\n%s", want, v)
		}
	}
}

// Fix 5: /model keeps the demo label while the demo answers.
func TestModelCommandKeepsDemoLabel(t *testing.T) {
	ag := agent.New(agent.Options{Model: "tact-demo"})
	m := sized(New(Options{Agent: ag, Demo: true, Theme: "dark"}), 100, 30)
	m.command("/model gpt-4o")
	if s := m.statusBar(); !strings.Contains(s, "gpt-4o (offline demo)") {
		t.Errorf("status bar after /model = %q, want the demo label", s)
	}
}

// Fix 6: tab scrolls a focused block into view.
func TestTabScrollsToFocusedBlock(t *testing.T) {
	m := sized(New(Options{Model: "m", Theme: "dark"}), 80, 20)
	res := tools.OK("FIRSTRESULT")
	m.add(&entry{kind: kindTool, call: tools.Call{Name: "shell", Arguments: json.RawMessage(`{"command":"ls"}`)}, result: &res})
	for i := 0; i < 20; i++ {
		m.add(&entry{kind: kindUser, text: "question"})
		m.add(&entry{kind: kindInfo, text: "answer line one\nanswer line two"})
	}
	if strings.Contains(m.View(), "FIRSTRESULT") {
		t.Fatal("the block is on screen already; the test needs more output")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	v := m.View()
	if !strings.Contains(v, "FIRSTRESULT") || !strings.Contains(v, "enter: open the full result") {
		t.Errorf("tab focused a block that is not on screen:\n%s", v)
	}
	checkFrame(t, m, 80, 20)
}

// Fix 10: the text of the next model response starts a new block.
func TestNextResponseStartsNewBlock(t *testing.T) {
	m := sized(New(Options{Model: "m", Theme: "dark"}), 80, 30)
	m.running = true
	c := &tools.Call{ID: "c1", Name: "calculator", Arguments: json.RawMessage(`{}`)}
	res := tools.OK("345")
	m.Update(eventsMsg{events: []agent.Event{
		{Type: agent.EventText, Text: "Computing."},
		{Type: agent.EventToolCall, Call: c},
		{Type: agent.EventText, Text: "… done"},
		{Type: agent.EventApproval, Call: c, Decision: &agent.Decision{Allow: true, Source: agent.SourceDefault}},
		{Type: agent.EventToolResult, Call: c, Result: &res},
		{Type: agent.EventText, Text: "Got the result"},
	}})
	if v := m.View(); strings.Contains(v, "doneGot") || !strings.Contains(v, "Got the result") {
		t.Errorf("the next answer ran into the previous text:\n%s", v)
	}
	n := 0
	for _, e := range m.entries {
		if e.kind == kindAssistant {
			n++
		}
	}
	if n != 3 {
		t.Errorf("got %d assistant blocks, want 3", n)
	}
}

// Fix 12: the status bar and key help fit; wording polish.
func TestStatusBarAndHelpFit(t *testing.T) {
	ag := agent.New(agent.Options{Model: "gpt-4o"})
	wd := "/srv/projects/customer-portal/backend/services/tact-workspace"
	cat := &fakeCatalog{active: map[string]bool{"coding": true, "web": true}}
	m := sized(New(Options{Agent: ag, Catalog: cat, Theme: "dark", Workdir: wd}), 60, 20)
	s := ansi.Strip(m.statusBar())
	if ansi.StringWidth(s) > 60 {
		t.Errorf("status bar is %d wide", ansi.StringWidth(s))
	}
	for _, want := range []string{"gpt-4o", "native", "5 tools", "0 tok", "…", "workspace"} {
		if !strings.Contains(s, want) {
			t.Errorf("60-column status bar %q lacks %q", s, want)
		}
	}
	m = sized(m, 140, 20)
	if s := ansi.Strip(m.statusBar()); !strings.Contains(s, "protocol native │ coding, web (5 tools)") || !strings.Contains(s, wd) {
		t.Errorf("140-column status bar %q lost the full form", s)
	}
	for _, w := range []int{100, 60, 40} {
		m = sized(m, w, 20)
		if h := ansi.Strip(m.helpLine()); !strings.Contains(h, "ctrl+d quit") {
			t.Errorf("key help at %d columns lacks the quit key: %q", w, h)
		}
	}
	one := &fakeCatalog{active: map[string]bool{}}
	m = New(Options{Catalog: one, Theme: "dark"})
	if l := m.computeToolsLabel(); l != "0 tools" {
		t.Errorf("label = %q", l)
	}
	if got := (&Model{opts: Options{Catalog: oneTool{}}}).computeToolsLabel(); got != "solo (1 tool)" {
		t.Errorf("label = %q, want \"solo (1 tool)\"", got)
	}
}

// oneTool is a catalog with one active set of one tool whose switch fails as
// the real catalog's does.
type oneTool struct{}

func (oneTool) ToolSets() []ToolSetInfo {
	return []ToolSetInfo{{Name: "solo", Description: "one", Active: true, Tools: []string{"shell"}}}
}
func (oneTool) Tools() []tools.Spec { return []tools.Spec{{Name: "shell"}} }
func (oneTool) Activate([]string) (string, error) {
	return "", errors.New(`config error in built-in defaults: unknown tool set "bogus"; known tool sets: solo`)
}
func (oneTool) Stats() []tools.ToolStats { return nil }

func TestToolsetErrorAndHangingIndent(t *testing.T) {
	m := sized(New(Options{Catalog: oneTool{}, Theme: "dark"}), 60, 40)
	m.command("/toolset bogus")
	last := m.entries[len(m.entries)-1]
	if !strings.HasPrefix(last.text, `unknown tool set "bogus"; known`) {
		t.Errorf("error = %q, want it without the config prefix", last.text)
	}
	m.command("/toolsets")
	if last := m.entries[len(m.entries)-1]; !strings.Contains(last.text, "(1 tool)") {
		t.Errorf("/toolsets = %q, want \"(1 tool)\"", last.text)
	}
	m.command("/help")
	lines := m.render(m.entries[len(m.entries)-1], m.contentWidth())
	for i, l := range lines {
		if strings.Contains(l, "/protocol") {
			next := ansi.Strip(lines[i+1])
			if ind := len(next) - len(strings.TrimLeft(next, " ")); ind < 20 {
				t.Errorf("the wrapped /protocol help continues at column %d, want a hanging indent:\n%s\n%s", ind, ansi.Strip(l), next)
			}
		}
	}
}

// pendingAsk puts an approval request for call in front of the user.
func pendingAsk(m *Model, name, args string, spec tools.Spec) *askRequest {
	r := &askRequest{ctx: context.Background(), reply: make(chan agent.Decision, 1), req: agent.ApprovalRequest{
		Call: tools.Call{ID: "c1", Name: name, Arguments: json.RawMessage(args)}, Spec: spec,
	}}
	m.asks = append(m.asks, r)
	m.layout()
	return r
}

var shellSpec = tools.Spec{Name: "shell", Source: "builtin", Annotations: tools.Annotations{Destructive: true}}

// Fix 7: the write_file diff shows hunks and scrolls.
func TestWriteFileDiffHunksAndScroll(t *testing.T) {
	wd := t.TempDir()
	var old, small, big []string
	for i := 1; i <= 60; i++ {
		l := "line " + string(rune('A'+i%26)) + strings.Repeat("x", i%7)
		old = append(old, l)
		small = append(small, l)
		big = append(big, l)
	}
	small[29] = "CHANGED"
	for i := 5; i < 45; i++ {
		big[i] = "NEW " + big[i]
	}
	if err := os.WriteFile(filepath.Join(wd, "f.txt"), []byte(strings.Join(old, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(lines []string) string {
		b, _ := json.Marshal(map[string]string{"path": "f.txt", "content": strings.Join(lines, "\n") + "\n"})
		return string(b)
	}
	spec := tools.Spec{Name: "write_file", Source: "builtin", Annotations: tools.Annotations{Destructive: true}}

	m := sized(New(Options{Model: "m", Theme: "dark", Workdir: wd}), 100, 30)
	pendingAsk(m, "write_file", args(small), spec)
	v := m.View()
	if !strings.Contains(v, "- "+old[29]) || !strings.Contains(v, "+ CHANGED") || strings.Contains(v, old[0]+"\n") {
		t.Errorf("a one-line change does not show as a hunk:\n%s", v)
	}

	m = sized(New(Options{Model: "m", Theme: "dark", Workdir: wd}), 100, 30)
	pendingAsk(m, "write_file", args(big), spec)
	v = m.View()
	if strings.Contains(v, "+ NEW") {
		t.Fatalf("the whole diff fits; the test needs a longer one:\n%s", v)
	}
	if !strings.Contains(v, "pgup/pgdn") {
		t.Errorf("the pane does not say how to scroll:\n%s", v)
	}
	for i := 0; i < 10 && !strings.Contains(v, "+ NEW"); i++ {
		m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
		v = m.View()
	}
	if !strings.Contains(v, "+ NEW") {
		t.Errorf("pgdn never showed the added lines:\n%s", v)
	}
	checkFrame(t, m, 100, 30)
	m.Update(tea.KeyMsg{Type: tea.KeyUp})
	for i := 0; i < 10; i++ {
		m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
	}
	if v := m.View(); !strings.Contains(v, "lines 1–") {
		t.Errorf("pgup did not return to the top:\n%s", v)
	}
}

// Fix 8: the "s" scope is complete before the key is pressed, or hidden.
func TestSessionScopeLabelBeforeKey(t *testing.T) {
	m := sized(New(Options{Model: "m", Theme: "dark", Policy: newPolicy(t)}), 120, 30)
	pendingAsk(m, "shell", `{"command":"echo $X; git status --short; ls -la | head"}`, shellSpec)
	if v := squash(m.View()); !strings.Contains(v, squash("allow `echo *` for this session (covers one of the 4 commands no rule allows yet; the others still ask)")) {
		t.Errorf("the pane does not give the full scope:\n%s", m.View())
	}
	sized(m, 60, 20)
	checkFrame(t, m, 60, 20)
	m.asks = nil
	pendingAsk(m, "shell", `{"command":"$EDITOR notes.txt"}`, shellSpec)
	v := m.View()
	if strings.Contains(v, "s allow") || !strings.Contains(squash(v), squash("no safe session scope for this command")) {
		t.Errorf("the pane offers s without a safe scope:\n%s", v)
	}
}

// Fix 11: s says "allowed for this session" in the block, notice first.
func TestSessionAllowDecisionLine(t *testing.T) {
	pol := newPolicy(t)
	m := sized(New(Options{Model: "m", Theme: "dark", Policy: pol, Asker: NewAsker()}), 100, 30)
	m.running = true
	c := &tools.Call{ID: "c1", Name: "shell", Arguments: json.RawMessage(`{"command":"git status"}`)}
	m.Update(eventsMsg{events: []agent.Event{{Type: agent.EventToolCall, Call: c, Spec: &shellSpec}}})
	r := pendingAsk(m, "shell", `{"command":"git status"}`, shellSpec)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'s'}})
	d := <-r.reply
	res := tools.OK("clean")
	m.Update(eventsMsg{events: []agent.Event{
		{Type: agent.EventApproval, Call: c, Decision: &d},
		{Type: agent.EventToolResult, Call: c, Result: &res},
	}})
	v := m.View()
	if !strings.Contains(v, "✓ allowed for this session (`git status *`)") {
		t.Errorf("the block does not say the session rule allowed it:\n%s", v)
	}
	notice, block := strings.Index(v, "allowed for this session: "), strings.Index(v, "⚙ shell")
	if notice < 0 || block < 0 || notice > block {
		t.Errorf("the session notice is not before the block (notice %d, block %d):\n%s", notice, block, v)
	}
}

// Fix 12: the key help while typing a reason.
func TestReasonKeyHelp(t *testing.T) {
	m := sized(New(Options{Model: "m", Theme: "dark"}), 100, 30)
	pendingAsk(m, "shell", `{"command":"rm -rf build"}`, shellSpec)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'d'}})
	if h := m.helpLine(); !strings.Contains(h, "enter send reason · esc back") {
		t.Errorf("key help while typing a reason = %q", h)
	}
}

func newPolicy(t *testing.T) *approval.Policy {
	t.Helper()
	p, err := approval.NewPolicy(approval.Config{}, approval.Options{Workdir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Fix 9: after an error, r types; only ctrl+r retries.
func TestRAfterErrorTypes(t *testing.T) {
	h := start(t, fakeopenai.Sequence(
		fakeopenai.Reply{Text: "partial answer that will be cut", CutAfter: 3},
		fakeopenai.Reply{Text: "answer to the new question"},
	), setup{})
	h.typeLine("question")
	h.waitNew("press ctrl+r to retry")
	h.tm.Type("read the file")
	h.waitNew("│ read the file")
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("typing r after an error sent %d requests, want 1", n)
	}
	h.key(tea.KeyEnter)
	h.waitNew("answer to the new question")
	h.waitRequests(2)
	if last := fakeopenai.LastMessage(h.srv.Requests()[1]); last.Content != "read the file" {
		t.Errorf("sent %q, want the typed message whole", last.Content)
	}
}

// TestLongSingleLineGrowsTheInput: a long line without newlines wraps in the
// input box, which grows so its start stays visible.
func TestLongSingleLineGrowsTheInput(t *testing.T) {
	m := sized(New(Options{Model: "m", Theme: "dark"}), 60, 30)
	keyRunes(m, "start-of-the-prompt "+strings.Repeat("word ", 30)+"END")
	if h := m.inputHeight(); h < 3 {
		t.Fatalf("input height %d for a ~170-character line at 60 columns, want at least 3", h)
	}
	view := m.View()
	if !strings.Contains(view, "start-of-the-prompt") || !strings.Contains(view, "END") {
		t.Errorf("the start and the end of a long line should both be visible:\n%s", view)
	}
}
