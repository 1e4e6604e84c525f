package providers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/llmproc"
	"github.com/harness-dev/harness/host/llm/openai"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// Model streams a model's answer to a request: what every provider Open
// returns is (host/agent's Model has the same method).
type Model interface {
	Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error]
}

// Names are the providers Open knows, in the order the help text lists
// them.
var Names = []string{"deepseek", "openai", "openai-responses", "anthropic", "script"}

// openAIBaseURL is the default endpoint of the openai provider.
const openAIBaseURL = "https://api.openai.com/v1"

// Provider names a model provider and how to reach it.
type Provider struct {
	Name    string // deepseek | openai | openai-responses | anthropic | script
	Model   string // the model to request ("" = the provider's default, where it has one)
	BaseURL string // the API root ("" = the provider's): an OpenAI-compatible endpoint, a Responses or Messages API proxy
	Script  string // the script provider's JSONL file
	// Thinking sets the anthropic provider's extended thinking (the
	// --thinking-budget setting): "adaptive", a budget of at least 1024
	// tokens, or "" / "off" to send none (the model's default).
	Thinking string
	// Getenv looks up the API key: HARNESS_API_KEY, else the provider's
	// own variable (DEEPSEEK_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY).
	Getenv func(string) string
}

// ErrNoAPIKey is what Open's error matches (errors.Is) when the
// provider needs an API key and the environment has none; its message
// alone names the variable to set.
var ErrNoAPIKey = errors.New("no API key")

// noKey is a missing-key error: msg, matching ErrNoAPIKey.
type noKey string

func (e noKey) Error() string        { return string(e) }
func (e noKey) Is(target error) bool { return target == ErrNoAPIKey }

// Open builds the provider and returns it with the model name to
// request. The SDK providers (anthropic, openai-responses) run in
// harness-llm under sup (nil: started directly; see llmproc.Options). Its
// errors name the harness flags and variables that fix them.
func Open(c Provider, log hclog.Logger, sup pluginhost.Supervisor) (Model, string, error) {
	e := c.Getenv
	if e == nil {
		e = func(string) string { return "" }
	}
	switch c.Name {
	case "script":
		if c.Script == "" {
			return nil, "", fmt.Errorf("the script provider needs a script: pass --script FILE or set HARNESS_SCRIPT")
		}
		p, err := script.Open(c.Script)
		if err != nil {
			return nil, "", err
		}
		model := c.Model
		if model == "" {
			model = "script"
		}
		return p, model, nil

	case "deepseek":
		key, keyVar := apiKey(e, openai.DeepSeekKeyEnv)
		if key == "" {
			return nil, "", noKey(fmt.Sprintf("no API key for deepseek: set %s (or HARNESS_API_KEY); "+
				"to use a local OpenAI-compatible server instead, pass --provider openai --base-url http://localhost:11434/v1 --model NAME", openai.DeepSeekKeyEnv))
		}
		base := c.BaseURL
		if base == "" {
			base = openai.DeepSeekBaseURL
		}
		model := c.Model
		if model == "" {
			model = openai.DeepSeekModel
		}
		p, err := openai.New(openai.Config{Name: "deepseek", BaseURL: base, APIKey: key, KeyHint: "check " + keyVar, Logger: log.Named("deepseek")})
		if err != nil {
			return nil, "", err
		}
		return p, model, nil

	case "openai":
		base := c.BaseURL
		if base == "" {
			base = openAIBaseURL
		}
		if _, err := url.ParseRequestURI(base); err != nil {
			return nil, "", fmt.Errorf("--base-url %q is not a URL: %w", base, err)
		}
		key, keyVar := apiKey(e, "OPENAI_API_KEY")
		if key == "" && base == openAIBaseURL {
			return nil, "", noKey("no API key for openai: set OPENAI_API_KEY (or HARNESS_API_KEY); " +
				"for a local OpenAI-compatible server (ollama, vLLM, llama.cpp) pass --base-url, e.g. http://localhost:11434/v1")
		}
		if c.Model == "" {
			return nil, "", fmt.Errorf("the openai provider needs a model: pass --model NAME or set HARNESS_MODEL (e.g. llama3.1 on ollama)")
		}
		hint := "check " + keyVar
		if key == "" {
			hint = "the server wants a key: set OPENAI_API_KEY or HARNESS_API_KEY"
		}
		p, err := openai.New(openai.Config{Name: "openai", BaseURL: base, APIKey: key, KeyHint: hint, Logger: log.Named("openai")})
		if err != nil {
			return nil, "", err
		}
		return p, c.Model, nil

	case "openai-responses":
		key, keyVar := apiKey(e, "OPENAI_API_KEY")
		if key == "" {
			return nil, "", noKey("no API key for openai-responses: set OPENAI_API_KEY (or HARNESS_API_KEY)")
		}
		model := cmp.Or(c.Model, llmproc.ResponsesModel)
		p, err := sdkProvider(e, log, sup, llmproc.Config{Provider: llmproc.Responses, BaseURL: c.BaseURL, APIKey: key,
			KeyHint: "check " + keyVar, Model: model})
		if err != nil {
			return nil, "", err
		}
		return p, model, nil

	case "anthropic":
		key, keyVar := apiKey(e, llmproc.AnthropicKeyEnv)
		if key == "" {
			return nil, "", noKey(fmt.Sprintf("no API key for anthropic: set %s (or HARNESS_API_KEY)", llmproc.AnthropicKeyEnv))
		}
		budget, err := ThinkingBudget(c.Thinking)
		if err != nil {
			return nil, "", err
		}
		model := cmp.Or(c.Model, llmproc.AnthropicModel)
		p, err := sdkProvider(e, log, sup, llmproc.Config{Provider: llmproc.Anthropic, BaseURL: c.BaseURL, APIKey: key,
			KeyHint: "check " + keyVar, Model: model, ThinkingBudget: budget})
		if err != nil {
			return nil, "", err
		}
		return p, model, nil
	}
	return nil, "", fmt.Errorf("unknown provider %q: use %s", c.Name, strings.Join(Names, ", "))
}

