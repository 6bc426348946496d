package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"tact/tools"
)

// emptySchema is used for tools that declare no input schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// mcpTool is one tool of one MCP server, as tact sees it.
type mcpTool struct {
	srv    *server
	remote string // the tool's name on the server
	spec   tools.Spec
}

// newTool converts a listed MCP tool into a tools.Tool called name.
func newTool(s *server, t *sdk.Tool, name string) *mcpTool {
	params := emptySchema
	if t.InputSchema != nil {
		if b, err := json.Marshal(t.InputSchema); err == nil && string(b) != "null" {
			params = b
		}
	}
	timeout := s.cfg.Timeout
	if timeout == 0 {
		timeout = s.pool.defaultTimeout
	}
	desc := t.Description
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	return &mcpTool{
		srv:    s,
		remote: t.Name,
		spec: tools.Spec{
			Name:        name,
			Description: desc,
			Parameters:  params,
			Annotations: annotations(t.Annotations),
			Source:      "mcp:" + s.cfg.Name,
			Timeout:     timeout,
		},
	}
}

// annotations maps MCP hints to tact's annotations. MCP's defaults apply: a
// tool is destructive unless it is read-only or says destructiveHint false.
func annotations(a *sdk.ToolAnnotations) tools.Annotations {
	if a == nil {
		return tools.Annotations{Destructive: true}
	}
	return tools.Annotations{
		ReadOnly:    a.ReadOnlyHint,
		Destructive: !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint),
	}
}

// Spec implements tools.Tool.
func (t *mcpTool) Spec() tools.Spec { return t.spec }

// Execute implements tools.Tool: it calls the tool on its server, restarting
// the server first if it died before an earlier call. The per-call timeout
// comes from ctx.
func (t *mcpTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	params := map[string]any{}
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && string(trimmed) != "null" {
		if err := json.Unmarshal(trimmed, &params); err != nil {
			return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("arguments of %s must be a JSON object: %v", t.spec.Name, err)), nil
		}
		if params == nil {
			params = map[string]any{}
		}
	}
	cs, failed := t.srv.callSession(ctx)
	if failed != nil {
		return *failed, nil
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: params})
	if err != nil {
		return t.callError(ctx, cs, err), nil
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = "the MCP tool reported an error without a message"
		}
		return tools.Fail(tools.KindExecutionFailed, text), nil
	}
	return tools.OK(text), nil
}

// callError turns a failed CallTool into a Result: the caller's deadline or
// cancellation, a protocol error from the server, or a broken connection
// (which marks the server dead).
func (t *mcpTool) callError(ctx context.Context, cs *sdk.ClientSession, err error) tools.Result {
	name := t.srv.cfg.Name
	if cerr := ctx.Err(); cerr != nil {
		kind := tools.KindCancelled
		if errors.Is(cerr, context.DeadlineExceeded) {
			kind = tools.KindTimeout
		}
		return tools.Fail(kind, fmt.Sprintf("MCP tool %s on server %s did not finish: %v", t.remote, name, cerr))
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("MCP server %s refused the call to %s: %s", name, t.remote, rpcErr.Message))
	}
	reason := t.srv.markDead(cs, err)
	t.srv.mu.Lock()
	t.srv.reported = true
	t.srv.mu.Unlock()
	return tools.Fail(tools.KindExecutionFailed, notRunning(name, reason))
}

// resultText flattens a tool result into text: the text contents joined by
// newlines, other content kinds summarised, and the structured content as
// JSON when there is no text.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			hasText = true
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
			if c.Resource != nil && c.Resource.Text != "" {
				hasText = true
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.MarshalIndent(res.StructuredContent, "", "  "); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// embedded summarises an embedded resource, keeping its text.
func embedded(r *sdk.ResourceContents) string {
	if r == nil {
		return "[resource]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
}
