package protocol

import (
	"bytes"
	"strings"
	"testing"
)

const benchChunk = 16

// benchProse is 64 KiB of prose without '<'.
func benchProse() string {
	const para = "The detector scans streamed text for tool-call markup and returns plain prose at once, " +
		"holding back only a suffix that could still grow into an opening tag. "
	return strings.Repeat(para, 64<<10/len(para)+1)[:64<<10]
}

// benchTags is about 64 KiB of prose with a <tool_action> tag every ~200 bytes.
func benchTags() string {
	var b strings.Builder
	prose := benchProse()
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(prose[i*130%60000 : i*130%60000+130])
		b.WriteString(`<tool_action name="vector-search"><query value="q"/><limit value="5"/></tool_action>`)
	}
	return b.String()
}

func chunked(s string) []string {
	out := make([]string, 0, len(s)/benchChunk+1)
	for len(s) > benchChunk {
		out = append(out, s[:benchChunk])
		s = s[benchChunk:]
	}
	return append(out, s)
}

// BenchmarkDetector feeds 64 KiB in 16-byte chunks. Run with:
//
//	go test -run '^$' -bench 'Detector|IndexByte' -benchmem ./agent/protocol/
func BenchmarkDetector(b *testing.B) {
	for _, bc := range []struct{ name, in string }{{"plain", benchProse()}, {"tags", benchTags()}} {
		chunks := chunked(bc.in)
		b.Run(bc.name, func(b *testing.B) {
			p := mustProto(b, "tool_action")
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			d := p.NewDetector(testSpecs)
			n := 0
			for b.Loop() {
				for _, c := range chunks {
					n += len(d.Feed(c))
				}
				n += len(d.Flush())
			}
			if n == 0 {
				b.Fatal("no output")
			}
		})
	}
}

// BenchmarkIndexByte is the yardstick: bytes.IndexByte for '<' over the
// same input, whole and in the same 16-byte chunks.
func BenchmarkIndexByte(b *testing.B) {
	in := []byte(benchProse())
	b.Run("whole", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			if bytes.IndexByte(in, '<') >= 0 {
				b.Fatal("found <")
			}
		}
	})
	b.Run("chunks", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			for i := 0; i < len(in); i += benchChunk {
				if bytes.IndexByte(in[i:min(i+benchChunk, len(in))], '<') >= 0 {
					b.Fatal("found <")
				}
			}
		}
	})
}

// TestPlainFeedDoesNotAllocate: a plain chunk costs no allocation.
func TestPlainFeedDoesNotAllocate(t *testing.T) {
	chunks := chunked(benchProse())
	for _, name := range Names {
		d := mustProto(t, name).NewDetector(testSpecs)
		d.Feed("Hello ")
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			d.Feed(chunks[i%len(chunks)])
			i++
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per plain chunk", name, allocs)
		}
	}
}
