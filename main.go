// Command tact is a terminal chat agent: it talks to any OpenAI-compatible
// model and lets the model use tools — builtin ones, HTTP APIs, MCP servers
// and sandboxed skills — with the user's approval.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"tact/tools/skills"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// cliFlags are the command-line flags; they work before or after a subcommand.
type cliFlags struct {
	prompt    string
	json      bool
	config    string
	model     string
	baseURL   string
	workdir   string
	protocol  string
	toolsets  []string
	yes       bool
	cont      bool
	resume    string
	stats     bool
	version   bool
	help      bool
	set       *pflag.FlagSet
	args      []string
	promptSet bool
}

func parseFlags(args []string, stderr io.Writer) (*cliFlags, error) {
	f := &cliFlags{}
	fs := pflag.NewFlagSet("tact", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVarP(&f.prompt, "prompt", "p", "", "run one turn headless with this prompt and exit")
	fs.BoolVar(&f.json, "json", false, "with -p (or `tools`): write JSON to stdout")
	fs.StringVar(&f.config, "config", "", "config file (default: ~/.config/tact/config.yaml and ./config.yaml)")
	fs.StringVar(&f.model, "model", "", "model name (overrides provider.model)")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible base URL (overrides provider.base_url)")
	fs.StringVar(&f.workdir, "workdir", "", "workspace folder the tools may touch (default: the current folder)")
	fs.StringVar(&f.protocol, "protocol", "", "tool-call protocol: native, tool_action, json, xml or auto")
	fs.StringArrayVar(&f.toolsets, "toolset", nil, "activate this tool set instead of the config's (repeatable)")
	fs.BoolVar(&f.yes, "yes", false, "approve every tool call that no deny rule forbids")
	fs.BoolVarP(&f.cont, "continue", "c", false, "resume the latest session of this folder")
	fs.StringVar(&f.resume, "resume", "", "resume the session with this ID (see `tact sessions`)")
	fs.BoolVar(&f.stats, "stats", false, "with `tools`: show per-tool call statistics")
	fs.BoolVarP(&f.version, "version", "v", false, "print the version and exit")
	fs.BoolVarP(&f.help, "help", "h", false, "show this help")
	f.set = fs
	if err := fs.Parse(args); err != nil {
		return f, fmt.Errorf("%w (see tact --help)", err)
	}
	f.promptSet = fs.Changed("prompt")
	f.args = fs.Args()
	return f, nil
}

func usage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `tact — a terminal chat agent for any OpenAI-compatible model

Usage:
  tact [flags]                 start the terminal UI
  tact -p "PROMPT" [--json]    run one turn headless and print the answer
  tact tools [--json|--stats]  list the active tools
  tact sessions                list saved sessions

With no API key and no base URL, tact runs the built-in offline demo model.
Set OPENAI_API_KEY (and OPENAI_BASE_URL for other servers) to use a real one.

Flags:
%s`, fs.FlagUsages())
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == skills.SandboxArg {
		os.Exit(skills.SandboxMain(os.Args[2:]))
	}
	hardenProcess()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without os.Exit, for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "tact:", err)
		return exitUsage
	}
	if f.help {
		usage(stdout, f.set)
		return exitOK
	}
	if f.version {
		fmt.Fprintln(stdout, "tact", version)
		return exitOK
	}
	cmd := ""
	if len(f.args) > 0 {
		cmd = f.args[0]
	}
	switch cmd {
	case "", "chat":
	case "tools", "sessions":
	case "help":
		usage(stdout, f.set)
		return exitOK
	default:
		fmt.Fprintf(stderr, "tact: unknown command %q; commands: tools, sessions (or none to chat; see tact --help)\n", cmd)
		return exitUsage
	}
	cfg, err := LoadConfig(LoadOptions{File: f.config, Overrides: f.overrides(), Env: os.Environ()})
	if err != nil {
		return reportStartError(stderr, err)
	}
	switch cmd {
	case "sessions":
		return runSessions(cfg, f, stdout, stderr)
	case "tools":
		return runTools(cfg, f, stdout, stderr)
	}
	if f.promptSet {
		return runHeadless(cfg, f, stdin, stdout, stderr)
	}
	return runTUI(cfg, f, stdout, stderr)
}

// overrides turns flags into config keys.
func (f *cliFlags) overrides() map[string]any {
	o := map[string]any{}
	if f.model != "" {
		o["provider.model"] = f.model
	}
	if f.baseURL != "" {
		o["provider.base_url"] = f.baseURL
	}
	if len(f.toolsets) > 0 {
		var sets []string
		for _, s := range f.toolsets {
			sets = append(sets, strings.Split(s, ",")...)
		}
		o["tool_sets"] = sets
	}
	return o
}

// reportStartError prints an error that stops tact before it runs; config
// errors exit 2.
func reportStartError(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "tact:", err)
	var ce *ConfigError
	if errors.As(err, &ce) {
		return exitUsage
	}
	return exitError
}
