package ui

import (
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles holds every lipgloss style the UI uses; nothing else in the package
// builds colours.
type styles struct {
	user       lipgloss.Style // the "you" label
	userText   lipgloss.Style
	assistant  lipgloss.Style // the model label
	tool       lipgloss.Style // tool block header
	toolArgs   lipgloss.Style
	ok         lipgloss.Style // ✓
	fail       lipgloss.Style // ✗ and error text
	errorText  lipgloss.Style
	warning    lipgloss.Style
	notice     lipgloss.Style
	dim        lipgloss.Style
	focus      lipgloss.Style // marker of the focused result block
	status     lipgloss.Style // the status bar
	statusKey  lipgloss.Style
	help       lipgloss.Style
	paneBorder lipgloss.Style
	paneTitle  lipgloss.Style
	key        lipgloss.Style // a key name in the approval pane
	diffAdd    lipgloss.Style
	diffDel    lipgloss.Style
	newOutput  lipgloss.Style
	spinner    lipgloss.Style
}

// theme is the resolved look: "dark", "light" or "none" (no colours).
type theme string

const (
	themeDark  theme = "dark"
	themeLight theme = "light"
	themeNone  theme = "none"
)

// resolveTheme turns the configured theme into a fixed one. "auto" asks the
// terminal for its background only when detect is set (Run does it once,
// before the program starts; New never touches the terminal). NO_COLOR and a
// colourless profile give "none".
func resolveTheme(name string, detect bool) theme {
	if _, ok := os.LookupEnv("NO_COLOR"); ok || lipgloss.ColorProfile() == termenv.Ascii {
		return themeNone
	}
	switch name {
	case "light":
		return themeLight
	case "dark":
		return themeDark
	}
	if detect && !lipgloss.HasDarkBackground() {
		return themeLight
	}
	return themeDark
}

// glamourStyle is the glamour standard style for a theme.
func (t theme) glamourStyle() string {
	switch t {
	case themeLight:
		return "light"
	case themeNone:
		return "notty"
	}
	return "dark"
}

func newStyles(t theme) styles {
	if t == themeNone {
		plain := lipgloss.NewStyle()
		return styles{
			user: plain.Bold(true), userText: plain, assistant: plain.Bold(true), tool: plain.Bold(true),
			toolArgs: plain, ok: plain, fail: plain, errorText: plain, warning: plain, notice: plain,
			dim: plain, focus: plain.Bold(true), status: plain.Reverse(true), statusKey: plain.Reverse(true).Bold(true),
			help: plain, paneBorder: plain,
			paneTitle: plain.Bold(true), key: plain.Bold(true), diffAdd: plain, diffDel: plain,
			newOutput: plain.Reverse(true), spinner: plain,
		}
	}
	pick := func(dark, light string) lipgloss.Color {
		if t == themeLight {
			return lipgloss.Color(light)
		}
		return lipgloss.Color(dark)
	}
	accent := pick("#7aa2f7", "#1f4fb8")
	green := pick("#9ece6a", "#2e7d32")
	red := pick("#f7768e", "#c62828")
	yellow := pick("#e0af68", "#8d6e00")
	dim := pick("#7a7f99", "#6b6f80")
	fg := pick("#c0caf5", "#1a1b26")
	barBg := pick("#24283b", "#e1e2e7")
	s := lipgloss.NewStyle()
	return styles{
		user:       s.Foreground(green).Bold(true),
		userText:   s.Foreground(fg),
		assistant:  s.Foreground(accent).Bold(true),
		tool:       s.Foreground(yellow).Bold(true),
		toolArgs:   s.Foreground(dim),
		ok:         s.Foreground(green).Bold(true),
		fail:       s.Foreground(red).Bold(true),
		errorText:  s.Foreground(red),
		warning:    s.Foreground(yellow),
		notice:     s.Foreground(accent),
		dim:        s.Foreground(dim),
		focus:      s.Foreground(accent).Bold(true),
		status:     s.Foreground(fg).Background(barBg),
		statusKey:  s.Foreground(accent).Background(barBg).Bold(true),
		help:       s.Foreground(dim),
		paneBorder: s.Foreground(yellow),
		paneTitle:  s.Foreground(yellow).Bold(true),
		key:        s.Foreground(accent).Bold(true),
		diffAdd:    s.Foreground(green),
		diffDel:    s.Foreground(red),
		newOutput:  s.Foreground(barBg).Background(accent).Bold(true),
		spinner:    s.Foreground(accent),
	}
}
