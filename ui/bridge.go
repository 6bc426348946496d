package ui

import (
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"tact/agent"
)

// frame is the redraw interval while the model streams (about 30 fps).
const frame = 33 * time.Millisecond

// eventsMsg carries the agent events of one frame into the program, in order.
type eventsMsg struct {
	events []agent.Event
}

// bridge moves agent events from the turn's goroutine into the program. The
// sink only appends to a queue; one waiting Cmd drains it at most once per
// frame, so a burst of text deltas costs one Update and one redraw.
type bridge struct {
	mu     sync.Mutex
	queue  []agent.Event
	notify chan struct{}
	last   time.Time
}

func newBridge() *bridge { return &bridge{notify: make(chan struct{}, 1)} }

// sink returns the agent.Sink of a turn.
func (b *bridge) sink() agent.Sink {
	return func(ev agent.Event) {
		b.mu.Lock()
		b.queue = append(b.queue, ev)
		b.mu.Unlock()
		select {
		case b.notify <- struct{}{}:
		default:
		}
	}
}

// wait is the Cmd that delivers the next batch; done ends it.
func (b *bridge) wait(done <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-b.notify:
		case <-done:
			return nil
		}
		if d := frame - time.Since(b.last); d > 0 {
			select {
			case <-time.After(d):
			case <-done:
				return nil
			}
		}
		b.mu.Lock()
		evs := b.queue
		b.queue = nil
		b.last = time.Now()
		b.mu.Unlock()
		return eventsMsg{events: evs}
	}
}
