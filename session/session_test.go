package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent/llm"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	return &Store{Dir: filepath.Join(t.TempDir(), "sessions")}
}

func sampleMessages() []llm.Message {
	return []llm.Message{
		{Role: "system", Content: "You are tact."},
		{Role: "user", Content: "list the files\nin this folder please"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "call_1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "shell", Arguments: `{"command":"ls -la"}`}}}},
		{Role: "tool", ToolCallID: "call_1", Content: "a.go\nb.go <&> \"quoted\" ünïcode"},
		{Role: "assistant", Content: "There are two files."},
	}
}

func appendAll(t *testing.T, s *Session, msgs []llm.Message) {
	t.Helper()
	for _, m := range msgs {
		if err := s.Append(m); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
}

func TestCreateAppendReopen(t *testing.T) {
	st := newStore(t)
	created := time.Date(2026, 11, 26, 1, 30, 0, 0, time.UTC)
	s, err := st.Create(Meta{Workdir: "/src/proj", Model: "gpt-test", Created: created})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.ID(), "20261126-013000-") || ValidateID(s.ID()) != nil {
		t.Errorf("ID %q is not time-sortable", s.ID())
	}
	if s.Path() != filepath.Join(st.Dir, s.ID()+".jsonl") {
		t.Errorf("Path = %s", s.Path())
	}
	if s.AuditPath() != filepath.Join(st.Dir, s.ID()+".audit.jsonl") {
		t.Errorf("AuditPath = %s", s.AuditPath())
	}
	msgs := sampleMessages()
	appendAll(t, s, msgs[:3])
	// The data is on disk before Close: read it through another handle.
	c := readFile(t, s.Path())
	if len(c.Messages) != 3 {
		t.Fatalf("before Close: %d messages on disk, want 3", len(c.Messages))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(msgs[3]); err == nil {
		t.Error("Append after Close should fail")
	}

	s2, got, err := st.Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs[:3]) {
		t.Errorf("reopened history = %+v\nwant %+v", got, msgs[:3])
	}
	m := s2.Meta()
	if m.Workdir != "/src/proj" || m.Model != "gpt-test" || !m.Created.Equal(created) || m.Messages != 3 {
		t.Errorf("Meta = %+v", m)
	}
	if m.FirstPrompt != "list the files in this folder please" {
		t.Errorf("FirstPrompt = %q", m.FirstPrompt)
	}
	if len(s2.Warnings()) != 0 {
		t.Errorf("clean file gave warnings %v", s2.Warnings())
	}
	appendAll(t, s2, msgs[3:])
	s2.Close()

	_, got, err = st.Open(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs) {
		t.Errorf("after resume+append: %+v", got)
	}
}

func TestFileModes(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(Meta{Workdir: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for path, want := range map[string]os.FileMode{st.Dir: 0o700, s.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode = %o, want %o", path, got, want)
		}
	}
}

func TestListAndLatest(t *testing.T) {
	st := newStore(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type spec struct {
		workdir string
		prompt  string
		n       int
	}
	specs := []spec{
		{"/a", "first in a", 2},
		{"/b", "only in b", 1},
		{"/a", strings.Repeat("long prompt ", 20), 3},
		{"/c", "", 0},
	}
	ids := make([]string, len(specs))
	for i, sp := range specs {
		s, err := st.Create(Meta{Workdir: sp.workdir, Created: base.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if sp.n > 0 {
			appendAll(t, s, []llm.Message{{Role: "user", Content: sp.prompt}})
			for j := 1; j < sp.n; j++ {
				appendAll(t, s, []llm.Message{{Role: "assistant", Content: "ok"}})
			}
		}
		s.Close()
		ids[i] = s.ID()
		mt := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(s.Path(), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	// The first /a session was used last: it is the latest for /a.
	late := base.Add(10 * time.Hour)
	os.Chtimes(filepath.Join(st.Dir, ids[0]+".jsonl"), late, late)
	// Files that must not show up.
	os.WriteFile(filepath.Join(st.Dir, ids[0]+".audit.jsonl"), []byte("{}\n"), 0o600)
	os.WriteFile(filepath.Join(st.Dir, "garbage.jsonl"), []byte("not json\n"), 0o600)
	os.WriteFile(filepath.Join(st.Dir, "notes.txt"), []byte("x"), 0o600)

	metas, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, m := range metas {
		gotIDs = append(gotIDs, m.ID)
	}
	wantIDs := []string{ids[0], ids[3], ids[2], ids[1]}
	if !reflect.DeepEqual(gotIDs, wantIDs) {
		t.Fatalf("List order = %v, want %v", gotIDs, wantIDs)
	}
	if metas[0].Messages != 2 || metas[0].FirstPrompt != "first in a" || !metas[0].Modified.Equal(late) {
		t.Errorf("meta[0] = %+v", metas[0])
	}
	if metas[2].Messages != 3 || len([]rune(metas[2].FirstPrompt)) != PromptPreviewRunes || !strings.HasSuffix(metas[2].FirstPrompt, "…") {
		t.Errorf("long prompt meta = %+v", metas[2])
	}
	if metas[1].Messages != 0 || metas[1].FirstPrompt != "" {
		t.Errorf("empty session meta = %+v", metas[1])
	}

	for workdir, want := range map[string]string{"/a": ids[0], "/a/": ids[0], "/b": ids[1], "/c/../c": ids[3]} {
		m, err := st.Latest(workdir)
		if err != nil || m.ID != want {
			t.Errorf("Latest(%s) = %s, %v; want %s", workdir, m.ID, err, want)
		}
	}
	if _, err := st.Latest("/nowhere"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Latest(/nowhere) err = %v, want ErrNotFound", err)
	}
}

func TestLatestFollowsSymlinks(t *testing.T) {
	st := newStore(t)
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	s, err := st.Create(Meta{Workdir: real})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if m, err := st.Latest(link); err != nil || m.ID != s.ID() {
		t.Errorf("Latest via symlink = %q, %v", m.ID, err)
	}
}

func TestListMissingDir(t *testing.T) {
	st := &Store{Dir: filepath.Join(t.TempDir(), "none")}
	metas, err := st.List()
	if err != nil || len(metas) != 0 {
		t.Errorf("List of missing folder = %v, %v", metas, err)
	}
}

func TestOpenByPrefixAndInvalidID(t *testing.T) {
	st := newStore(t)
	a, _ := st.Create(Meta{ID: "20260101-000000-aaaa"})
	b, _ := st.Create(Meta{ID: "20260101-000000-bbbb"})
	a.Close()
	b.Close()
	s, _, err := st.Open("20260101-000000-b")
	if err != nil || s.ID() != b.ID() {
		t.Fatalf("Open by unique prefix = %v", err)
	}
	s.Close()
	if _, _, err := st.Open("20260101-000000"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "matches 2") {
		t.Errorf("ambiguous prefix err = %v", err)
	}
	if _, _, err := st.Open("20990101"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing ID err = %v", err)
	}
	for _, bad := range []string{"", "../etc/passwd", "a/b", `a\b`, "..", "x.jsonl", "a b", strings.Repeat("a", 129), "ab\x00c"} {
		if _, _, err := st.Open(bad); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Open(%q) err = %v, want ErrInvalidID", bad, err)
		}
		if bad == "" {
			continue // an empty ID asks Create for a new one
		}
		if _, err := st.Create(Meta{ID: bad}); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Create(ID %q) err = %v, want ErrInvalidID", bad, err)
		}
	}
	if _, err := st.Create(Meta{ID: a.ID()}); err == nil {
		t.Error("Create with an existing ID should fail, not overwrite")
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if d, err := DefaultDir(); err != nil || d != "/state/tact/sessions" {
		t.Errorf("DefaultDir = %q, %v", d, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/u")
	if d, err := DefaultDir(); err != nil || d != "/home/u/.local/state/tact/sessions" {
		t.Errorf("DefaultDir = %q, %v", d, err)
	}
}

func TestSecretsRedactedBeforeSaving(t *testing.T) {
	st := newStore(t)
	st.Secrets = []string{"sk-live-abcdef123"}
	s, err := st.Create(Meta{})
	if err != nil {
		t.Fatal(err)
	}
	msg := llm.Message{Role: "assistant", Content: "key is sk-live-abcdef123",
		ToolCalls: []openai.ToolCall{{ID: "1", Type: "function", Function: openai.FunctionCall{Name: "shell", Arguments: `{"command":"echo sk-live-abcdef123"}`}}}}
	if err := s.Append(msg); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if msg.ToolCalls[0].Function.Arguments != `{"command":"echo sk-live-abcdef123"}` {
		t.Error("Append changed the caller's message")
	}
	data, _ := os.ReadFile(s.Path())
	if bytes.Contains(data, []byte("sk-live-abcdef123")) {
		t.Fatalf("secret saved to disk: %s", data)
	}
	if !bytes.Contains(data, []byte("[redacted]")) {
		t.Errorf("no placeholder in %s", data)
	}
}

func readFile(t *testing.T, path string) *Contents {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
