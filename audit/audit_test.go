package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tact/agent"
	"tact/tools"
)

const apiKey = "sk-live-0123456789"

var fixedTime = time.Date(2026, 11, 26, 1, 30, 0, 0, time.UTC)

func openLog(t *testing.T) *Log {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "s1.audit.jsonl")
	l, err := Open(path, Options{Secrets: []string{apiKey}, Now: func() time.Time { return fixedTime }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// readLines decodes every line of the audit file.
func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad audit line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestSinkRecordsAndForwards(t *testing.T) {
	l := openLog(t)
	var forwarded []agent.EventType
	sink := l.Sink(func(ev agent.Event) { forwarded = append(forwarded, ev.Type) })

	call := &tools.Call{ID: "call_1", Name: "shell",
		Arguments: json.RawMessage(`{"command":"curl -H 'Authorization: Bearer ` + apiKey + `' https://api.example","api_key":"other-value-1"}`)}
	events := []agent.Event{
		{Type: agent.EventText, Text: "running"},
		{Type: agent.EventToolCall, Call: call},
		{Type: agent.EventApproval, Call: call, Decision: &agent.Decision{Allow: true, Source: agent.SourceRule, Rule: "shell: curl *"}},
		{Type: agent.EventToolResult, Call: call, Result: &tools.Result{Success: true, Output: "12345", Duration: 1500 * time.Millisecond}},
		{Type: agent.EventApproval, Call: &tools.Call{ID: "call_2", Name: "shell", Arguments: json.RawMessage(`{"command":"rm -rf /"}`)},
			Decision: &agent.Decision{Allow: false, Source: agent.SourceUser, Reason: "no " + apiKey}},
		{Type: agent.EventToolResult, Call: &tools.Call{ID: "call_2", Name: "shell"},
			Result: &tools.Result{Success: false, Error: &tools.ToolError{Kind: tools.KindDenied, Message: "denied"}}},
		{Type: agent.EventDone, Reason: agent.DoneStop},
	}
	for _, ev := range events {
		sink(ev)
	}
	if len(forwarded) != len(events) {
		t.Fatalf("forwarded %d events, want %d", len(forwarded), len(events))
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}

	data, _ := os.ReadFile(l.Path())
	if strings.Contains(string(data), apiKey) || strings.Contains(string(data), "other-value-1") {
		t.Fatalf("secret in audit file:\n%s", data)
	}
	lines := readLines(t, l.Path())
	if len(lines) != 4 {
		t.Fatalf("%d audit lines, want 4:\n%s", len(lines), data)
	}
	d := lines[0]
	if d["type"] != "decision" || d["tool"] != "shell" || d["call_id"] != "call_1" || d["decision"] != "allow" ||
		d["source"] != "rule" || d["rule"] != "shell: curl *" || d["time"] != "2026-11-26T01:30:00Z" {
		t.Errorf("decision line = %v", d)
	}
	args := d["arguments"].(map[string]any)
	if args["api_key"] != "[redacted]" || args["command"] != "curl -H 'Authorization: Bearer [redacted]' https://api.example" {
		t.Errorf("arguments = %v", args)
	}
	r := lines[1]
	if r["type"] != "result" || r["success"] != true || r["duration_ms"] != float64(1500) || r["output_bytes"] != float64(5) || r["kind"] != nil {
		t.Errorf("result line = %v", r)
	}
	if lines[2]["decision"] != "deny" || lines[2]["source"] != "user" || lines[2]["reason"] != "no [redacted]" {
		t.Errorf("deny line = %v", lines[2])
	}
	if lines[3]["success"] != false || lines[3]["kind"] != "denied" {
		t.Errorf("failed result line = %v", lines[3])
	}
}

func TestUnparsableArgumentsKeptAsText(t *testing.T) {
	l := openLog(t)
	l.Sink(nil)(agent.Event{Type: agent.EventApproval,
		Call:     &tools.Call{ID: "c", Name: "shell", RawArguments: `{"command": "echo ` + apiKey, ParseError: "unexpected end"},
		Decision: &agent.Decision{Allow: false, Source: agent.SourceDefault}})
	lines := readLines(t, l.Path())
	if len(lines) != 1 || lines[0]["arguments"] != `{"command": "echo [redacted]` {
		t.Errorf("lines = %v", lines)
	}
}

func TestFileModeAndAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.audit.jsonl")
	for i := 0; i < 2; i++ {
		l, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Result(ResultRecord{Tool: "read_file", Success: true}); err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	if n := len(readLines(t, path)); n != 2 {
		t.Errorf("reopening should append: %d lines, want 2", n)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %o, want 600", fi.Mode().Perm())
	}
}

func TestWriteAfterClose(t *testing.T) {
	l := openLog(t)
	l.Close()
	if err := l.Decision(DecisionRecord{Tool: "x"}); err == nil {
		t.Fatal("write after Close should fail")
	}
	if l.Err() == nil {
		t.Error("Err should report the failed write")
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestConcurrentWritesStayWholeLines(t *testing.T) {
	l := openLog(t)
	big := strings.Repeat("x", 64<<10)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				l.Decision(DecisionRecord{Tool: "shell", Arguments: json.RawMessage(`{"command":"` + big + `"}`), Decision: Allow})
			}
		}()
	}
	wg.Wait()
	f, _ := os.Open(l.Path())
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("line %d is not valid JSON (interleaved writes?)", n)
		}
		n++
	}
	if n != 160 {
		t.Errorf("%d lines, want 160", n)
	}
}
