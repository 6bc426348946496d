package protocol

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// leading says which JSON objects at the start of a reply (or right after a
// previous piece of markup) are captured as a possible call.
type leading uint8

const (
	// leadKeyed captures only an object whose first key is name, tool,
	// tool_calls or function: {"name": …}.
	leadKeyed leading = iota + 1
	// leadAny captures any object (the json protocol).
	leadAny
)

// config is what differs between the protocols' detectors.
type config struct {
	// triggers are the bytes that may start markup anywhere in the text:
	// '<' for tags, '`' for a ```json fence. Backticks are always tracked
	// (markup inside a code span or fenced block is text); listing '`'
	// here makes a ```json fence a call.
	triggers string
	leading  leading
	// tagFences makes markup inside a ```xml (```tool_call, ```tool_action)
	// fence count: text protocols, whose models often fence their calls.
	tagFences bool
}

// captureStatus is what advance found out about the markup being captured.
type captureStatus uint8

const (
	capMore    captureStatus = iota // not complete yet
	capDone                         // complete: finish it
	capAbandon                      // not markup after all: release it as text
)

// bodyKind is what a tag's body turned out to hold.
type bodyKind uint8

const (
	bodyUnknown bodyKind = iota // no non-space byte after the opening tag yet
	bodyJSON                    // starts with { or [: the closing tag is searched literally
	bodyMarkup                  // child tags: quoted attribute values are skipped
)

// defaultMaxCapture is how much markup is buffered before it is given up
// and shown as text, so a tag that never closes cannot hide the rest of a
// long reply.
const defaultMaxCapture = 256 << 10

// captureKind is the kind of markup being buffered.
type captureKind uint8

const (
	capTag   captureKind = iota + 1 // <tool_action …> or <tool_call …>, ends at its closing tag
	capBrace                        // a JSON object, ends when its braces balance
	capFence                        // a ```json fence, ends at the next ```
)

// match is the verdict on a possible opening marker.
type match uint8

const (
	matchNo   match = iota // cannot be markup: the byte is text
	matchMore              // may still become markup: hold it
	matchYes               // markup starts here
)

var (
	tagOpeners = [...]struct{ open, close string }{
		{"<tool_action", "</tool_action>"},
		{"<tool_call", "</tool_call>"},
	}
	leadKeys = [...]string{"name", "tool", "tool_calls", "function", "arguments", "parameters"}
)

const fence = "```"

// detector is the one streaming engine behind every protocol.
//
// In text mode the input is scanned for trigger bytes with bytes.IndexByte;
// text without them is returned as a substring of the chunk, without
// copying. A suffix that may still grow into an opener (or the bytes of a
// split UTF-8 character) is kept in buf. In capture mode buf holds the
// markup from its first byte; scan marks how far it has been examined, so
// each byte is looked at a bounded number of times however it is chunked.
type detector struct {
	cfg   config
	specs *specIndex
	out   []Segment
	one   [1]Segment // the fast path's result, reused
	buf   []byte

	capturing  bool
	atStart    bool // only whitespace (or markup) so far: a leading JSON object counts
	fences     bool // a ```json fence is a call (the json protocol)
	code       int  // text mode: 0, or the backtick run that opened the code span/fence we are in
	tagFence   bool // text mode: inside a ```xml (or ```tool_call…) fence, where markup still counts
	fast       bool // Feed may take its fast path (see updateFast)
	maxCapture int

	// capture state
	kind      captureKind
	closeLit  string
	scan      int
	inOpen    bool // capTag: still inside the opening tag
	quote     byte // capTag: quote character of the attribute value being read
	lastNS    byte // capTag: last non-space byte of the opening tag
	bodyStart int  // capTag: offset of the first byte after the opening tag
	bare      bool // capTag: a bare <tool_call> (no attributes): the body must start with {, [ or <
	body      bodyKind
	inChild   bool // capTag body: inside a child tag
	fallback  int  // capTag body: end of a closing tag seen inside a quoted value never closed (0 none)
	depth     int  // capBrace
	inStr     bool // capBrace
	esc       bool // capBrace

	scanned int // bytes examined while capturing (tests check O(n))
}

func newDetector(cfg config, specs *specIndex) *detector {
	return &detector{cfg: cfg, specs: specs, atStart: true,
		fences: strings.IndexByte(cfg.triggers, '`') >= 0, maxCapture: defaultMaxCapture}
}

// Feed implements Detector.
func (d *detector) Feed(chunk string) []Segment {
	// Fast path, kept small so it stays cheap per chunk: in plain text, a
	// chunk without a trigger byte that does not end inside a UTF-8
	// character is visible as it is.
	// Inside an inline code span a newline matters too, so that state
	// takes the slow path.
	if n := len(chunk); d.fast && n > 0 &&
		(chunk[n-1] < utf8.RuneSelf || partialRune(chunk) == 0) &&
		!hasMarkupByte(chunk) {
		d.one[0].Text = chunk // the other fields of d.one stay zero
		return d.one[:]
	}
	d.out = d.out[:0]
	if chunk == "" {
		return d.out
	}
	switch {
	case d.capturing:
		d.buf = append(d.buf, chunk...)
		d.resume()
	case len(d.buf) > 0:
		d.buf = append(d.buf, chunk...)
		s := string(d.buf)
		d.buf = d.buf[:0]
		d.text(s)
	default:
		d.text(chunk)
	}
	d.updateFast()
	return d.out
}

// updateFast records whether the next chunk may take Feed's fast path:
// plain text mode with nothing held back, past the start of the reply, and
// not inside an inline code span (where a newline matters). The state only
// changes on the slow path and in Flush, which call this.
func (d *detector) updateFast() {
	d.fast = !d.capturing && !d.atStart && len(d.buf) == 0 && (d.code == 0 || d.code >= len(fence))
}

