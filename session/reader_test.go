package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"tact/agent/llm"
)

// createWith makes a session holding msgs and returns it closed.
func createWith(t *testing.T, st *Store, msgs []llm.Message) *Session {
	t.Helper()
	s, err := st.Create(Meta{Workdir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s, msgs)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s
}

func appendRaw(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestKilledMidWrite simulates a kill -9 during a write: the last line is
// cut short. All complete messages come back, the tail is cut off, and
// appending afterwards gives a clean file.
func TestKilledMidWrite(t *testing.T) {
	st := newStore(t)
	msgs := sampleMessages()
	s := createWith(t, st, msgs)
	full, _ := json.Marshal(messageLine{Type: typeMessage, Message: &llm.Message{Role: "assistant", Content: "a long answer"}})
	for _, cut := range []int{1, len(full) / 2, len(full) - 1} {
		t.Run("", func(t *testing.T) {
			before, _ := os.ReadFile(s.Path())
			appendRaw(t, s.Path(), string(full[:cut]))

			s2, got, err := st.Open(s.ID())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, msgs) {
				t.Fatalf("got %d messages, want the %d complete ones", len(got), len(msgs))
			}
			if w := s2.Warnings(); len(w) != 1 || !strings.Contains(w[0], "incomplete") {
				t.Errorf("warnings = %v", w)
			}
			after, _ := os.ReadFile(s.Path())
			if !bytes.Equal(after, before) {
				t.Errorf("the incomplete tail was not cut off")
			}
			s2.Close()
		})
	}
	s3, _, _ := st.Open(s.ID())
	extra := llm.Message{Role: "user", Content: "next"}
	appendAll(t, s3, []llm.Message{extra})
	s3.Close()
	c := readFile(t, s.Path())
	if !reflect.DeepEqual(c.Messages, append(msgs, extra)) || c.Corrupt != 0 || c.Truncated {
		t.Errorf("after repair: %d messages, corrupt %d, truncated %v", len(c.Messages), c.Corrupt, c.Truncated)
	}
}

// TestCorruptMiddleLine: a damaged complete line is skipped and counted; the
// lines around it survive.
func TestCorruptMiddleLine(t *testing.T) {
	st := newStore(t)
	msgs := sampleMessages()
	s := createWith(t, st, msgs[:2])
	appendRaw(t, s.Path(), "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"cont\x00\n")
	appendRaw(t, s.Path(), `{"type":"message","message":{"role":"nobody","content":"x"}}`+"\n")
	appendRaw(t, s.Path(), `{"type":"summary","text":"from a newer tact"}`+"\n")
	appendRaw(t, s.Path(), "\n")
	s2, _, err := st.Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, s2, msgs[2:])
	s2.Close()

	c := readFile(t, s.Path())
	if !reflect.DeepEqual(c.Messages, msgs) {
		t.Errorf("messages = %+v", c.Messages)
	}
	if c.Corrupt != 2 || c.Unknown != 1 || c.Truncated {
		t.Errorf("corrupt = %d (want 2), unknown = %d (want 1), truncated = %v", c.Corrupt, c.Unknown, c.Truncated)
	}
	if len(c.Warnings()) != 2 {
		t.Errorf("warnings = %v", c.Warnings())
	}
}

// TestLastLineWithoutNewline: a valid last line missing its newline is kept,
// and the next append starts on a new line.
func TestLastLineWithoutNewline(t *testing.T) {
	st := newStore(t)
	s := createWith(t, st, nil)
	appendRaw(t, s.Path(), `{"type":"message","message":{"role":"user","content":"no newline"}}`)
	s2, got, err := st.Open(s.ID())
	if err != nil || len(got) != 1 || got[0].Content != "no newline" {
		t.Fatalf("Open = %v, %v", got, err)
	}
	appendAll(t, s2, []llm.Message{{Role: "assistant", Content: "reply"}})
	s2.Close()
	c := readFile(t, s.Path())
	if len(c.Messages) != 2 || c.Corrupt != 0 {
		t.Errorf("messages = %+v, corrupt = %d", c.Messages, c.Corrupt)
	}
}

func TestLargeMessageRoundTrip(t *testing.T) {
	st := newStore(t)
	big := llm.Message{Role: "tool", ToolCallID: "c1", Content: strings.Repeat("0123456789abcdef\n\"<>", 5<<20/20)}
	msgs := []llm.Message{{Role: "user", Content: "dump"}, big, {Role: "assistant", Content: "done"}}
	s := createWith(t, st, msgs)
	_, got, err := st.Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Content != big.Content || got[2].Content != "done" {
		t.Fatalf("5 MB message did not round-trip (%d messages)", len(got))
	}
	metas, err := st.List()
	if err != nil || len(metas) != 1 || metas[0].Messages != 3 {
		t.Errorf("List = %+v, %v", metas, err)
	}
}

func TestReadBadHeader(t *testing.T) {
	for name, text := range map[string]string{
		"empty":             "",
		"blank":             "\n\n",
		"not json":          "hello\n",
		"message first":     `{"type":"message","message":{"role":"user","content":"x"}}` + "\n",
		"bad id":            `{"type":"session","id":"../x"}` + "\n",
		"incomplete header": `{"type":"session","id":"abc"`,
	} {
		if _, err := Read(strings.NewReader(text)); !errors.Is(err, ErrNotSession) {
			t.Errorf("%s: err = %v, want ErrNotSession", name, err)
		}
	}
}

func TestReadLineLimit(t *testing.T) {
	long := strings.Repeat("x", 100)
	text := "short\n" + long + "\n" + "tail"
	br := bufio.NewReaderSize(strings.NewReader(text), 16)
	type res struct {
		line             string
		n                int64
		complete, tooBig bool
	}
	var got []res
	for {
		line, n, complete, tooBig, err := readLine(br, 50)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		got = append(got, res{string(line), n, complete, tooBig})
	}
	want := []res{{"short", 6, true, false}, {"", 101, true, true}, {"tail", 4, false, false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readLine = %+v, want %+v", got, want)
	}
	// Exactly max bytes is allowed.
	br = bufio.NewReaderSize(strings.NewReader(long[:50]+"\n"), 16)
	line, _, _, tooBig, _ := readLine(br, 50)
	if tooBig || len(line) != 50 {
		t.Errorf("a line of exactly max bytes: tooBig=%v len=%d", tooBig, len(line))
	}
}
