package providers_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/llm/llmproc"
	"github.com/harness-dev/harness/host/llm/providers"
)

// TestOpenModelSDKProviders: the new providers' settings errors name the
// variable that fixes them and never echo a key.
func TestOpenModelSDKProviders(t *testing.T) {
	// Open finds harness-llm but does not start it: any executable file
	// stands for it here.
	bin := filepath.Join(t.TempDir(), llmproc.Binary)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			if k == llmproc.EnvBinary {
				return bin
			}
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name    string
		p       providers.Provider
		wantErr string
		model   string
	}{
		{"anthropic without a key", providers.Provider{Name: "anthropic", Getenv: env()}, "set ANTHROPIC_API_KEY", ""},
		{"anthropic default model", providers.Provider{Name: "anthropic", Getenv: env("ANTHROPIC_API_KEY", "k-secret-1")}, "", "claude-sonnet-5-5"},
		{"anthropic adaptive thinking", providers.Provider{Name: "anthropic", Thinking: "adaptive", Getenv: env("HARNESS_API_KEY", "k-secret-1")}, "", "claude-sonnet-5-5"},
		{"anthropic bad budget", providers.Provider{Name: "anthropic", Thinking: "lots", Getenv: env("ANTHROPIC_API_KEY", "k-secret-1")}, `thinking budget "lots"`, ""},
		{"anthropic bad base URL", providers.Provider{Name: "anthropic", BaseURL: "ftp://x", Getenv: env("ANTHROPIC_API_KEY", "k-secret-1")}, "not an http(s) URL", ""},
		{"responses without a key", providers.Provider{Name: "openai-responses", Getenv: env()}, "set OPENAI_API_KEY", ""},
		{"responses model", providers.Provider{Name: "openai-responses", Model: "gpt-5.4", Getenv: env("OPENAI_API_KEY", "k-secret-1")}, "", "gpt-5.4"},
		{"unknown lists all", providers.Provider{Name: "nope"}, "use deepseek, openai, openai-responses, anthropic, script", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, model, err := providers.Open(tc.p, hclog.NewNullLogger(), nil)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "k-secret-1") {
					t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case model != tc.model:
				t.Errorf("model = %q, want %q", model, tc.model)
			}
		})
	}
}
