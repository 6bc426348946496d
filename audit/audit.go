// Package audit keeps the record of what tact let tools do: every approval
// decision and every tool result is appended as one JSON line to the
// session's audit file (<sessions>/<ID>.audit.jsonl). Arguments are stored
// with secrets hidden.
//
// A decision line:
//
//	{"type":"decision","time":"…","tool":"shell","call_id":"call_1","arguments":{"command":"ls"},
//	 "decision":"allow","source":"rule","rule":"shell: ls *","reason":""}
//
// A result line:
//
//	{"type":"result","time":"…","tool":"shell","call_id":"call_1","success":true,"duration_ms":12,"output_bytes":230}
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"tact/agent"
	"tact/redact"
)

// Decision values.
const (
	Allow = "allow"
	Deny  = "deny"
)

// DecisionRecord is one approval decision on a tool call.
type DecisionRecord struct {
	// Type is always "decision"; Log.Decision sets it.
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	Tool string    `json:"tool"`
	// CallID links the decision to its result.
	CallID string `json:"call_id"`
	// Arguments are the call's arguments; Log.Decision hides secrets in
	// them before writing.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Decision is Allow or Deny.
	Decision string `json:"decision"`
	// Source is who decided: rule, user, flag or default (agent.Source*).
	Source string `json:"source"`
	// Rule describes the rule that matched, if one did.
	Rule string `json:"rule,omitempty"`
	// Reason is the explanation shown to the user or sent to the model.
	Reason string `json:"reason,omitempty"`
}

// ResultRecord is the outcome of one tool call.
type ResultRecord struct {
	// Type is always "result"; Log.Result sets it.
	Type    string    `json:"type"`
	Time    time.Time `json:"time"`
	Tool    string    `json:"tool"`
	CallID  string    `json:"call_id"`
	Success bool      `json:"success"`
	// Kind is the error kind of a failed call (tools.ErrorKind), empty on success.
	Kind       string `json:"kind,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// OutputBytes is the size of the output the model got.
	OutputBytes int `json:"output_bytes"`
	// Cached is true when the result came from the executor's cache.
	Cached bool `json:"cached,omitempty"`
}

// Options configure a Log.
type Options struct {
	// Secrets are values (API keys, tokens) replaced by "[redacted]"
	// wherever they appear in a record.
	Secrets []string
	// Logger receives write errors (an audit failure never stops a turn).
	// Nil discards them.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now. For tests.
	Now func() time.Time
}

// Log appends records to an audit file. Its methods are safe for concurrent
// use; each record is written with one write call, so a kill -9 loses at
// most the record being written.
type Log struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	red    *redact.Redactor
	logger *slog.Logger
	now    func() time.Time
	err    error // the first write error, for Err
}

// Open opens (creating it 0600, and its folder 0700, if needed) the audit
// file at path for appending. For a session, path is Session.AuditPath().
func Open(path string, opts Options) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the audit folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening audit file: %w (check permissions of %s)", err, filepath.Dir(path))
	}
	l := &Log{f: f, path: path, red: redact.New(opts.Secrets), logger: opts.Logger, now: opts.Now}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l, nil
}

// Path returns the audit file's path.
func (l *Log) Path() string { return l.path }

// Decision records an approval decision. Secret-named argument keys
// (api_key, token, password, …) and secret values anywhere in the arguments,
// rule or reason are replaced by "[redacted]". A zero Time is set to now.
func (l *Log) Decision(rec DecisionRecord) error {
	rec.Type = "decision"
	if rec.Time.IsZero() {
		rec.Time = l.now()
	}
	rec.Arguments = l.red.JSON(rec.Arguments)
	rec.Tool = l.red.String(rec.Tool)
	rec.Rule = l.red.String(rec.Rule)
	rec.Reason = l.red.String(rec.Reason)
	return l.write(rec)
}

// Result records a tool result. A zero Time is set to now.
func (l *Log) Result(rec ResultRecord) error {
	rec.Type = "result"
	if rec.Time.IsZero() {
		rec.Time = l.now()
	}
	rec.Tool = l.red.String(rec.Tool)
	return l.write(rec)
}

// write appends one JSON line. Errors are returned, logged, and kept for Err.
func (l *Log) write(rec any) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return l.fail(fmt.Errorf("encoding audit record: %w", err))
	}
	// Values are redacted field by field above; this second pass also
	// catches a secret in any field added later.
	line = append([]byte(l.red.String(string(line))), '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return l.failLocked(errors.New("writing audit record: the audit log is closed"))
	}
	if _, err := l.f.Write(line); err != nil {
		return l.failLocked(fmt.Errorf("writing audit record to %s: %w (is the disk full?)", l.path, err))
	}
	return nil
}

func (l *Log) fail(err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failLocked(err)
}

func (l *Log) failLocked(err error) error {
	if l.err == nil {
		l.err = err
	}
	l.logger.Error("audit log write failed", "err", err)
	return err
}

// Err returns the first error a write hit, or nil. The TUI can warn the user
// that the audit trail is incomplete.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close syncs and closes the file. Records after Close fail; Close twice is
// fine.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	syncErr := f.Sync()
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing audit file: %w", err)
	}
	if syncErr != nil {
		return fmt.Errorf("flushing audit file: %w", syncErr)
	}
	return nil
}

// Sink returns an agent.Sink that records every EventApproval and
// EventToolResult and then passes every event, unchanged, to next (which
// may be nil). Write errors are logged and kept for Err; they never stop
// the event stream.
func (l *Log) Sink(next agent.Sink) agent.Sink {
	return func(ev agent.Event) {
		l.record(ev)
		if next != nil {
			next(ev)
		}
	}
}

// record turns an event into an audit record, if it is one to record.
func (l *Log) record(ev agent.Event) {
	switch ev.Type {
	case agent.EventApproval:
		if ev.Decision == nil {
			return
		}
		rec := DecisionRecord{
			Decision: Deny,
			Source:   ev.Decision.Source,
			Rule:     ev.Decision.Rule,
			Reason:   ev.Decision.Reason,
		}
		if ev.Decision.Allow {
			rec.Decision = Allow
		}
		if c := ev.Call; c != nil {
			rec.Tool, rec.CallID, rec.Arguments = c.Name, c.ID, c.Arguments
			if len(rec.Arguments) == 0 && c.RawArguments != "" {
				// Unparsable arguments are kept as text (a JSON string).
				rec.Arguments, _ = json.Marshal(c.RawArguments)
			}
		}
		_ = l.Decision(rec)
	case agent.EventToolResult:
		if ev.Result == nil {
			return
		}
		r := ev.Result
		rec := ResultRecord{
			Success:     r.Success,
			DurationMS:  r.Duration.Milliseconds(),
			OutputBytes: len(r.Output),
			Cached:      r.Cached,
		}
		if r.Error != nil {
			rec.Kind = string(r.Error.Kind)
		}
		if c := ev.Call; c != nil {
			rec.Tool, rec.CallID = c.Name, c.ID
		}
		_ = l.Result(rec)
	}
}
