package tools

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateMiddle(t *testing.T) {
	if got := TruncateMiddle("short", 10); got != "short" {
		t.Fatalf("short text changed: %q", got)
	}
	marker := regexp.MustCompile(`\n…\[cut (\d+) bytes of (\d+)\]…\n`)
	for _, s := range []string{
		strings.Repeat("a", 50000),
		strings.Repeat("日本語", 9000),
		strings.Repeat("x🙂", 7001),
	} {
		for _, max := range []int{100, 101, 102, 103, 4096} {
			got := TruncateMiddle(s, max)
			if len(got) > max {
				t.Fatalf("len %d > max %d", len(got), max)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("invalid UTF-8 for max %d", max)
			}
			m := marker.FindStringSubmatchIndex(got)
			if m == nil {
				t.Fatalf("no marker in %q", got)
			}
			cut, _ := strconv.Atoi(got[m[2]:m[3]])
			total, _ := strconv.Atoi(got[m[4]:m[5]])
			head, tail := got[:m[0]], got[m[1]:]
			if total != len(s) || len(head)+len(tail)+cut != len(s) {
				t.Fatalf("sizes: head %d tail %d cut %d total %d len %d", len(head), len(tail), cut, total, len(s))
			}
			if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
				t.Fatal("kept parts are not the start and end of the input")
			}
		}
	}
}
