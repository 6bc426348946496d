package approval

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"tact/agent"
	"tact/tools"
)

// recordingAsker stands in for the TUI: it counts calls and denies with a
// recognisable reason, so tests can tell "ask" from a rule's decision.
type recordingAsker struct {
	calls  atomic.Int32
	answer agent.Decision
	err    error
}

func (a *recordingAsker) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	a.calls.Add(1)
	return a.answer, a.err
}

func shellReq(cmd string) agent.ApprovalRequest {
	return toolReq("shell", tools.Annotations{Destructive: true}, "builtin", map[string]any{"command": cmd})
}

func toolReq(name string, ann tools.Annotations, source string, args map[string]any) agent.ApprovalRequest {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return agent.ApprovalRequest{
		Call: tools.Call{ID: "c1", Name: name, Arguments: raw},
		Spec: tools.Spec{Name: name, Source: source, Annotations: ann},
	}
}

func newPolicy(t *testing.T, cfg Config, opts Options) *Policy {
	t.Helper()
	if opts.Workdir == "" {
		opts.Workdir = t.TempDir()
	}
	p, err := NewPolicy(cfg, opts)
	if err != nil {
		t.Fatalf("NewPolicy: %v", err)
	}
	return p
}

// outcome runs req through a policy whose Asker records asks, and reports
// "allow", "deny" or "ask" with the decision.
func outcome(t *testing.T, cfg Config, req agent.ApprovalRequest) (string, agent.Decision) {
	t.Helper()
	asker := &recordingAsker{answer: agent.Decision{Reason: "asked"}}
	p := newPolicy(t, cfg, Options{Asker: asker})
	d, err := p.Approve(context.Background(), req)
	if err != nil {
		t.Fatalf("Approve: %v", err)
	}
	switch {
	case asker.calls.Load() > 0:
		if d.Source != agent.SourceUser {
			t.Errorf("asked decision has source %q, want user", d.Source)
		}
		return "ask", d
	case d.Allow:
		return "allow", d
	default:
		return "deny", d
	}
}

func allow(cmd string) Rule { return Rule{Tool: "shell", Command: cmd, Decision: DecisionAllow} }
func deny(cmd, msg string) Rule {
	return Rule{Tool: "shell", Command: cmd, Decision: DecisionDeny, Message: msg}
}
func askRule(cmd string) Rule { return Rule{Tool: "shell", Command: cmd, Decision: DecisionAsk} }
