package ui

import (
	"bytes"
	"io"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"tact/agent"
	"tact/agent/llm"
	"tact/agent/protocol"
	"tact/approval"
	"tact/internal/fakeopenai"
	"tact/tools"
	"tact/tools/builtin"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// harness is a real agent against a fake OpenAI server, driven through teatest.
type harness struct {
	t       *testing.T
	srv     *fakeopenai.Server
	tm      *teatest.TestModel
	model   *Model
	policy  *approval.Policy
	workdir string
	updates chan tea.Msg

	mu   sync.Mutex
	out  bytes.Buffer
	mark int // start of the output not yet matched by waitNew
}

type setup struct {
	proto   string
	catalog Catalog
}

func start(t *testing.T, script fakeopenai.Script, s setup) *harness {
	t.Helper()
	srv := fakeopenai.New(script)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	client := llm.New(llm.Options{BaseURL: hs.URL + "/v1", APIKey: "test", Model: "m", MaxRetries: -1})
	wd := t.TempDir()
	reg := tools.NewRegistry(nil)
	for _, tl := range builtin.New(builtin.Options{Workdir: wd}) {
		reg.Register(tl)
	}
	ex := tools.NewExecutor(reg, tools.ExecutorOptions{})
	asker := NewAsker()
	pol, err := approval.NewPolicy(approval.Config{}, approval.Options{Workdir: wd, Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	if s.proto == "" {
		s.proto = "native"
	}
	p, err := protocol.ForName(s.proto)
	if err != nil {
		t.Fatal(err)
	}
	ag := agent.New(agent.Options{Provider: client, Model: "m", Executor: ex, Protocol: p, Approver: pol})
	h := &harness{t: t, srv: srv, policy: pol, workdir: wd, updates: make(chan tea.Msg, 4)}
	h.model = New(Options{
		Agent: ag, Asker: asker, Policy: pol, Catalog: s.catalog, Workdir: wd,
		Theme: "dark", Updates: h.updates, Protocols: protocol.ForName,
	})
	h.tm = teatest.NewTestModel(t, h.model, teatest.WithInitialTermSize(100, 30))
	t.Cleanup(func() { _ = h.tm.Quit() })
	return h
}

// read moves what the program has drawn so far into h.out.
func (h *harness) read() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, _ := io.ReadAll(h.tm.Output())
	h.out.Write(b)
	return h.out.String()
}

// waitNew waits until output drawn since the last waitNew contains want.
func (h *harness) waitNew(want string) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		all := h.read()
		if i := strings.Index(all[h.mark:], want); i >= 0 {
			h.mark += i + len(want)
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %q; output since last match:\n%s", want, all[h.mark:])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// all is every byte drawn so far.
func (h *harness) all() string { return h.read() }

func (h *harness) typeLine(s string) {
	h.tm.Type(s)
	h.tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
}

func (h *harness) key(k tea.KeyType) { h.tm.Send(tea.KeyMsg{Type: k}) }

func (h *harness) rune(r rune) { h.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}) }

// waitRequests waits until the server has seen n requests.
func (h *harness) waitRequests(n int) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(h.srv.Requests()) < n {
		if time.Now().After(deadline) {
			h.t.Fatalf("server saw %d requests, want %d", len(h.srv.Requests()), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lastToolMessage is the content of the last role:tool message of request i.
func (h *harness) lastToolMessage(i int) string {
	req := h.srv.Requests()[i]
	for j := len(req.Messages) - 1; j >= 0; j-- {
		if req.Messages[j].Role == "tool" {
			return req.Messages[j].Content
		}
	}
	h.t.Fatalf("request %d has no tool message", i)
	return ""
}

// fakeCatalog is a Catalog with two sets.
type fakeCatalog struct {
	mu     sync.Mutex
	active map[string]bool
}

func (c *fakeCatalog) ToolSets() []ToolSetInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return []ToolSetInfo{
		{Name: "coding", Description: "files and shell", Active: c.active["coding"], Tools: []string{"read_file", "shell"}},
		{Name: "web", Description: "the web", Active: c.active["web"], Tools: []string{"http_fetch", "web_search", "current_time"}},
	}
}

func (c *fakeCatalog) Tools() []tools.Spec {
	var out []tools.Spec
	for _, ts := range c.ToolSets() {
		if ts.Active {
			for _, n := range ts.Tools {
				out = append(out, tools.Spec{Name: n, Source: "builtin", Description: n + " tool"})
			}
		}
	}
	return out
}

func (c *fakeCatalog) Activate(names []string) (string, error) {
	c.mu.Lock()
	c.active = map[string]bool{}
	for _, n := range names {
		if n != "coding" && n != "web" {
			c.mu.Unlock()
			return "", &tools.ToolError{Kind: tools.KindNotFound, Message: "no tool set " + n}
		}
		c.active[n] = true
	}
	c.mu.Unlock()
	return "tool sets: " + strings.Join(names, ", ") + " — " + strconv.Itoa(len(c.Tools())) + " tools", nil
}

func (c *fakeCatalog) Stats() []tools.ToolStats { return nil }

func teatestTimeout() teatest.FinalOpt { return teatest.WithFinalTimeout(3 * time.Second) }
