package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"tact/agent"
	"tact/audit"
	"tact/tools"
	"tact/tools/skills"
)

// runHeadless runs one turn of `tact -p PROMPT` and exits: 0 when the turn
// ends, 1 on an error, 130 when interrupted.
func runHeadless(cfg *Config, f *cliFlags, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	prompt := f.prompt
	if prompt == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "tact: reading the prompt from stdin:", err)
			return exitError
		}
		prompt = string(data)
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(stderr, "tact: -p needs a prompt (or -p - to read it from stdin)")
		return exitUsage
	}
	a, err := newApp(ctx, cfg, appOptions{yes: f.yes, workdir: f.workdir, protocol: f.protocol, resume: f.resume, cont: f.cont})
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer a.close()
	a.printWarnings(stderr)
	if a.demo && !f.json {
		fmt.Fprintln(stderr, "(using the offline demo model: set OPENAI_API_KEY or provider.base_url for a real one)")
	}
	var sink agent.Sink
	if f.json {
		sink = jsonSink(stdout)
	} else {
		sink = textSink(stdout, stderr)
	}
	reason := ""
	err = a.agent.Run(ctx, prompt, func(ev agent.Event) {
		if ev.Type == agent.EventDone {
			reason = ev.Reason
		}
		sink(ev)
	})
	switch {
	case reason == agent.DoneCancelled || ctx.Err() != nil:
		return exitInterrupted
	case err != nil || reason == agent.DoneError:
		return exitError
	}
	return exitOK
}

// runTools prints the active tools (`tact tools`), as a table or JSON, or
// their call statistics (`--stats`).
func runTools(cfg *Config, f *cliFlags, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := newApp(ctx, cfg, appOptions{workdir: f.workdir, protocol: f.protocol})
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer a.close()
	a.printWarnings(stderr)
	if f.stats {
		stats, from, err := a.latestStats()
		if err != nil {
			fmt.Fprintln(stderr, "tact:", err)
			return exitError
		}
		if f.json {
			return writeJSON(stdout, stats)
		}
		if from != "" {
			fmt.Fprintf(stdout, "Tool calls of session %s:\n", from)
		}
		tools.WriteStats(stdout, stats)
		return exitOK
	}
	infos := tools.Describe(a.executor.Registry())
	if f.json {
		return writeJSON(stdout, infos)
	}
	tools.WriteToolTable(stdout, infos, a.manager.Shadowed())
	fmt.Fprintf(stdout, "\n%s\nskills sandbox: %s\n", a.manager.Summary(a.executor.Registry()), skills.SandboxStatus())
	if a.mcp != nil {
		for _, s := range a.mcp.Status() {
			fmt.Fprintf(stdout, "mcp server %s\n", formatServerStatus(s))
		}
	}
	return exitOK
}

func formatServerStatus(s any) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return exitError
	}
	return exitOK
}

// latestStats computes per-tool statistics from the audit file of the
// latest session in this folder.
func (a *app) latestStats() ([]tools.ToolStats, string, error) {
	if a.store == nil {
		return nil, "", nil
	}
	meta, err := a.store.Latest(a.workdir)
	if err != nil {
		return []tools.ToolStats{}, "", nil
	}
	file, err := os.Open(meta.AuditPath())
	if errors.Is(err, os.ErrNotExist) {
		return []tools.ToolStats{}, meta.ID, nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the audit file: %w", err)
	}
	defer file.Close()
	var m tools.Metrics
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var rec audit.ResultRecord
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Type != "result" || rec.Kind == "not_found" {
			continue
		}
		m.Record(rec.Tool, rec.Success, time.Duration(rec.DurationMS)*time.Millisecond)
	}
	return m.Stats(), meta.ID, nil
}

// runSessions lists saved sessions, newest first.
func runSessions(cfg *Config, f *cliFlags, stdout, stderr io.Writer) int {
	ctx := context.Background()
	a, err := newApp(ctx, cfg, appOptions{workdir: f.workdir, noMCP: true})
	if err != nil {
		return reportStartError(stderr, err)
	}
	defer a.close()
	if a.store == nil {
		fmt.Fprintln(stderr, "tact: no state folder (set XDG_STATE_HOME or HOME)")
		return exitError
	}
	metas, err := a.store.List()
	if err != nil {
		fmt.Fprintln(stderr, "tact:", err)
		return exitError
	}
	if f.json {
		return writeJSON(stdout, metas)
	}
	if len(metas) == 0 {
		fmt.Fprintf(stdout, "No saved sessions in %s yet.\n", a.store.Dir)
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMODIFIED\tMESSAGES\tFOLDER\tFIRST PROMPT")
	for _, m := range metas {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", m.ID, m.Modified.Local().Format("2006-01-02 15:04"), m.Messages, m.Workdir, oneLine(m.FirstPrompt, 50))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\nResume one with: tact --resume ID (or tact -c for the latest in this folder). Files: %s\n", a.store.Dir)
	return exitOK
}
