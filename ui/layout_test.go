package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"tact/agent"
	"tact/tools"
)

// checkFrame asserts the frame fills the window exactly, no line too wide.
func checkFrame(t *testing.T, m *Model, w, h int) string {
	t.Helper()
	v := m.View()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Errorf("%dx%d: frame has %d lines, want %d:\n%s", w, h, len(lines), h, v)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i, n, l)
		}
	}
	return v
}

func TestLayoutFitsAndRewraps(t *testing.T) {
	wd := t.TempDir()
	if err := os.WriteFile(filepath.Join(wd, "notes.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Model: "tact-demo", Demo: true, Theme: "dark", Workdir: wd})
	for i := 0; i < 30; i++ {
		m.add(&entry{kind: kindUser, text: strings.Repeat("a long question that wraps ", 8)})
		s := &mdStream{md: m.md}
		s.append(sampleMessage(i))
		m.add(&entry{kind: kindAssistant, stream: s, done: true})
	}
	res := tools.OK(strings.Repeat("output line\n", 20))
	m.add(&entry{kind: kindTool, call: tools.Call{Name: "shell", Arguments: json.RawMessage(`{"command":"ls -la"}`)}, result: &res})
	args, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": "alpha\nBETA\ngamma\n"})
	m.asks = []*askRequest{{ctx: context.Background(), reply: make(chan agent.Decision, 1), req: agent.ApprovalRequest{
		Call: tools.Call{ID: "c1", Name: "write_file", Arguments: args},
		Spec: tools.Spec{Name: "write_file", Source: "builtin", Annotations: tools.Annotations{Destructive: true}},
	}}}
	for _, size := range [][2]int{{60, 15}, {100, 30}, {80, 24}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		v := checkFrame(t, m, size[0], size[1])
		if size[0] == 100 {
			for _, want := range []string{"- beta", "+ BETA", "Approve write_file?", "tact-demo (offline demo)"} {
				if !strings.Contains(v, want) {
					t.Errorf("100x30 frame lacks %q:\n%s", want, v)
				}
			}
		}
	}
	m.asks = nil
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 15})
	checkFrame(t, m, 60, 15)
	// Scrolling up keeps the view still and shows the hint when output arrives.
	m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
	before := m.View()
	m.running = false
	m.Update(eventsMsg{events: []agent.Event{{Type: agent.EventText, Text: "fresh text\n\nmore"}}})
	after := m.View()
	if !strings.Contains(after, "new output") {
		t.Errorf("no new-output hint while scrolled up:\n%s", after)
	}
	if firstLine(before) != firstLine(after) {
		t.Errorf("the view moved while scrolled up: %q -> %q", firstLine(before), firstLine(after))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if v := m.View(); !strings.Contains(v, "new output") {
		t.Errorf("one pgdn reached the bottom; the test needs more output:\n%s", v)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnd})
	if v := m.View(); !strings.Contains(v, "more") || strings.Contains(v, "new output") {
		t.Errorf("pgdn did not return to the bottom:\n%s", v)
	}
}

func TestStreamingMarkdownMatchesFinalRender(t *testing.T) {
	md := newMarkdown("notty")
	src := sampleMessage(1) + "\n" + sampleMessage(2)
	s := &mdStream{md: md}
	for i := 0; i < len(src); i += 7 {
		s.append(src[i:min(i+7, len(src))])
		s.lines(80)
	}
	got := strings.Join(s.lines(80), "\n")
	for _, want := range []string{"Step 1", "Step 2", "func load(path string)", "it is tested (case 2)"} {
		if !strings.Contains(got, want) {
			t.Errorf("streamed render lacks %q:\n%s", want, got)
		}
	}
	if s.stable == 0 {
		t.Error("no block was settled while streaming: every token re-renders the whole answer")
	}
	if strings.Contains(got, "```") {
		t.Errorf("code fence markup leaked into the render:\n%s", got)
	}
	// A width change re-wraps everything.
	narrow := s.lines(40)
	for _, l := range narrow {
		if ansi.StringWidth(l) > 40 {
			t.Errorf("line wider than 40 after resize: %q", l)
		}
	}
}

func TestLineDiff(t *testing.T) {
	a := strings.Split("1\n2\n3\n4\n5\n6\n7\n8\n9", "\n")
	b := strings.Split("1\n2\n3\n4\nfive\n6\n7\n8\n9", "\n")
	var got []string
	for _, d := range lineDiff(a, b) {
		got = append(got, string(d.op)+d.text)
	}
	want := " 3| 4|-5|+five| 6| 7| …"
	if strings.Join(got, "|") != want {
		t.Errorf("diff = %q, want %q", strings.Join(got, "|"), want)
	}
}
