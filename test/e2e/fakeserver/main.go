// Command fakeserver is the model server of the tmux end-to-end test: an
// OpenAI-compatible streaming server on 127.0.0.1 whose answers are scripted
// by the last message. "run CMD" asks for the shell tool; a tool result is
// answered with its text; anything else gets a short markdown answer.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"tact/internal/fakeopenai"
)

func main() {
	addrFile := flag.String("addr-file", "", "write the base URL to this file once listening")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	base := fmt.Sprintf("http://%s/v1", ln.Addr())
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(base), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(base)
	srv := fakeopenai.New(func(n int, req openai.ChatCompletionRequest) fakeopenai.Reply {
		last := fakeopenai.LastMessage(req)
		switch {
		case last.Role == openai.ChatMessageRoleTool:
			return fakeopenai.Reply{Text: "The command printed: **" + strings.TrimSpace(strings.Split(last.Content, "\n")[0]) + "** — done.", Delay: 5 * time.Millisecond}
		case strings.HasPrefix(strings.ToLower(last.Content), "run "):
			cmd := strings.TrimSpace(last.Content[4:])
			return fakeopenai.Reply{Text: "Running it now.", ToolCalls: []fakeopenai.ToolCall{{Name: "shell", Args: fmt.Sprintf(`{"command": %q}`, cmd)}}}
		default:
			return fakeopenai.Reply{Text: "# Hello\n\nYou said: " + last.Content + "\n", Delay: 5 * time.Millisecond}
		}
	})
	log.Fatal(http.Serve(ln, srv))
}
