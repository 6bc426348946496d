package tools

import (
	"fmt"
	"unicode/utf8"
)

// DefaultMaxOutputBytes is the output size above which the Executor cuts a
// tool's output in the middle.
const DefaultMaxOutputBytes = 32 * 1024

// TruncateMiddle returns s unchanged when it is at most max bytes long.
// Otherwise it keeps the start and the end of s, cut on UTF-8 boundaries, with
// a marker like "\n…[cut 12345 bytes of 50000]…\n" in between; the result is
// at most max bytes long unless max is too small to hold the marker.
func TruncateMiddle(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	// The marker's length depends on the number cut; size it for the worst case.
	worst := fmt.Sprintf("\n…[cut %d bytes of %d]…\n", len(s), len(s))
	keep := max - len(worst)
	if keep < 0 {
		keep = 0
	}
	head := keep / 2
	tail := keep - head
	// Move the head end back and the tail start forward to rune starts.
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	cut := start - head
	return s[:head] + fmt.Sprintf("\n…[cut %d bytes of %d]…\n", cut, len(s)) + s[start:]
}
