package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDetectorLossless feeds random input in random chunk sizes to every
// protocol's detector. Properties: no panic; Raw-or-Text of the segments
// reassembles the input exactly; when the input is valid UTF-8, every Text
// segment is too (no character cut in half).
func FuzzDetectorLossless(f *testing.F) {
	f.Add(`思考: 我需要搜索...<tool_action name="vector-search"><query value="test"" /></tool_action>接下来...`, []byte{3, 17, 1})
	f.Add("<tool_call>{\"name\": \"calculator\", \"arguments\": {\"a\": 1}}</tool_call>", []byte{1})
	f.Add("```json\n{\"tool\": null, \"reply\": \"hi\"}\n```", []byte{2, 5})
	f.Add(`{"tool_calls": [{"name": "a"}, {"name": "b"}]}`, []byte{4})
	f.Add("<tool_act<tool_action <tool_call <", []byte{1, 2})
	f.Add("🙂<tool_action name='x'><a value=\"{&quot;k&quot;: [1]}\"/></tool_action>🙂", []byte{1, 1, 2})
	f.Add("Hermes models wrap calls in a `<tool_call>` tag. More.", []byte{5})
	f.Add("a <tool_call> tag\n```\n<tool_action name=\"x\"/>\n```\n<tool_action>", []byte{0, 3})
	f.Add(`<tool_action name="s"><q value="</tool_action>" /></tool_action><q value="</tool_action>`, []byte{2})
	specs := testSpecs
	f.Fuzz(func(t *testing.T, in string, sizes []byte) {
		for _, name := range append(Names, "small-cap") {
			var d Detector
			if name == "small-cap" {
				// A tiny capture limit, so giving up long markup is exercised.
				sd := newDetector(config{triggers: "<`", leading: leadKeyed}, newSpecIndex(specs))
				sd.maxCapture = 24
				d = sd
			} else {
				d = mustProto(t, name).NewDetector(specs)
			}
			var got strings.Builder
			check := func(segs []Segment) {
				for _, s := range segs {
					if s.Raw != "" {
						got.WriteString(s.Raw)
					} else {
						got.WriteString(s.Text)
					}
					if s.Call == nil && s.Raw == "" && utf8.ValidString(in) && !utf8.ValidString(s.Text) {
						t.Fatalf("%s: invalid UTF-8 in text segment %q", name, s.Text)
					}
				}
			}
			rest, k := in, 0
			for rest != "" {
				n := len(rest)
				if len(sizes) > 0 {
					n = min(int(sizes[k%len(sizes)])+1, len(rest))
					k++
				}
				check(d.Feed(rest[:n]))
				rest = rest[n:]
			}
			check(d.Flush())
			if got.String() != in {
				t.Fatalf("%s: not lossless:\n got %q\nwant %q", name, got.String(), in)
			}
		}
	})
}
