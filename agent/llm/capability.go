package llm

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// capabilityRule says whether models matching a pattern support native
// function calling. Rules are tried in order; the first match wins, so
// exceptions come before their family.
type capabilityRule struct {
	re        *regexp.Regexp
	supported bool
}

func rule(pattern string, supported bool) capabilityRule {
	return capabilityRule{re: regexp.MustCompile(`^(?:` + pattern + `)`), supported: supported}
}

// capabilityRules is built on first use, so start-up does not pay for
// compiling the table's expressions.
var capabilityRules = sync.OnceValue(func() []capabilityRule {
	return []capabilityRule{
		// OpenAI
		rule(`o1-(mini|preview)`, false),
		rule(`gpt-3\.5-turbo-instruct`, false),
		rule(`chatgpt-4o`, false),
		rule(`gpt-4o-(mini-)?(realtime|audio|search|transcribe|tts)`, false),
		rule(`gpt-(4|5)`, true),
		rule(`gpt-3\.5-turbo`, true),
		rule(`o[134]([-.]|$)`, true),
		// Anthropic
		rule(`claude-(2|instant)`, false),
		rule(`claude-3`, true),
		rule(`claude-.*4`, true),
		// Google
		rule(`gemini-(1\.0|pro$|pro-vision)`, false),
		rule(`gemini-(1\.5|[2-9])`, true),
		rule(`gemma`, false),
		// Mistral
		rule(`(mistral-(large|medium|small|nemo)|ministral|mixtral-8x22b|codestral|pixtral|magistral)`, true),
		// Qwen
		rule(`(qwen-?2|qwen-?3|qwq)`, true),
		// Meta
		rule(`(meta-)?llama-?2`, false),
		rule(`(meta-)?llama-?3\.[1-9]`, true),
		rule(`(meta-)?llama-?(4|[5-9])`, true),
		rule(`(meta-)?llama-?3`, false),
		rule(`codellama`, false),
		// Microsoft
		rule(`phi-?3`, false),
		rule(`phi-?4-mini`, true),
		rule(`phi`, false),
		// DeepSeek
		rule(`deepseek-(r1|reasoner)`, false),
		rule(`deepseek-(chat|v3|v2\.5)`, true),
		rule(`deepseek-coder-v2`, true),
		// Others
		rule(`command-r`, true),
		rule(`grok`, true),
		rule(`(firefunction|hermes-?[23]|nous-hermes-?2|functionary)`, true),
		rule(`(tinyllama|vicuna|orca|falcon|starcoder|wizard)`, false),
	}
})

// normalizeModel lower-cases a model id and strips a provider prefix
// ("openai/", "models/", "meta-llama/"…) and an Ollama-style ":tag".
func normalizeModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.IndexByte(m, ':'); i >= 0 {
		m = m[:i]
	}
	return m
}

// SupportsFunctionCalling looks model up in a table of known model families.
// known is false when the family is not in the table; then a Probe decides.
// A provider prefix ("openai/gpt-4o") and a ":tag" ("qwen2.5:7b") are ignored.
func SupportsFunctionCalling(model string) (supported, known bool) {
	m := normalizeModel(model)
	if m == "" {
		return false, false
	}
	for _, r := range capabilityRules() {
		if r.re.MatchString(m) {
			return r.supported, true
		}
	}
	return false, false
}

// probeTool is the dummy tool a Probe offers.
var probeTool = openai.Tool{
	Type: openai.ToolTypeFunction,
	Function: &openai.FunctionDefinition{
		Name:        "get_weather",
		Description: "Get the weather for a city.",
		Parameters: jsonschema.Definition{
			Type: jsonschema.Object,
			Properties: map[string]jsonschema.Definition{
				"city": {Type: jsonschema.String, Description: "City name"},
			},
			Required: []string{"city"},
		},
	},
}

// Probe asks the server whether model accepts native tools, by sending a
// tiny request with one dummy tool and max_tokens 1. The answer is cached in
// the Client per base URL and model. A rejection of the tools field means
// false with a nil error; any other failure is returned (and not cached), so
// the caller can fall back to SupportsFunctionCalling or a default.
func (c *Client) Probe(ctx context.Context, model string) (bool, error) {
	if model == "" {
		model = c.opts.Model
	}
	key := c.baseURL + "\x00" + model
	c.probeMu.Lock()
	v, ok := c.probes[key]
	c.probeMu.Unlock()
	if ok {
		return v, nil
	}
	_, err := c.Stream(ctx, Request{
		Model:      model,
		Messages:   []Message{{Role: openai.ChatMessageRoleUser, Content: "Say OK."}},
		Tools:      []openai.Tool{probeTool},
		ToolChoice: "auto",
		MaxTokens:  1,
	}, nil)
	switch {
	case err == nil:
		v = true
	case IsToolsUnsupported(err):
		v = false
	default:
		return false, fmt.Errorf("probing %s for function calling: %w", model, err)
	}
	c.probeMu.Lock()
	c.probes[key] = v
	c.probeMu.Unlock()
	c.log.Info("function-calling probe", "base_url", c.baseURL, "model", model, "supported", v)
	return v, nil
}

// SupportsTools decides whether model takes native tools: from the table of
// known families when it lists the model, otherwise by a (cached) Probe.
// Use it for output_strategy.function_calling: auto.
func (c *Client) SupportsTools(ctx context.Context, model string) (bool, error) {
	if model == "" {
		model = c.opts.Model
	}
	if s, known := SupportsFunctionCalling(model); known {
		return s, nil
	}
	return c.Probe(ctx, model)
}
