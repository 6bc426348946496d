// Package session saves conversations as they happen, one JSON line per
// message, so a crash or a kill -9 loses at most the answer being streamed,
// and lets `tact --continue` / `tact --resume ID` pick a conversation up again.
//
// A session file <Dir>/<ID>.jsonl starts with a header line
//
//	{"type":"session","id":"20261126-013000-ab12","created":"…","workdir":"/src/x","model":"gpt-4o"}
//
// and has one line per message after it:
//
//	{"type":"message","message":{"role":"user","content":"hi"}}
//
// The message is go-openai's ChatCompletionMessage JSON. Files are 0600 in a
// 0700 directory.
package session

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"tact/agent/llm"
	"tact/redact"
)

const (
	fileSuffix  = ".jsonl"
	auditSuffix = ".audit.jsonl"
	idLayout    = "20060102-150405"
	maxIDLen    = 128
)

// ErrNotFound means no session matched.
var ErrNotFound = errors.New("session not found")

// ErrInvalidID means a session ID has characters other than letters, digits,
// '-' and '_' (so it can never name a path outside the session folder).
var ErrInvalidID = errors.New("invalid session ID")

// Meta describes a session.
type Meta struct {
	// ID names the session; it is also the file name without ".jsonl".
	ID string
	// Created is when the session started.
	Created time.Time
	// Workdir is the folder tact ran in; --continue picks sessions by it.
	Workdir string
	// Model is the model the session started with.
	Model string

	// Path is the session file (set by Create, Open, List and Latest).
	Path string
	// Modified is the file's last change (set by List, Latest and Open).
	Modified time.Time
	// Messages counts the saved messages (set by List, Latest and Open).
	Messages int
	// FirstPrompt is the start of the first user message, on one line (set
	// by List, Latest and Open).
	FirstPrompt string
}

func (h header) meta() Meta {
	created, _ := time.Parse(time.RFC3339Nano, h.Created)
	return Meta{ID: h.ID, Created: created, Workdir: h.Workdir, Model: h.Model}
}

// Store is the folder sessions are saved in.
type Store struct {
	// Dir is the folder; DefaultDir gives the usual one.
	Dir string
	// Secrets are values (API keys) replaced by "[redacted]" in every
	// message before it is saved. Optional.
	Secrets []string
	// Logger receives warnings about damaged files. Nil discards them.
	Logger *slog.Logger
}

// DefaultDir returns $XDG_STATE_HOME/tact/sessions, or
// ~/.local/state/tact/sessions when XDG_STATE_HOME is unset or not absolute.
func DefaultDir() (string, error) {
	if state := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(state) {
		return filepath.Join(state, "tact", "sessions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the session folder: %w (set XDG_STATE_HOME or HOME)", err)
	}
	return filepath.Join(home, ".local", "state", "tact", "sessions"), nil
}

// ValidateID checks that id can name a session file: 1 to 128 letters,
// digits, '-' or '_'.
func ValidateID(id string) error {
	if id == "" || len(id) > maxIDLen {
		return fmt.Errorf("%w %q: it must have 1 to %d characters", ErrInvalidID, id, maxIDLen)
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
		if !ok {
			return fmt.Errorf("%w %q: use only letters, digits, '-' and '_' (see `tact sessions`)", ErrInvalidID, id)
		}
	}
	return nil
}

// NewID returns a time-sortable session ID such as 20261126-013000-ab12
// (UTC time, then 4 random hex digits).
func NewID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format(idLayout) + "-" + hex.EncodeToString(b[:])
}

func (st *Store) logger() *slog.Logger {
	if st.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return st.Logger
}

// path returns the file of a (validated) ID.
func (st *Store) path(id string) string { return filepath.Join(st.Dir, id+fileSuffix) }

// Create starts a new session file and writes its header. An empty
// meta.ID gets a NewID; a zero meta.Created gets the current time; a relative
// meta.Workdir is made absolute.
func (st *Store) Create(meta Meta) (*Session, error) {
	if st.Dir == "" {
		return nil, errors.New("creating a session: the session folder is not set")
	}
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the session folder: %w (check permissions of %s)", err, st.Dir)
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	if meta.Workdir != "" {
		if abs, err := filepath.Abs(meta.Workdir); err == nil {
			meta.Workdir = abs
		}
	}
	autoID := meta.ID == ""
	var f *os.File
	for attempt := 0; ; attempt++ {
		if autoID {
			meta.ID = NewID(meta.Created)
		} else if err := ValidateID(meta.ID); err != nil {
			return nil, err
		}
		var err error
		f, err = os.OpenFile(st.path(meta.ID), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrExist) && autoID && attempt < 10 {
			continue
		}
		return nil, fmt.Errorf("creating session file: %w", err)
	}
	h := header{Type: typeSession, ID: meta.ID, Created: meta.Created.Format(time.RFC3339Nano), Workdir: meta.Workdir, Model: meta.Model}
	line, err := json.Marshal(h)
	if err == nil {
		_, err = f.Write(append(line, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("writing session header: %w", err)
	}
	syncDir(st.Dir)
	meta.Path = f.Name()
	meta.Modified = time.Now()
	return &Session{f: f, meta: meta, red: redact.New(st.Secrets)}, nil
}

// Open reopens session id for appending and returns its saved messages.
// id may also be a unique prefix of an ID. A damaged file is repaired as far
// as possible: an incomplete last line is cut off, corrupt lines are skipped;
// Session.Warnings says what happened.
func (st *Store) Open(id string) (*Session, []llm.Message, error) {
	if err := ValidateID(id); err != nil {
		return nil, nil, err
	}
	path, err := st.resolve(id)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening session %s: %w", id, err)
	}
	c, err := Read(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("reading session %s (%s): %w", id, path, err)
	}
	s := &Session{f: f, meta: c.Meta, red: redact.New(st.Secrets), needNL: c.NeedNewline, warnings: c.Warnings()}
	if c.Truncated {
		if err := f.Truncate(c.End); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("cutting the incomplete last line of session %s: %w", id, err)
		}
	}
	for _, w := range s.warnings {
		st.logger().Warn("session file damaged", "session", c.Meta.ID, "path", path, "problem", w)
	}
	s.meta.Path = path
	if fi, err := f.Stat(); err == nil {
		s.meta.Modified = fi.ModTime()
	}
	return s, c.Messages, nil
}

