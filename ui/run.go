package ui

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// Run shows the UI until the user quits or ctx ends. An "auto" theme is
// detected here, once, before the program takes the terminal.
func Run(ctx context.Context, opts Options) error {
	if opts.Agent == nil {
		return errors.New("ui: no agent; this is a bug in tact's wiring")
	}
	if opts.Theme == "" || opts.Theme == "auto" {
		opts.Theme = string(resolveTheme("auto", opts.Input == nil && opts.Output == nil))
		if opts.Theme == string(themeNone) {
			opts.Theme = "dark" // resolveTheme sees NO_COLOR again in New
		}
	}
	m := New(opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithMouseCellMotion(), tea.WithFPS(120)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	} else {
		popts = append(popts, tea.WithAltScreen())
	}
	popts = append(popts, opts.ProgramOptions...)
	p := tea.NewProgram(m, popts...)
	_, err := p.Run()
	m.stop()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("terminal UI: %w", err)
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// stop ends the model's waiting Cmds and any running turn.
func (m *Model) stop() {
	m.cancelTurn()
	select {
	case <-m.done:
	default:
		close(m.done)
	}
}
