package session

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"tact/agent/llm"
)

// FuzzSessionReader feeds random bytes to Read. It must never panic, and the
// messages it returns must be exactly those of the lines after the header
// that are complete, valid message lines (an unterminated last line counts
// only when it is valid JSON). Cutting the file at End and appending a new
// line must give the same messages plus the new one.
func FuzzSessionReader(f *testing.F) {
	f.Add([]byte(`{"type":"session","id":"a1","created":"2026-01-01T00:00:00Z","workdir":"/w"}` + "\n" +
		`{"type":"message","message":{"role":"user","content":"hi"}}` + "\n"))
	f.Add([]byte(`{"type":"session","id":"a1"}` + "\n" + `{"type":"message","message":{"role":"user","con`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(bytes.NewReader(data))
		if err != nil {
			if c != nil {
				t.Fatal("Read returned contents with an error")
			}
			return
		}
		want := oracle(data)
		if len(c.Messages) != len(want) || (len(want) > 0 && !reflect.DeepEqual(c.Messages, want)) {
			t.Fatalf("Read gave %d messages %+v, the valid lines hold %d: %+v", len(c.Messages), c.Messages, len(want), want)
		}
		if c.End < 0 || c.End > int64(len(data)) {
			t.Fatalf("End %d outside the file (%d bytes)", c.End, len(data))
		}
		if c.Meta.Messages != len(c.Messages) {
			t.Fatalf("Meta.Messages = %d, want %d", c.Meta.Messages, len(c.Messages))
		}

		// Repair and append, as Open and Append do.
		repaired := append([]byte(nil), data[:c.End]...)
		if c.NeedNewline {
			repaired = append(repaired, '\n')
		}
		repaired = append(repaired, `{"type":"message","message":{"role":"user","content":"appended"}}`+"\n"...)
		c2, err := Read(bytes.NewReader(repaired))
		if err != nil {
			t.Fatalf("reading the repaired file: %v", err)
		}
		if c2.Truncated || len(c2.Messages) != len(c.Messages)+1 || c2.Messages[len(c.Messages)].Content != "appended" {
			t.Fatalf("after repair+append: %d messages (had %d), truncated %v", len(c2.Messages), len(c.Messages), c2.Truncated)
		}
	})
}

// oracle finds the messages of a session file the simple way: split into
// lines, drop everything up to and including the first non-blank line (the
// header), keep the lines that decode as valid message lines.
func oracle(data []byte) []llm.Message {
	lines := bytes.Split(data, []byte("\n"))
	var out []llm.Message
	seenHeader := false
	for _, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !seenHeader {
			seenHeader = true
			continue
		}
		var ml struct {
			Type    string       `json:"type"`
			Message *llm.Message `json:"message"`
		}
		if json.Unmarshal(line, &ml) != nil || ml.Type != "message" || ml.Message == nil {
			continue
		}
		switch ml.Message.Role {
		case "system", "user", "assistant", "tool", "function", "developer":
			out = append(out, *ml.Message)
		}
	}
	return out
}
