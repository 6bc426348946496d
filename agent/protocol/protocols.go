package protocol

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"tact/tools"
)

// Names lists the protocols ForName accepts.
var Names = []string{"native", "tool_action", "json", "xml"}

// ForName returns the protocol with the given config name: native,
// tool_action, json or xml.
func ForName(name string) (Protocol, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "native":
		return textProtocol{name: "native", native: true}, nil
	case "tool_action":
		return textProtocol{name: "tool_action"}, nil
	case "json":
		return textProtocol{name: "json"}, nil
	case "xml":
		return textProtocol{name: "xml"}, nil
	}
	return nil, fmt.Errorf("unknown tool-call protocol %q: use one of %s", name, strings.Join(Names, ", "))
}

// textProtocol implements Protocol for all four formats; they differ in the
// prompt and in what the detector treats as a possible start of markup.
type textProtocol struct {
	name   string
	native bool
}

// Name implements Protocol.
func (p textProtocol) Name() string { return p.name }

// Native implements Protocol.
func (p textProtocol) Native() bool { return p.native }

// Prompt implements Protocol.
func (p textProtocol) Prompt(specs []tools.Spec) string { return GenerateToolPrompt(p.name, specs) }

// NewDetector implements Protocol.
func (p textProtocol) NewDetector(specs []tools.Spec) Detector {
	cfg := config{triggers: "<", leading: leadKeyed, tagFences: !p.native}
	if p.name == "json" {
		cfg = config{triggers: "<`", leading: leadAny, tagFences: true}
	}
	return newDetector(cfg, newSpecIndex(specs))
}

// ResultMessage implements Protocol.
func (p textProtocol) ResultMessage(call tools.Call, result tools.Result) string {
	return ResultMessage(call, result)
}

// ResultMessage is the text of the user message that carries a result back
// in a text protocol: "[Tool result for NAME]\n" and the result's Text (the
// error kind and message for a failure).
func ResultMessage(call tools.Call, result tools.Result) string {
	return "[Tool result for " + call.Name + "]\n" + result.Text()
}

// maxNameLen is the longest tool name OpenAI accepts.
const maxNameLen = 64

// SanitizeName maps a tool name to OpenAI's name rule: every character
// outside [a-zA-Z0-9_-] (a dot, a space, any non-ASCII character) becomes
// "_", and the result is cut to 64 bytes. Names already valid come back
// unchanged without allocating.
func SanitizeName(name string) string {
	ok := len(name) <= maxNameLen
	for i := 0; ok && i < len(name); i++ {
		ok = nameByte(name[i])
	}
	if ok {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= maxNameLen {
			break
		}
		if r < utf8.RuneSelf && nameByte(byte(r)) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func nameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// newCallID returns an ID for a call whose markup carries none: "call_", a
// random prefix chosen once per process, and a counter.
func newCallID() string {
	return "call_" + idPrefix + strconv.FormatUint(idCounter.Add(1), 36)
}

var (
	idCounter atomic.Uint64
	idPrefix  = func() string {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "t"
		}
		return hex.EncodeToString(b[:]) + "_"
	}()
)
