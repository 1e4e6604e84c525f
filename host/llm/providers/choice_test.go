package providers_test

import (
	"testing"

	"github.com/harness-dev/harness/host/llm/providers"
)

// TestDefaultModelOfSDKProviders: anthropic and openai-responses have a
// default model of their own, so a [[models]] entry of another provider in
// the config file (the README's gpt-5 of openai) does not become their
// default: `harness run --provider anthropic` with that file asks for
// claude-sonnet-5-5 from anthropic, not for gpt-5.
func TestDefaultModelOfSDKProviders(t *testing.T) {
	t.Parallel()
	file := []providers.Entry{{Provider: "openai", Name: "gpt-5"}}
	for provider, want := range map[string]string{"anthropic": "claude-sonnet-5-5", "openai-responses": "gpt-5.5", "deepseek": "deepseek-chat"} {
		c := providers.Choice{Provider: provider, File: file}
		if got := c.DefaultModel(); got != want {
			t.Errorf("%s: DefaultModel() = %q, want %q", provider, got, want)
		}
		models, err := c.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		if len(models) != 2 || models[0].Provider != provider || models[0].Name != want || models[1].Name != "gpt-5" {
			t.Errorf("%s: Resolve() = %+v, want %s of %s first, then gpt-5", provider, models, want, provider)
		}
	}
}