// Flush implements Detector.
func (d *detector) Flush() []Segment {
	d.out = d.out[:0]
	if d.capturing && d.kind == capTag && d.quote != 0 && d.fallback > 0 {
		// A quoted value never closed: the closing tag seen inside it was
		// the real one after all.
		raw, rest := string(d.buf[:d.fallback]), string(d.buf[d.fallback:])
		d.buf = d.buf[:0]
		d.capturing = false
		d.finish(raw)
		d.text(rest)
	}
	if d.capturing {
		raw := string(d.buf)
		d.out = append(d.out, Segment{Text: raw, Warning: fmt.Sprintf(
			"incomplete tool call %s was not run: the response ended before the markup was closed, so it is shown as text",
			preview(raw))})
	} else if len(d.buf) > 0 {
		d.out = append(d.out, Segment{Text: string(d.buf)})
	}
	d.buf = d.buf[:0]
	d.capturing = false
	d.atStart = true
	d.code = 0
	d.tagFence = false
	d.updateFast()
	return d.out
}

// text scans s in text mode from its start.
func (d *detector) text(s string) {
	i, start := 0, 0
	nextLT, nextTick, nextNL := -2, -2, -2 // cached next positions; -1 none left
	for i < len(s) {
		if d.atStart {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i == len(s) {
				break
			}
			if s[i] == '{' {
				switch d.matchLeading(s[i:]) {
				case matchMore:
					d.emitText(s[start:i])
					d.buf = append(d.buf, s[i:]...)
					return
				case matchYes:
					d.emitText(s[start:i])
					n, done := d.startCapture(capBrace, "", s[i:])
					if !done {
						return
					}
					i += n
					start = i
					continue
				}
			}
			d.atStart = false
		}
		j := nextIndex(s, i, &nextTick, '`')
		switch {
		case d.code == 0:
			if k := nextIndex(s, i, &nextLT, '<'); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		case d.code < len(fence):
			// An inline code span ends at the end of its line at the
			// latest, so a stray backtick cannot hide a later call.
			if k := nextIndex(s, i, &nextNL, '\n'); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			break
		}
		if s[j] == '\n' {
			d.code = 0
			i = j + 1
			continue
		}
		if s[j] == '`' {
			n := 1
			for j+n < len(s) && s[j+n] == '`' {
				n++
			}
			if j+n == len(s) {
				// The run may go on in the next chunk.
				d.emitText(s[start:j])
				d.buf = append(d.buf, s[j:]...)
				return
			}
			if d.code == 0 && d.fences && n == len(fence) {
				switch matchFence(s[j:]) {
				case matchMore:
					d.emitText(s[start:j])
					d.buf = append(d.buf, s[j:]...)
					return
				case matchYes:
					d.emitText(s[start:j])
					m, done := d.startCapture(capFence, fence, s[j:])
					if !done {
						return
					}
					i = j + m
					start = i
					continue
				}
			}
			if d.tagFence && n >= len(fence) {
				d.tagFence = false // the end of a ```xml fence
				i = j + n
				continue
			}
			if d.code == 0 && d.cfg.tagFences && !d.tagFence && n == len(fence) {
				// Models often wrap a call in ```xml: such a fence stays
				// visible but its markup still counts.
				switch matchTagFence(s[j:]) {
				case matchMore:
					d.emitText(s[start:j])
					d.buf = append(d.buf, s[j:]...)
					return
				case matchYes:
					d.tagFence = true
					i = j + n
					continue
				}
			}
			switch {
			case d.code == 0:
				d.code = n
			case n == d.code || d.code >= len(fence) && n > d.code:
				d.code = 0
			}
			i = j + n
			continue
		}
		m, closeLit := matchOpener(s[j:])
		switch m {
		case matchNo:
			i = j + 1
			continue
		case matchMore:
			d.emitText(s[start:j])
			d.buf = append(d.buf, s[j:]...)
			return
		}
		d.emitText(s[start:j])
		n, done := d.startCapture(capTag, closeLit, s[j:])
		if !done {
			return
		}
		i = j + n
		start = i
	}
	end := len(s) - partialRune(s)
	d.emitText(s[start:end])
	d.buf = append(d.buf, s[end:]...)
}

// nextIndex returns the position of the first b in s at or after i, caching
// it in *cache (-2: not searched yet, -1: none left).
func nextIndex(s string, i int, cache *int, b byte) int {
	if *cache == -2 || *cache >= 0 && *cache < i {
		*cache = strings.IndexByte(s[i:], b)
		if *cache >= 0 {
			*cache += i
		}
	}
	return *cache
}

func (d *detector) emitText(s string) {
	if s != "" {
		d.out = append(d.out, Segment{Text: s})
	}
}

// partialRune returns the length of an incomplete UTF-8 character at the end
// of s (0 when s ends with a whole character or with invalid bytes).
func partialRune(s string) int {
	n := len(s)
	if n == 0 || s[n-1] < utf8.RuneSelf {
		return 0
	}
	for k := 1; k <= utf8.UTFMax-1 && k <= n; k++ {
		c := s[n-k]
		if c >= 0xC0 {
			if !utf8.FullRuneInString(s[n-k:]) {
				return k
			}
			return 0
		}
		if c < 0x80 {
			return 0
		}
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// preview is the start of raw markup for a warning, cut at a character boundary.
func preview(raw string) string {
	const limit = 40
	if i := strings.IndexAny(raw, "\r\n"); i >= 0 && i < limit {
		return fmt.Sprintf("%q…", raw[:i])
	}
	if len(raw) <= limit {
		return fmt.Sprintf("%q", raw)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", raw[:cut])
}
