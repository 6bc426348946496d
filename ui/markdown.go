package ui

import (
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders markdown with one fixed glamour style, keeping one
// renderer per width (building a renderer is far dearer than rendering).
type markdown struct {
	style     string
	renderers map[int]*glamour.TermRenderer
}

func newMarkdown(style string) *markdown {
	return &markdown{style: style, renderers: map[int]*glamour.TermRenderer{}}
}

// render returns the lines of src rendered for width, without leading or
// trailing blank lines. A render failure shows the source as is.
func (m *markdown) render(src string, width int) []string {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	r := m.renderers[width]
	if r == nil {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(m.style), glamour.WithWordWrap(max(width-4, 10)))
		if err != nil {
			return fitLines(wrapPlain(src, width), width)
		}
		m.renderers[width] = r
	}
	out, err := r.Render(src)
	if err != nil {
		return fitLines(wrapPlain(src, width), width)
	}
	return fitLines(trimBlank(strings.Split(out, "\n")), width)
}

// fitLines hard-wraps the lines wider than width (a long word, URL or code
// line glamour does not break), keeping their escape codes; nothing is cut.
// It returns lines itself when every line fits.
func fitLines(lines []string, width int) []string {
	width = max(width, 1)
	var out []string
	for i, l := range lines {
		if ansi.StringWidth(l) <= width {
			if out != nil {
				out = append(out, l)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(lines)+4), lines[:i]...)
		}
		out = append(out, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
	}
	if out == nil {
		return lines
	}
	return out
}

// trimBlank drops blank lines (spaces and escape codes only) at both ends.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && isBlankLine(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlankLine(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func isBlankLine(s string) bool {
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b:
			in = true
		case in:
			if c >= 0x40 && c <= 0x7e && c != '[' {
				in = false
			}
		case c != ' ' && c != '\t' && c != '\r':
			return false
		}
	}
	return true
}

// mdStream renders a message that is still arriving. Complete top-level
// blocks (ended by a blank line outside a code fence, or by a closing
// fence) are rendered once and kept; only the unfinished last block is
// rendered again, so one more token costs the same however long the answer.
type mdStream struct {
	md    *markdown
	buf   []byte
	width int

	stable      int      // bytes of buf rendered into stableLines
	scan        int      // bytes of buf checked for block ends (whole lines)
	fence       string   // the open fence marker, "" outside code
	stableLines []string // rendered complete blocks

	tailLen   int // len(buf) when tailLines was rendered
	tailWidth int
	tailLines []string
	out       []string // stableLines + tailLines, rebuilt when either changes
	outOK     bool
}

func (s *mdStream) append(text string) {
	s.buf = append(s.buf, text...)
	s.outOK = false
}

func (s *mdStream) text() string { return string(s.buf) }

// lines returns the rendered message for width.
func (s *mdStream) lines(width int) []string {
	if width != s.width {
		s.width = width
		s.stableLines = s.md.render(string(s.buf[:s.stable]), width)
		s.tailWidth = -1
		s.outOK = false
	}
	s.advance()
	if s.tailLen != len(s.buf) || s.tailWidth != width {
		s.tailLines = s.md.render(string(s.buf[s.stable:]), width)
		s.tailLen, s.tailWidth = len(s.buf), width
		s.outOK = false
	}
	if !s.outOK {
		s.out = append(s.out[:0], s.stableLines...)
		if len(s.stableLines) > 0 && len(s.tailLines) > 0 {
			s.out = append(s.out, "")
		}
		s.out = append(s.out, s.tailLines...)
		s.outOK = true
	}
	return s.out
}

// advance moves complete blocks from the tail into stableLines.
func (s *mdStream) advance() {
	for {
		nl := indexByte(s.buf[s.scan:], '\n')
		if nl < 0 {
			return
		}
		line := string(s.buf[s.scan : s.scan+nl])
		s.scan += nl + 1
		trimmed := strings.TrimSpace(line)
		boundary := false
		switch {
		case s.fence != "":
			if strings.HasPrefix(trimmed, s.fence) && strings.Trim(trimmed, s.fence[:1]) == "" {
				s.fence = ""
				boundary = true
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			s.fence = trimmed[:3]
		case trimmed == "":
			boundary = true
		}
		if boundary {
			s.settle(s.scan)
		}
	}
}

// settle renders buf[stable:end] as a finished block.
func (s *mdStream) settle(end int) {
	seg := string(s.buf[s.stable:end])
	if strings.TrimSpace(seg) == "" {
		return
	}
	lines := s.md.render(seg, s.width)
	if len(s.stableLines) > 0 && len(lines) > 0 {
		s.stableLines = append(s.stableLines, "")
	}
	s.stableLines = append(s.stableLines, lines...)
	s.stable = end
	s.outOK = false
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// wrapPlain wraps text at width without markdown.
func wrapPlain(text string, width int) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, wrapLine(line, width)...)
	}
	return out
}

// wrapLine cuts one line into pieces of at most width runes.
func wrapLine(line string, width int) []string {
	if width < 1 {
		width = 1
	}
	r := []rune(line)
	if len(r) <= width {
		return []string{line}
	}
	var out []string
	for len(r) > width {
		cut := width
		for i := width; i > width/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, string(r[:cut]))
		r = r[cut:]
		if len(r) > 0 && r[0] == ' ' {
			r = r[1:]
		}
	}
	return append(out, string(r))
}

// wrapHanging wraps text at width like wrapPlain, but indents the
// continuation of a wrapped line under where its text starts: after " — ",
// after a short "label: ", or at the last column of a table row.
func wrapHanging(text string, width int) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		pieces := wrapLine(line, width)
		if len(pieces) == 1 {
			out = append(out, line)
			continue
		}
		ind := hangIndent(line)
		if ind > width-20 {
			ind = min(leadingSpaces(line)+2, width/2)
		}
		out = append(out, pieces[0])
		rest := strings.TrimLeft(string([]rune(line)[len([]rune(pieces[0])):]), " ")
		pad := strings.Repeat(" ", ind)
		for _, p := range wrapLine(rest, width-ind) {
			out = append(out, pad+p)
		}
	}
	return out
}

func leadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// hangIndent is the column (in runes) where a line's text starts.
func hangIndent(line string) int {
	col := func(byteIdx int) int { return len([]rune(line[:byteIdx])) }
	if i := strings.Index(line, " — "); i >= 0 {
		return col(i + len(" — "))
	}
	lead := leadingSpaces(line)
	if i := strings.Index(line, ": "); i > lead && i < 12 && !strings.ContainsAny(line[lead:i], " ") {
		return col(i + 2)
	}
	// A table row: the text after the last run of two or more spaces.
	if i := strings.LastIndex(strings.TrimRight(line, " "), "  "); i > lead {
		j := i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		return col(j)
	}
	return lead + 2
}
