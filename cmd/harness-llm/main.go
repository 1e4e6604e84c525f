// Command harness-llm serves harness's two SDK-based model providers —
// anthropic (Anthropic's Messages API, anthropic-sdk-go) and
// openai-responses (OpenAI's Responses API, openai-go) — to the harness
// host that starts it. It lives in its own process so that the host does
// not load the SDKs: their package initialisation alone touches ~22 MB of
// the binary, which every harness process would otherwise carry whatever
// provider it uses.
//
// harness starts it on the first request to one of those providers,
// finding it next to its own executable (install both with `go build -o
// bin/ ./cmd/...`; $HARNESS_LLM_BIN overrides the path), shares it
// between all sessions, and stops it after 5 minutes without a request.
// It speaks go-plugin gRPC on a private socket (package
// host/llm/llmproc), logs JSON lines to stderr, which the host relays to
// its log, and exits when its stdin closes (the host is gone). The API key
// comes with each request, never from its environment, which holds no
// API keys. Run by hand it says what it is and exits 1.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm/anthropic"
	"github.com/harness-dev/harness/host/llm/llmproc"
	"github.com/harness-dev/harness/host/llm/responses"
)

func main() {
	os.Exit(llmproc.Serve(context.Background(), open, os.Stdin, os.Stderr))
}

// open builds the provider cfg names from the settings the host checked.
func open(cfg llmproc.Config, log hclog.Logger) (llmproc.Streamer, error) {
	switch cfg.Provider {
	case anthropic.Name:
		return anthropic.New(anthropic.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, KeyHint: cfg.KeyHint,
			Model: cfg.Model, ThinkingBudget: cfg.ThinkingBudget, Logger: log})
	case responses.Name:
		return responses.New(responses.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, KeyHint: cfg.KeyHint,
			Model: cfg.Model, Logger: log})
	}
	return nil, fmt.Errorf("harness-llm serves anthropic and openai-responses, not %q", cfg.Provider)
}
