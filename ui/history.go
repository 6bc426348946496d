package ui

import (
	"regexp"
	"strings"

	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/tools"
)

// resultHeader starts each tool result a text protocol sends back in a user
// message (protocol.ResultMessage); several results are joined by blank lines.
var resultHeader = regexp.MustCompile(`(?m)^\[Tool result for ([^\]\n]*)\]\n?`)

// loadHistory shows a resumed session. Assistant text is shown without the
// tool-call markup of the text protocols (each call becomes a tool block),
// and user messages that carry tool results back ("[Tool result for NAME]")
// become those blocks' results, never prompts.
func (m *Model) loadHistory(msgs []llm.Message) {
	var pending []*entry // text-protocol calls still waiting for a result, in order
	for _, msg := range msgs {
		switch msg.Role {
		case "user":
			if strings.HasPrefix(msg.Content, "[Tool result for ") {
				pending = m.historyResults(msg.Content, pending)
				continue
			}
			if msg.Content != "" {
				m.add(&entry{kind: kindUser, text: msg.Content})
				m.prompts = append(m.prompts, msg.Content)
			}
		case "assistant":
			pending = append(pending[:0], m.historyAssistant(msg.Content)...)
			for _, tc := range msg.ToolCalls {
				c := tools.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: []byte(tc.Function.Arguments), RawArguments: tc.Function.Arguments}
				e := &entry{kind: kindTool, call: c}
				m.toolByID[tc.ID] = e
				m.add(e)
			}
		case "tool":
			r := historyResult(msg.Content)
			if e, ok := m.toolByID[msg.ToolCallID]; ok {
				e.result = &r
			}
		}
	}
	m.histIdx = len(m.prompts)
	if len(msgs) > 0 {
		m.add(&entry{kind: kindNotice, text: "resumed session"})
	}
}

// historyAssistant adds an assistant message's visible text and a tool block
// for each call written in its text; it returns those blocks.
func (m *Model) historyAssistant(content string) []*entry {
	if strings.TrimSpace(content) == "" {
		return nil
	}
	segs := detectAll("native", content)
	if !hasCall(segs) && strings.Contains(content, "{") {
		// A ```json fence or a bare JSON decision: only the json detector takes those.
		if js := detectAll("json", content); hasCall(js) {
			segs = js
		}
	}
	var calls []*entry
	var text strings.Builder
	flushText := func() {
		if strings.TrimSpace(text.String()) != "" {
			s := &mdStream{md: m.md}
			s.append(text.String())
			m.add(&entry{kind: kindAssistant, stream: s, done: true})
		}
		text.Reset()
	}
	for _, sg := range segs {
		if sg.Call == nil {
			text.WriteString(sg.Text)
			continue
		}
		flushText()
		e := &entry{kind: kindTool, call: *sg.Call}
		m.add(e)
		calls = append(calls, e)
	}
	flushText()
	return calls
}

// detectAll splits a whole stored response into segments with the named
// protocol's detector; without the protocol the text is one segment.
func detectAll(name, content string) []protocol.Segment {
	p, err := protocol.ForName(name)
	if err != nil {
		return []protocol.Segment{{Text: content}}
	}
	d := p.NewDetector(nil)
	segs := append([]protocol.Segment(nil), d.Feed(content)...)
	return append(segs, d.Flush()...)
}

func hasCall(segs []protocol.Segment) bool {
	for _, s := range segs {
		if s.Call != nil {
			return true
		}
	}
	return false
}

// historyResults attaches the tool results of a text-protocol user message to
// the pending calls by name, in order, adding a block for a result whose call
// is unknown. It returns the calls still pending.
func (m *Model) historyResults(content string, pending []*entry) []*entry {
	locs := resultHeader.FindAllStringSubmatchIndex(content, -1)
	for i, loc := range locs {
		name := content[loc[2]:loc[3]]
		end := len(content)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := strings.TrimRight(content[loc[1]:end], "\n")
		r := historyResult(body)
		var e *entry
		for j, p := range pending {
			if p.call.Name == name {
				e = p
				pending = append(pending[:j:j], pending[j+1:]...)
				break
			}
		}
		if e == nil {
			e = &entry{kind: kindTool, call: tools.Call{Name: name}}
			m.add(e)
		}
		e.result = &r
		e.invalidate()
	}
	return pending
}

// historyResult turns a stored result text (tools.Result.Text) back into a
// result: "error (KIND): message\noutput" is a failure of that kind.
func historyResult(content string) tools.Result {
	rest, ok := strings.CutPrefix(content, "error (")
	if !ok {
		return tools.OK(content)
	}
	kind, msg, ok := strings.Cut(rest, "): ")
	if !ok || kind == "" || strings.ContainsAny(kind, " \n") {
		return tools.OK(content)
	}
	out := ""
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg, out = msg[:i], msg[i+1:]
	}
	r := tools.Fail(tools.ErrorKind(kind), msg)
	r.Output = out
	return r
}
