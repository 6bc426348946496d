package protocol

// This file holds capture mode: buffering markup from its first byte until
// it closes, is given up, or overflows the cap.

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"tact/tools"
)

// startCapture begins capturing markup at the start of s. It returns the
// number of bytes of s dealt with and true when the markup was complete
// within s (or turned out not to be markup, or passed maxCapture); otherwise
// s is kept in buf and later chunks continue it.
func (d *detector) startCapture(kind captureKind, closeLit, s string) (int, bool) {
	d.capturing, d.kind, d.closeLit = true, kind, closeLit
	d.scan, d.inOpen, d.quote, d.lastNS, d.bodyStart = 1, kind == capTag, 0, 0, 0
	d.bare, d.body, d.inChild, d.fallback = false, bodyUnknown, false, 0
	d.depth, d.inStr, d.esc = 0, false, false
	if kind == capFence {
		d.scan = len(fence)
	}
	if kind == capBrace {
		d.scan, d.depth = 1, 1
	}
	view := s[:min(len(s), d.maxCapture)]
	// A read-only view of s: advance never writes to its argument.
	end, st := d.advance(unsafe.Slice(unsafe.StringData(view), len(view)))
	switch {
	case st == capDone:
		d.capturing = false
		d.finish(s[:end])
		return end, true
	case st == capAbandon:
		d.capturing, d.atStart = false, false
		d.emitText(s[:end])
		return end, true
	case len(s) > d.maxCapture:
		return d.overflow(s), true
	}
	d.buf = append(d.buf[:0], s...)
	return 0, false
}

// resume continues a capture after buf has grown.
func (d *detector) resume() {
	end, st := d.advance(d.buf[:min(len(d.buf), d.maxCapture)])
	var rest string
	switch {
	case st == capDone:
		raw := string(d.buf[:end])
		rest = string(d.buf[end:])
		d.capturing = false
		d.finish(raw)
	case st == capAbandon:
		d.capturing, d.atStart = false, false
		d.emitText(string(d.buf[:end]))
		rest = string(d.buf[end:])
	case len(d.buf) > d.maxCapture:
		all := string(d.buf)
		rest = all[d.overflow(all):]
	default:
		return
	}
	d.buf = d.buf[:0]
	if cap(d.buf) > 64<<10 {
		d.buf = nil
	}
	d.text(rest)
}

// overflow gives up a capture that passed maxCapture bytes: its first
// maxCapture bytes (cut at a character boundary) become text with a
// warning, and detection goes on after them. It returns how many bytes of
// s it released.
func (d *detector) overflow(s string) int {
	cut := d.maxCapture
	for k := 0; cut > 0 && k < utf8.UTFMax-1 && !utf8.RuneStart(s[cut]); k++ {
		cut--
	}
	d.out = append(d.out, Segment{Text: s[:cut], Warning: fmt.Sprintf(
		"incomplete tool call %s was not run: its markup passed %d KiB without being closed, so it is shown as text",
		preview(s), d.maxCapture>>10)})
	d.capturing, d.atStart = false, false
	return cut
}

// advance examines data[d.scan:] for the end of the markup being captured
// and returns the markup's length once it is complete (or, for capAbandon,
// the length of the text to release).
func (d *detector) advance(data []byte) (int, captureStatus) {
	switch d.kind {
	case capTag:
		return d.advanceTag(data)
	case capFence:
		return d.findClose(data, len(fence))
	}
	for i := d.scan; i < len(data); i++ {
		c := data[i]
		if d.inStr {
			switch {
			case d.esc:
				d.esc = false
			case c == '\\':
				d.esc = true
			case c == '"':
				d.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			d.inStr = true
		case '{', '[':
			d.depth++
		case '}', ']':
			d.depth--
			if d.depth == 0 {
				d.scanned += i + 1 - d.scan
				return i + 1, capDone
			}
		}
	}
	d.scanned += len(data) - d.scan
	d.scan = len(data)
	return 0, capMore
}

// findClose searches for closeLit in the bytes not yet searched, with just
// enough overlap to find a literal split across chunks.
func (d *detector) findClose(data []byte, min int) (int, captureStatus) {
	from := max(d.scan-len(d.closeLit)+1, min)
	if from < len(data) {
		d.scanned += len(data) - from
		if k := bytes.Index(data[from:], []byte(d.closeLit)); k >= 0 {
			return from + k + len(d.closeLit), capDone
		}
	}
	d.scan = len(data)
	return 0, capMore
}

// finish turns complete markup into segments.
func (d *detector) finish(raw string) {
	d.atStart = true
	var (
		calls   []tools.Call
		reply   string
		isReply bool
	)
	switch d.kind {
	case capTag:
		calls = d.parseTag(raw)
	case capBrace, capFence:
		inner := raw
		if d.kind == capFence {
			inner = raw[len(fence) : len(raw)-len(fence)]
			if len(inner) >= 4 && strings.EqualFold(inner[:4], "json") {
				inner = inner[4:]
			}
		}
		calls, reply, isReply = d.parseJSONBlock(inner, "", false)
		if calls == nil && !isReply {
			// Not a decision after all: prose that happens to hold JSON.
			d.out = append(d.out, Segment{Text: raw})
			d.atStart = false
			return
		}
	}
	if len(calls) == 0 || reply != "" {
		// A reply is visible text; calls that came with it follow with no Raw.
		d.out = append(d.out, Segment{Raw: raw, Text: reply})
		raw = ""
	}
	for k := range calls {
		d.out = append(d.out, Segment{Call: &calls[k], Raw: raw})
		raw = ""
	}
}
