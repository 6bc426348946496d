package tools

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// ToolInfo is one line of `tact tools`; its JSON form is what
// `tact tools --json` prints.
type ToolInfo struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// Source is "builtin", "native", "mcp:SERVER" or "skill".
	Source string `json:"source"`
	// Description is the tool's description.
	Description string `json:"description"`
	// ReadOnly tools run without approval.
	ReadOnly bool `json:"read_only"`
	// Destructive tools may change or delete things and ask for approval.
	Destructive bool `json:"destructive"`
}

// Describe returns one ToolInfo per tool of reg, in registration order.
func Describe(reg *Registry) []ToolInfo {
	if reg == nil {
		return []ToolInfo{}
	}
	specs := reg.Specs()
	out := make([]ToolInfo, len(specs))
	for i, s := range specs {
		out[i] = ToolInfo{
			Name:        s.Name,
			Source:      s.Source,
			Description: s.Description,
			ReadOnly:    s.Annotations.ReadOnly,
			Destructive: s.Annotations.Destructive,
		}
	}
	return out
}

// access is the short word `tact tools` shows for a tool's annotations.
func (t ToolInfo) access() string {
	switch {
	case t.ReadOnly:
		return "read-only"
	case t.Destructive:
		return "destructive"
	default:
		return "writes"
	}
}

// maxDescription is how many characters of a description the table shows.
const maxDescription = 72

// WriteToolTable writes the human form of `tact tools`: one aligned row per
// tool (name, source, read-only/destructive, first line of the description)
// and, when there are any, the shadowed duplicates with the source that won.
func WriteToolTable(w io.Writer, infos []ToolInfo, shadowed []Shadowed) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tACCESS\tDESCRIPTION")
	for _, t := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Source, t.access(), shorten(t.Description, maxDescription))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(infos) == 0 {
		if _, err := fmt.Fprintln(w, "(no active tools: check tool_sets and tools in the config, or pass --toolset)"); err != nil {
			return err
		}
	}
	if len(shadowed) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nShadowed duplicates (not available; rename one to use both):\n"); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range shadowed {
		fmt.Fprintf(tw, "  %s\tfrom %s\thidden by %s\n", s.Name, s.Source, s.ShadowedBy)
	}
	return tw.Flush()
}

// WriteStats writes the per-tool call statistics of a session (`tact tools
// --stats`, the TUI's /stats): calls, success rate, p50 and p95 latency.
func WriteStats(w io.Writer, stats []ToolStats) error {
	if len(stats) == 0 {
		_, err := fmt.Fprintln(w, "No tool calls yet in this session.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TOOL\tCALLS\tOK\tSUCCESS\tP50\tP95\t")
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f%%\t%s\t%s\t\n", s.Name, s.Calls, s.Successes,
			s.SuccessRate*100, roundDuration(s.P50), roundDuration(s.P95))
	}
	return tw.Flush()
}

// roundDuration keeps three significant-ish digits: µs under a millisecond,
// ms under ten seconds, then tenths of seconds.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < 10*time.Second:
		return d.Round(time.Millisecond)
	default:
		return d.Round(100 * time.Millisecond)
	}
}

// shorten returns the first line of s, cut to max runes with an ellipsis.
func shorten(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	r := []rune(s)
	if len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
