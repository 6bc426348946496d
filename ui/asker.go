package ui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"tact/agent"
)

// Asker is the agent.Approver the approval Policy consults when a call needs
// the user: its Approve blocks until the user answers in the approval pane
// (or ctx ends). Create it before the agent, pass it to approval.Options.Asker
// and to Options.Asker.
type Asker struct {
	reqs chan *askRequest
}

// askRequest is one pending question; the UI answers on reply (buffered).
type askRequest struct {
	req   agent.ApprovalRequest
	reply chan agent.Decision
	ctx   context.Context
}

// askMsg carries a new approval request into the program.
type askMsg struct{ r *askRequest }

// NewAsker returns an Asker with no program attached yet.
func NewAsker() *Asker { return &Asker{reqs: make(chan *askRequest)} }

var _ agent.Approver = (*Asker)(nil)

// Approve shows the request in the approval pane and waits for the user's
// decision. It returns ctx's error when the turn is cancelled first.
func (a *Asker) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	r := &askRequest{req: req, reply: make(chan agent.Decision, 1), ctx: ctx}
	select {
	case a.reqs <- r:
	case <-ctx.Done():
		return agent.Decision{}, fmt.Errorf("approval of %s not answered: %w", req.Call.Name, ctx.Err())
	}
	select {
	case d := <-r.reply:
		return d, nil
	case <-ctx.Done():
		return agent.Decision{}, fmt.Errorf("approval of %s not answered: %w", req.Call.Name, ctx.Err())
	}
}

// wait is the Cmd that delivers the next request to the program.
func (a *Asker) wait(done <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case r := <-a.reqs:
			return askMsg{r}
		case <-done:
			return nil
		}
	}
}
