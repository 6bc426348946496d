package session

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"tact/agent/llm"
)

// PromptPreviewRunes is how much of the first user prompt Meta.FirstPrompt keeps.
const PromptPreviewRunes = 80

// messagePrefix starts every message line this package writes; List counts
// lines by it instead of decoding whole (possibly huge) messages.
var messagePrefix = []byte(`{"type":"message"`)

// ids returns the IDs of the session files in the folder (audit files and
// other files left out). A missing folder has no sessions.
func (st *Store) ids() ([]string, error) {
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing sessions in %s: %w", st.Dir, err)
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, fileSuffix) || strings.HasSuffix(name, auditSuffix) {
			continue
		}
		id := strings.TrimSuffix(name, fileSuffix)
		if ValidateID(id) == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// List returns the saved sessions, most recently changed first, with their
// message counts, first prompts and change times. Files that are not valid
// sessions are skipped with a warning to the Store's logger.
func (st *Store) List() ([]Meta, error) {
	ids, err := st.ids()
	if err != nil {
		return nil, err
	}
	metas := make([]Meta, 0, len(ids))
	for _, id := range ids {
		m, err := scanMeta(st.path(id))
		if err != nil {
			st.logger().Warn("skipping unreadable session file", "path", st.path(id), "err", err)
			continue
		}
		metas = append(metas, m)
	}
	slices.SortFunc(metas, func(a, b Meta) int {
		if c := b.Modified.Compare(a.Modified); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return metas, nil
}

// Latest returns the most recently changed session started in workdir (for
// `tact --continue`). Paths are compared cleaned and with symlinks resolved.
// It returns an error wrapping ErrNotFound when there is none.
func (st *Store) Latest(workdir string) (Meta, error) {
	metas, err := st.List()
	if err != nil {
		return Meta{}, err
	}
	want := samePathKeys(workdir)
	for _, m := range metas {
		for _, k := range samePathKeys(m.Workdir) {
			if slices.Contains(want, k) {
				return m, nil
			}
		}
	}
	return Meta{}, fmt.Errorf("%w: no saved session was started in %s (run `tact sessions` to see all of them)", ErrNotFound, workdir)
}

// samePathKeys returns the forms of a folder path that identify it: cleaned,
// absolute, and with symlinks resolved when that works.
func samePathKeys(p string) []string {
	if p == "" {
		return nil
	}
	keys := []string{filepath.Clean(p)}
	if abs, err := filepath.Abs(p); err == nil && abs != keys[0] {
		keys = append(keys, abs)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(keys, real) {
		keys = append(keys, real)
	}
	return keys
}

// scanMeta reads a session file's header, counts its message lines and
// finds its first user prompt, decoding only what it needs.
func scanMeta(path string) (Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Meta{}, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var m Meta
	haveHeader, havePrompt := false, false
	for {
		line, n, complete, tooLong, err := readLine(br, MaxLineBytes)
		if err != nil {
			return Meta{}, err
		}
		if n == 0 {
			break
		}
		if tooLong || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !haveHeader {
			h, ok := parseHeader(line)
			if !ok {
				return Meta{}, ErrNotSession
			}
			m, haveHeader = h, true
			continue
		}
		if !bytes.HasPrefix(line, messagePrefix) || (!complete && !json.Valid(line)) {
			continue
		}
		if havePrompt {
			m.Messages++
			continue
		}
		msg, kind := parseLine(line)
		if kind != lineMessage {
			continue
		}
		m.Messages++
		if p := firstPrompt([]llm.Message{msg}); p != "" {
			m.FirstPrompt, havePrompt = p, true
		}
	}
	if !haveHeader {
		return Meta{}, ErrNotSession
	}
	m.Path = path
	m.Modified = fi.ModTime()
	return m, nil
}

// firstPrompt returns the start of the first user message's text on one
// line, at most PromptPreviewRunes runes (with "…" when cut).
func firstPrompt(msgs []llm.Message) string {
	for _, msg := range msgs {
		if msg.Role != "user" {
			continue
		}
		text := msg.Content
		if text == "" {
			for _, part := range msg.MultiContent {
				if part.Text != "" {
					text = part.Text
					break
				}
			}
		}
		text = strings.Join(strings.Fields(text), " ")
		if text == "" {
			continue
		}
		if r := []rune(text); len(r) > PromptPreviewRunes {
			text = string(r[:PromptPreviewRunes-1]) + "…"
		}
		return text
	}
	return ""
}