// sdkProvider checks the settings of an SDK-based provider (anthropic,
// openai-responses) and finds the harness-llm binary that serves it; the
// process starts on the provider's first request (package llmproc).
func sdkProvider(e func(string) string, log hclog.Logger, sup pluginhost.Supervisor, cfg llmproc.Config) (Model, error) {
	if err := llmproc.CheckBaseURL(cfg.Provider, cfg.BaseURL); err != nil {
		return nil, err
	}
	bin, err := llmproc.Find(e)
	if err != nil {
		return nil, err
	}
	return llmproc.New(llmproc.Options{Path: bin, Logger: log, Supervisor: sup}).Provider(cfg), nil
}

// apiKey returns the key from HARNESS_API_KEY, else from the provider's own
// variable, with the name of the variable it came from.
func apiKey(e func(string) string, providerVar string) (key, from string) {
	if k := e("HARNESS_API_KEY"); k != "" {
		return k, "HARNESS_API_KEY"
	}
	return e(providerVar), providerVar
}

// ThinkingBudget reads the --thinking-budget setting: 0 for none ("",
// "off", "0"), -1 for "adaptive", else a budget of at least 1024 tokens.
func ThinkingBudget(v string) (int, error) {
	switch v = strings.TrimSpace(v); v {
	case "", "0", "off":
		return 0, nil
	case "adaptive":
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1024 {
		return 0, fmt.Errorf("thinking budget %q: use adaptive, off or a number of tokens of at least 1024", v)
	}
	return n, nil
}

// KeyEnv names the variable provider reads its API key from, besides
// HARNESS_API_KEY; "" for a provider that needs none (script). The openai
// provider needs it only for OpenAI's own endpoint.
func KeyEnv(provider string) string {
	switch provider {
	case "deepseek":
		return openai.DeepSeekKeyEnv
	case "openai", "openai-responses":
		return "OPENAI_API_KEY"
	case "anthropic":
		return llmproc.AnthropicKeyEnv
	}
	return ""
}
