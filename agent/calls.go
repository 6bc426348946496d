package agent

import (
	"context"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"tact/agent/llm"
	"tact/tools"
)

// lookup returns the spec of a registered tool.
func (t *turn) lookup(name string) (tools.Spec, bool) {
	ex := t.a.opts.Executor
	if ex == nil {
		return tools.Spec{}, false
	}
	tool, ok := ex.Registry().Get(name)
	if !ok {
		return tools.Spec{}, false
	}
	return tool.Spec(), true
}

// approve announces a call and asks the Approver about it. It returns
// whether the call may run; when not, the result to report and whether the
// user asked to stop the turn. Calls that cannot run anyway (bad arguments,
// unknown tool) go straight to the executor, which reports why.
func (t *turn) approve(ctx context.Context, call tools.Call, index, total int) (bool, tools.Result, bool) {
	spec, known := t.lookup(call.Name)
	ev := Event{Type: EventToolCall, Call: &call}
	if known {
		ev.Spec = &spec
	}
	t.sink(ev)
	if !known || call.ParseError != "" {
		return true, tools.Result{}, false
	}
	d, err := t.a.opts.Approver.Approve(ctx, ApprovalRequest{Call: call, Spec: spec, Index: index, Total: total})
	if err != nil {
		if ctx.Err() != nil {
			return false, tools.Fail(tools.KindCancelled, "not run: the turn was cancelled"), true
		}
		d = Decision{Allow: false, Source: SourceDefault, Reason: "approval failed: " + err.Error()}
	}
	t.sink(Event{Type: EventApproval, Call: &call, Spec: &spec, Decision: &d})
	t.a.opts.Logger.Info("approval", "tool", call.Name, "call_id", call.ID, "allow", d.Allow, "source", d.Source, "rule", d.Rule)
	if d.Allow {
		return true, tools.Result{}, false
	}
	reason := d.Reason
	if reason == "" {
		reason = "the user denied this call"
	}
	return false, tools.Fail(tools.KindDenied, reason), d.StopTurn
}

// execute runs one approved call.
func (t *turn) execute(ctx context.Context, call tools.Call) tools.Result {
	if t.a.opts.Executor == nil {
		return tools.Fail(tools.KindNotFound, "Tool not found: "+call.Name+" (no tools are active)")
	}
	return t.a.opts.Executor.Execute(ctx, call)
}

// clean applies the Redact option to a result.
func (t *turn) clean(res tools.Result) tools.Result {
	r := t.a.opts.Redact
	if r == nil {
		return res
	}
	res.Output = r(res.Output)
	if res.Error != nil {
		e := *res.Error
		e.Message = r(e.Message)
		res.Error = &e
	}
	return res
}

func (t *turn) emitResult(call tools.Call, res tools.Result) {
	ev := Event{Type: EventToolResult, Call: &call, Result: &res}
	if spec, ok := t.lookup(call.Name); ok {
		ev.Spec = &spec
	}
	t.sink(ev)
}

func stoppedResult() tools.Result { return tools.Fail(tools.KindCancelled, errStopped.Error()) }

// runNative approves and runs native calls (in parallel when configured)
// and appends one role:tool message per call, in call order.
func (t *turn) runNative(ctx context.Context, calls []tools.Call) (bool, error) {
	results := make([]tools.Result, len(calls))
	var approved []int
	stop := false
	for i, c := range calls {
		if stop || ctx.Err() != nil {
			results[i] = stoppedResult()
			continue
		}
		ok, res, s := t.approve(ctx, c, i+1, len(calls))
		if !ok {
			results[i], stop = res, s
			continue
		}
		approved = append(approved, i)
	}
	if t.a.opts.ParallelToolCalls && t.a.opts.Executor != nil && len(approved) > 1 {
		batch := make([]tools.Call, len(approved))
		for j, i := range approved {
			batch[j] = calls[i]
		}
		for j, r := range t.a.opts.Executor.ExecuteAll(ctx, batch) {
			results[approved[j]] = r
		}
	} else {
		for _, i := range approved {
			results[i] = t.execute(ctx, calls[i])
		}
	}
	for i, c := range calls {
		results[i] = t.clean(results[i])
		t.emitResult(c, results[i])
		if err := t.a.appendMessage(toolMessage(c, results[i])); err != nil {
			return stop, err
		}
	}
	return stop, nil
}

// runText plays the held segments of a text-protocol response in order:
// text is shown, each call is approved and run where it stands. All results
// go back in one user message.
func (t *turn) runText(ctx context.Context, resp *response) (bool, error) {
	var parts []string
	stop := false
	total, index := 0, 0
	for _, s := range resp.held {
		if s.Call != nil {
			total++
		}
	}
	for _, s := range resp.held {
		if s.Call == nil {
			if s.Text != "" {
				t.sink(Event{Type: EventText, Text: s.Text})
			}
			continue
		}
		call := *s.Call
		index++
		var res tools.Result
		if stop || ctx.Err() != nil {
			res = stoppedResult()
		} else {
			var ok bool
			ok, res, stop = t.approve(ctx, call, index, total)
			if ok {
				res = t.execute(ctx, call)
			}
		}
		res = t.clean(res)
		t.emitResult(call, res)
		parts = append(parts, resp.proto.ResultMessage(call, res))
	}
	msg := llm.Message{Role: openai.ChatMessageRoleUser, Content: strings.Join(parts, "\n\n")}
	return stop, t.a.appendMessage(msg)
}
