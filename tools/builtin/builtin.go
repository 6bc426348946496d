// Package builtin provides the tools compiled into tact: calculator,
// current_time, file tools confined to the workspace, shell and http_fetch.
package builtin

import (
	"log/slog"
	"net/http"

	"tact/tools"
)

// Source is the Spec.Source of every builtin tool.
const Source = "builtin"

// Options configure the builtin tools.
type Options struct {
	// Workdir is the absolute workspace root; empty means the working directory.
	Workdir string
	// PassEnv names environment variables passed to shell even though their
	// names look secret (contain KEY, TOKEN, SECRET or PASSWORD).
	PassEnv []string
	// HTTPClient is used by http_fetch; nil means a client with a 30 s timeout.
	HTTPClient *http.Client
	// Logger receives diagnostics; nil discards.
	Logger *slog.Logger
}

// New returns the builtin tools in a stable order. If the workspace cannot be
// determined, file tools report that error when called.
func New(opts Options) []tools.Tool {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: defaultHTTPTimeout}
	}
	ws, err := NewWorkspace(opts.Workdir)
	if err != nil {
		opts.Logger.Warn("builtin tools: no workspace", "err", err)
		ws = &Workspace{root: opts.Workdir}
	}
	return []tools.Tool{
		calculatorTool(),
		currentTimeTool(),
		readFileTool(ws),
		listDirTool(ws),
		writeFileTool(ws),
		editFileTool(ws),
		searchFilesTool(ws),
		shellTool(ws, opts.PassEnv),
		httpFetchTool(opts.HTTPClient),
	}
}

func readOnly() tools.Annotations    { return tools.Annotations{ReadOnly: true} }
func destructive() tools.Annotations { return tools.Annotations{Destructive: true} }
