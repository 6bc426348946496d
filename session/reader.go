package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"tact/agent/llm"
)

// MaxLineBytes is the longest line the reader accepts. Longer lines are
// skipped and counted as corrupt; they are never held in memory whole.
const MaxLineBytes = 256 << 20

// Line types of a session file.
const (
	typeSession = "session"
	typeMessage = "message"
)

// ErrNotSession means a file does not start with a session header line.
var ErrNotSession = errors.New("not a tact session file")

// validRoles are the message roles the reader accepts.
var validRoles = map[string]bool{
	"system": true, "user": true, "assistant": true, "tool": true, "function": true, "developer": true,
}

// header is the first line of a session file.
type header struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Created string `json:"created"`
	Workdir string `json:"workdir"`
	Model   string `json:"model,omitempty"`
}

// messageLine is every further line of a session file.
type messageLine struct {
	Type    string       `json:"type"`
	Message *llm.Message `json:"message"`
}

// Contents is what Read found in a session file.
type Contents struct {
	// Meta is the header's data (ID, Created, Workdir, Model) and the count
	// of messages read.
	Meta Meta
	// Messages are the messages of all complete, valid lines, in order.
	Messages []llm.Message
	// Corrupt counts complete lines that were skipped because they were not
	// valid JSON, not a valid message, or longer than MaxLineBytes.
	Corrupt int
	// Unknown counts valid lines of a type this version does not know; they
	// are skipped.
	Unknown int
	// Truncated is true when the file ended in an incomplete line (the
	// writer was killed mid-line); that line was ignored.
	Truncated bool
	// End is the offset just past the last complete line: new lines go here
	// after the incomplete tail, if any, is cut off.
	End int64
	// NeedNewline is true when the last kept line lacks its final newline,
	// so one must be written before appending.
	NeedNewline bool
}

// Warnings describes in words what Read had to skip; it is empty for a
// clean file.
func (c *Contents) Warnings() []string {
	var w []string
	if c.Truncated {
		w = append(w, "the last line was incomplete (tact was probably killed while writing it) and was ignored")
	}
	if c.Corrupt > 0 {
		w = append(w, fmt.Sprintf("%d corrupt line(s) were skipped", c.Corrupt))
	}
	if c.Unknown > 0 {
		w = append(w, fmt.Sprintf("%d line(s) of an unknown type were skipped (written by a newer tact?)", c.Unknown))
	}
	return w
}

// Read parses a session file: a header line, then one message per line.
// It never fails on a bad message line: an incomplete last line is ignored
// (Truncated), a bad complete line is skipped (Corrupt). It fails only when
// reading fails or the first line is not a valid session header.
func Read(r io.Reader) (*Contents, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	c := &Contents{}
	var offset int64
	haveHeader := false
	for {
		line, n, complete, tooLong, err := readLine(br, MaxLineBytes)
		if err != nil {
			return nil, fmt.Errorf("reading session file: %w", err)
		}
		if n == 0 {
			break // end of file
		}
		start := offset
		offset += n
		if tooLong {
			if !complete {
				c.Truncated = true
				break
			}
			if !haveHeader {
				return nil, fmt.Errorf("%w: the first line is longer than %d bytes", ErrNotSession, MaxLineBytes)
			}
			c.Corrupt++
			c.End = offset
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if complete {
				c.End = offset
			}
			continue
		}
		if !haveHeader {
			h, ok := parseHeader(line)
			if !ok {
				if !complete {
					return nil, fmt.Errorf("%w: the header line is incomplete", ErrNotSession)
				}
				return nil, fmt.Errorf("%w: the first line is not a session header", ErrNotSession)
			}
			haveHeader = true
			c.Meta = h
			c.End, c.NeedNewline = offset, !complete
			continue
		}
		msg, kind := parseLine(line)
		switch {
		case kind == lineBad && !complete:
			// Any strict prefix of a JSON object is invalid JSON, so a bad
			// unterminated last line is a write cut short.
			c.Truncated = true
			c.End = start
		case kind == lineBad:
			c.Corrupt++
			c.End = offset
		case kind == lineUnknown:
			c.Unknown++
			c.End, c.NeedNewline = offset, !complete
		default:
			c.Messages = append(c.Messages, msg)
			c.End, c.NeedNewline = offset, !complete
		}
	}
	if !haveHeader {
		return nil, fmt.Errorf("%w: the file is empty", ErrNotSession)
	}
	c.Meta.Messages = len(c.Messages)
	c.Meta.FirstPrompt = firstPrompt(c.Messages)
	return c, nil
}

// parseHeader decodes a header line.
func parseHeader(line []byte) (Meta, bool) {
	var h header
	if err := json.Unmarshal(line, &h); err != nil || h.Type != typeSession || ValidateID(h.ID) != nil {
		return Meta{}, false
	}
	return h.meta(), true
}

type lineKind int

const (
	lineBad lineKind = iota
	lineMessage
	lineUnknown
)

// parseLine decodes one line after the header.
func parseLine(line []byte) (llm.Message, lineKind) {
	var ml messageLine
	if err := json.Unmarshal(line, &ml); err != nil {
		return llm.Message{}, lineBad
	}
	switch ml.Type {
	case typeMessage:
		if ml.Message == nil || !validRoles[ml.Message.Role] {
			return llm.Message{}, lineBad
		}
		return *ml.Message, lineMessage
	case "":
		return llm.Message{}, lineBad
	default:
		return llm.Message{}, lineUnknown
	}
}

// readLine reads one line of any length. It returns the line without its
// newline, the number of bytes consumed (newline included), whether the line
// ended in a newline, and whether it was longer than max (then line is nil
// and the rest of the line was consumed and dropped). At end of file it
// returns n == 0 and a nil error.
func readLine(br *bufio.Reader, max int) (line []byte, n int64, complete, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong {
			if len(buf)+len(chunk) > max+1 { // +1: the newline is not part of the line
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, n, true, true, nil
			}
			return buf[:len(buf)-1], n, true, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return buf, n, false, tooLong, nil
		default:
			return nil, n, false, false, err
		}
	}
}
