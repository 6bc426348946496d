package protocol

import (
	"bytes"
	"unsafe"
)

// advanceTag is advance for a <tool_action> or <tool_call> element: the
// opening tag (quoted attribute values skipped), then the first byte of the
// body, then the closing tag.
func (d *detector) advanceTag(data []byte) (int, captureStatus) {
	if d.inOpen {
		for i := d.scan; i < len(data); i++ {
			c := data[i]
			if d.quote != 0 {
				if c == d.quote {
					d.quote = 0
				}
				continue
			}
			switch {
			case (c == '"' || c == '\'') && d.lastNS == '=':
				d.quote = c
			case c == '>':
				d.scanned += i + 1 - d.scan
				tag := data[:i+1]
				if d.closeLit == "</tool_action>" && !openTagNamed(tag) {
					// "<tool_action>" in prose, not a call.
					return i + 1, capAbandon
				}
				if d.lastNS == '/' {
					return i + 1, capDone
				}
				d.inOpen, d.bodyStart, d.scan = false, i+1, i+1
				d.bare = d.closeLit == "</tool_call>" && bareTag(tag)
				d.quote, d.lastNS = 0, 0
			}
			if !d.inOpen {
				break
			}
			if !isSpace(c) {
				d.lastNS = c
			}
		}
		if d.inOpen {
			d.scanned += len(data) - d.scan
			d.scan = len(data)
			return 0, capMore
		}
	}
	if d.body == bodyUnknown {
		k := d.scan
		for k < len(data) && isSpace(data[k]) {
			k++
		}
		d.scanned += k - d.scan
		d.scan = k
		if k == len(data) {
			return 0, capMore
		}
		switch data[k] {
		case '{', '[':
			d.body = bodyJSON
		case '<':
			d.body = bodyMarkup
		default:
			if d.bare {
				// "<tool_call> tags wrap…": prose, not a Hermes call.
				return d.bodyStart, capAbandon
			}
			d.body = bodyMarkup
		}
	}
	if d.body == bodyJSON {
		return d.findClose(data, d.bodyStart)
	}
	return d.findTagClose(data)
}

// findTagClose searches a markup body for the closing tag, skipping quoted
// attribute values inside child tags, so that value="</tool_action>" does
// not end the call. A closing tag seen inside a quoted value is remembered
// in fallback: if the quote never closes, Flush uses it.
func (d *detector) findTagClose(data []byte) (int, captureStatus) {
	cl := d.closeLit
	i := max(d.scan, d.bodyStart)
	from := i
	for i < len(data) {
		if d.quote != 0 {
			end := len(data)
			if k := bytes.IndexByte(data[i:], d.quote); k >= 0 {
				end = i + k
			}
			if d.fallback == 0 {
				// Overlap with what was searched before, for a tag split
				// across chunks; a match cannot reach back past the quote
				// character, which the closing tag does not hold.
				from := max(i-len(cl)+1, d.bodyStart)
				if k := bytes.Index(data[from:end], unsafe.Slice(unsafe.StringData(cl), len(cl))); k >= 0 {
					d.fallback = from + k + len(cl)
				}
			}
			if end == len(data) {
				i = end
				break
			}
			d.lastNS, d.quote, d.fallback = d.quote, 0, 0
			i = end + 1
			continue
		}
		if !d.inChild {
			k := bytes.IndexByte(data[i:], '<')
			if k < 0 {
				i = len(data)
				break
			}
			i += k
		}
		c := data[i]
		if c == '<' {
			rest := data[i:]
			if len(rest) < len(cl) {
				if cl[:len(rest)] == string(rest) {
					// Maybe the closing tag, split across chunks: look again
					// from here when more arrives.
					d.scanned += i - from
					d.scan = i
					return 0, capMore
				}
			} else if string(rest[:len(cl)]) == cl {
				d.scanned += i + len(cl) - from
				return i + len(cl), capDone
			}
			d.inChild, d.lastNS = true, 0
			i++
			continue
		}
		switch {
		case c == '>':
			d.inChild = false
		case (c == '"' || c == '\'') && d.lastNS == '=':
			d.quote = c
		}
		if !isSpace(c) {
			d.lastNS = c
		}
		i++
	}
	d.scanned += len(data) - from
	d.scan = len(data)
	return 0, capMore
}

// openTagNamed reports whether an opening tag has a name= or tool=
// attribute (outside quoted values).
func openTagNamed(tag []byte) bool {
	var quote, lastNS byte
	for k, c := range tag {
		if quote != 0 {
			if c == quote {
				quote, lastNS = 0, c
			}
			continue
		}
		switch {
		case (c == '"' || c == '\'') && lastNS == '=':
			quote = c
		case c == '=':
			e := k
			for e > 0 && isSpace(tag[e-1]) {
				e--
			}
			b := e
			for b > 0 && isNameByte(tag[b-1]) {
				b--
			}
			if w := string(tag[b:e]); (w == "name" || w == "tool") && b > 0 && isSpace(tag[b-1]) {
				return true
			}
		}
		if !isSpace(c) {
			lastNS = c
		}
	}
	return false
}

// bareTag reports whether an opening tag is "<tool_call>" without
// attributes (spaces allowed before the >).
func bareTag(tag []byte) bool {
	const open = "<tool_call"
	if len(tag) <= len(open) || string(tag[:len(open)]) != open {
		return false
	}
	for _, c := range tag[len(open) : len(tag)-1] {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// hasMarkupByte reports whether s holds '<' or '`'. It tests eight bytes
// at a time (a zero byte in w^pattern marks a match), which on the short
// chunks of a stream costs about one strings.IndexByte.
func hasMarkupByte(s string) bool {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
		lt   = '<' * ones
		tick = '`' * ones
	)
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		a, b := w^lt, w^tick
		if ((a-ones)&^a|(b-ones)&^b)&high != 0 {
			return true
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '<' || c == '`' {
			return true
		}
	}
	return false
}
