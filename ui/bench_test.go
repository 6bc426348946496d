package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	openai "github.com/sashabaranov/go-openai"

	"tact/agent"
	"tact/agent/llm"
)

// sampleMessage is an earlier answer: a few paragraphs and a code block.
func sampleMessage(i int) string {
	return fmt.Sprintf(`### Step %d

The function reads the configuration, validates every field and returns a
typed error naming the field when something is wrong. It never panics.

Call it once at start-up; the result is safe to share between goroutines.

`+"```go"+`
func load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %%s: %%w", path, err)
	}
	return parse(b)
}
`+"```"+`

- it is fast
- it is tested (case %d)
`, i, i)
}

// streamingModel is a model with history earlier messages and a 20 KB
// answer streaming.
func streamingModel(tb testing.TB, history int) *Model {
	m := New(Options{Model: "bench", Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for i := 0; i < history; i++ {
		m.add(&entry{kind: kindUser, text: fmt.Sprintf("question %d", i)})
		s := &mdStream{md: m.md}
		s.append(sampleMessage(i))
		m.add(&entry{kind: kindAssistant, stream: s, done: true})
	}
	m.running, m.phase, m.phaseStart = true, "answering", time.Now()
	var b strings.Builder
	for b.Len() < 20*1024 {
		b.WriteString("This paragraph of the current answer explains one more detail of the design, in plain words, ")
		b.WriteString("with `inline code` and **bold** text.\n\n")
	}
	m.Update(eventsMsg{events: []agent.Event{{Type: agent.EventText, Text: b.String()}}})
	if v := m.View(); !strings.Contains(v, "bold") {
		tb.Fatalf("the streaming answer is not on screen:\n%s", v)
	}
	return m
}

// BenchmarkStreamToken measures one streamed token: the Update that takes
// it and the View that draws it.
func BenchmarkStreamToken(b *testing.B) {
	for _, history := range []int{10, 1000} {
		b.Run(fmt.Sprintf("history=%d", history), func(b *testing.B) {
			m := streamingModel(b, history)
			tokens := make([]eventsMsg, 64)
			for i := range tokens {
				text := "word "
				if i%32 == 31 {
					text = "end.\n\n" // a paragraph ends now and then, as in real answers
				}
				tokens[i] = eventsMsg{events: []agent.Event{{Type: agent.EventText, Text: text}}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(tokens[i%len(tokens)])
				_ = m.View()
			}
		})
	}
}

// BenchmarkFirstFrame measures start-up to the first frame: New, the first
// WindowSizeMsg and View, with an empty transcript and with a resumed
// session of 200 messages.
func BenchmarkFirstFrame(b *testing.B) {
	for _, n := range []int{0, 200} {
		var hist []llm.Message
		for i := 0; i < n; i += 2 {
			hist = append(hist,
				llm.Message{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("question %d", i)},
				llm.Message{Role: openai.ChatMessageRoleAssistant, Content: sampleMessage(i)})
		}
		b.Run(fmt.Sprintf("resumed=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				m := New(Options{Model: "bench", Theme: "dark", History: hist})
				m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
				if m.View() == "" {
					b.Fatal("empty first frame")
				}
			}
		})
	}
}