// resolve finds the file of an exact ID or of a unique ID prefix.
func (st *Store) resolve(id string) (string, error) {
	path := st.path(id)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("opening session %s: %w", id, err)
	}
	ids, err := st.ids()
	if err != nil {
		return "", err
	}
	var matches []string
	for _, other := range ids {
		if len(other) > len(id) && other[:len(id)] == id {
			matches = append(matches, other)
		}
	}
	switch len(matches) {
	case 1:
		return st.path(matches[0]), nil
	case 0:
		return "", fmt.Errorf("%w: no session %q in %s (run `tact sessions` to list them)", ErrNotFound, id, st.Dir)
	default:
		slices.Sort(matches)
		return "", fmt.Errorf("%w: %q matches %d sessions (%s, …); give more of the ID", ErrNotFound, id, len(matches), matches[0])
	}
}

// Session is an open session file that messages are appended to. Its methods
// are safe for concurrent use.
type Session struct {
	mu       sync.Mutex
	f        *os.File
	meta     Meta
	red      *redact.Redactor
	needNL   bool // the file does not end in a newline
	closed   bool
	warnings []string
}

// ID returns the session's ID.
func (s *Session) ID() string { return s.meta.ID }

// Path returns the session file's path.
func (s *Session) Path() string { return s.meta.Path }

// AuditPath returns the path of the session's audit file,
// <Dir>/<ID>.audit.jsonl, for audit.Open.
func (s *Session) AuditPath() string { return s.meta.AuditPath() }

// AuditPath is the audit file that belongs to the session m describes.
func (m Meta) AuditPath() string {
	return filepath.Join(filepath.Dir(m.Path), m.ID+auditSuffix)
}

// Meta returns the session's description as of when it was created or opened.
func (s *Session) Meta() Meta { return s.meta }

// Warnings lists the damage Open found and repaired or skipped; empty for a
// clean file. The TUI may show them.
func (s *Session) Warnings() []string { return slices.Clone(s.warnings) }

// Append saves one message: it writes the line and syncs it to disk before
// returning, so the message survives a kill -9 or a crash right after.
func (s *Session) Append(msg llm.Message) error {
	line, err := json.Marshal(messageLine{Type: typeMessage, Message: redactMessage(msg, s.red)})
	if err != nil {
		return fmt.Errorf("saving message to session %s: %w", s.meta.ID, err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("saving message to session %s: the session is closed", s.meta.ID)
	}
	if s.needNL {
		// End a partial line from an earlier failed write so the new line
		// stands on its own; the reader skips the broken one.
		line = append([]byte{'\n'}, line...)
	}
	n, err := s.f.Write(line)
	if err != nil {
		s.needNL = n > 0
		return fmt.Errorf("saving message to session %s: %w (is the disk full?)", s.meta.ID, err)
	}
	s.needNL = false
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("saving message to session %s: flushing to disk: %w", s.meta.ID, err)
	}
	return nil
}

// Close closes the file. Appending after Close fails; Close twice is fine.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("closing session %s: %w", s.meta.ID, err)
	}
	return nil
}

// redactMessage returns a copy of msg with secret values hidden in every
// text it carries. msg itself is not changed.
func redactMessage(msg llm.Message, r *redact.Redactor) *llm.Message {
	if r.Empty() {
		return &msg
	}
	msg.Content = r.String(msg.Content)
	msg.Refusal = r.String(msg.Refusal)
	msg.ReasoningContent = r.String(msg.ReasoningContent)
	if len(msg.MultiContent) > 0 {
		parts := slices.Clone(msg.MultiContent)
		for i := range parts {
			parts[i].Text = r.String(parts[i].Text)
		}
		msg.MultiContent = parts
	}
	if msg.FunctionCall != nil {
		fc := *msg.FunctionCall
		fc.Arguments = r.String(fc.Arguments)
		msg.FunctionCall = &fc
	}
	if len(msg.ToolCalls) > 0 {
		calls := slices.Clone(msg.ToolCalls)
		for i := range calls {
			calls[i].Function.Arguments = r.String(calls[i].Function.Arguments)
		}
		msg.ToolCalls = calls
	}
	return &msg
}

// syncDir flushes a directory entry change (a new file) to disk; errors are
// ignored because not every file system supports it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
