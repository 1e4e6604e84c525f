package llmproc

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/harness-dev/harness/host/llm/internal/retry"
)

// The settings of the two providers the host needs before any process
// starts (tests check they equal the provider packages' own).
const (
	Anthropic = "anthropic"
	Responses = "openai-responses"
	// AnthropicModel and ResponsesModel are the models requested when
	// none is set.
	AnthropicModel = "claude-sonnet-5-5"
	ResponsesModel = "gpt-5.5"
	// AnthropicKeyEnv is the variable the anthropic key is read from
	// (after HARNESS_API_KEY).
	AnthropicKeyEnv = "ANTHROPIC_API_KEY"
)

// CheckBaseURL checks a provider's --base-url in the host, as the
// provider will: "" (the provider's default) or an http(s) URL with a
// host. Its error never shows a password or query of the URL.
func CheckBaseURL(provider, base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // its URL may carry a password
		}
		return fmt.Errorf("new %s provider: parse base URL: %w", provider, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("new %s provider: base URL %q is not an http(s) URL", provider, retry.Shown(u))
	}
	return nil
}
