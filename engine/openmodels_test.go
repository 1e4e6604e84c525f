package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/llm/providers"
	"github.com/harness-dev/harness/host/permission"
)

// TestOpenModels: the default provider serves the default model; a model
// of another provider in the [[models]] table is opened by OpenProvider
// with that provider's own key and the configured thinking budget; a
// provider that cannot open leaves the Config as it was.
func TestOpenModels(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(script, []byte(`{"text":"done"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	choice := providers.Choice{Provider: "script", File: []providers.Entry{{Provider: "anthropic", Name: "claude-x"}}}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	var c engine.Config
	if err := c.OpenModels(providers.Provider{Name: "script", Script: script, Thinking: "lots", Getenv: getenv}, choice); err != nil {
		t.Fatal(err)
	}
	if c.Model == nil || c.ModelName != "script" || len(c.Models) != 2 || c.Models[0].Name != "script" || c.Models[1].Provider != "anthropic" {
		t.Fatalf("OpenModels set model %v %q and models %+v; want the script model first, then anthropic's claude-x", c.Model, c.ModelName, c.Models)
	}
	// The other provider opens with its own key, and is told the thinking
	// budget: "lots" is refused by anthropic, not by the script provider.
	if _, err := c.OpenProvider(c.Models[1]); err == nil || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY") {
		t.Errorf("OpenProvider without a key = %v, want it to name ANTHROPIC_API_KEY", err)
	}
	env["ANTHROPIC_API_KEY"] = "k-secret-1"
	if _, err := c.OpenProvider(c.Models[1]); err == nil || !strings.Contains(err.Error(), `thinking budget "lots"`) {
		t.Errorf("OpenProvider with a bad budget = %v, want the thinking budget refused", err)
	}

	var bad engine.Config
	err := bad.OpenModels(providers.Provider{Name: "deepseek", Getenv: getenv}, providers.Choice{Provider: "deepseek"})
	if err == nil || !strings.Contains(err.Error(), "DEEPSEEK_API_KEY") || bad.Model != nil || bad.Models != nil || bad.OpenProvider != nil {
		t.Errorf("OpenModels without a key = %v and a Config with model %v; want an error naming DEEPSEEK_API_KEY and nothing set", err, bad.Model)
	}
}

// TestLoadPolicy: the mode defaults to ask; the rules come from the file
// named, else from the config folder's permissions.json; a missing file is
// no rules, a bad one an error naming it.
func TestLoadPolicy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	defaultFile := write("xdg/harness/permissions.json", `{"rules":[{"tool":"bash","action":"deny"}]}`)
	named := write("named.json", `{"rules":[{"tool":"bash","prefix":"go test","action":"allow"},{"tool":"fs_write","action":"ask"}]}`)
	badFile := write("bad.json", `{"rules":[{"tool":"bash","action":"maybe"}]}`)
	xdg := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return filepath.Join(dir, "xdg")
		}
		return ""
	}
	none := func(string) string { return "" }
	for _, tc := range []struct {
		name      string
		mode      permission.Mode
		file      string
		getenv    func(string) string
		wantMode  permission.Mode
		wantFile  string
		wantRules int
		wantErr   string
	}{
		{name: "nowhere to look", getenv: none, wantMode: permission.ModeAsk},
		{name: "the config folder's", mode: permission.ModeReadOnly, getenv: xdg, wantMode: permission.ModeReadOnly, wantFile: defaultFile, wantRules: 1},
		{name: "the file named wins", file: named, getenv: xdg, wantMode: permission.ModeAsk, wantFile: named, wantRules: 2},
		{name: "a missing file is no rules", mode: permission.ModeAllowAll, file: filepath.Join(dir, "nope.json"), getenv: none, wantMode: permission.ModeAllowAll, wantFile: filepath.Join(dir, "nope.json")},
		{name: "a bad file", file: badFile, getenv: none, wantErr: badFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := engine.LoadPolicy(tc.mode, tc.file, tc.getenv)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("LoadPolicy = %v, want an error naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || p.Mode != tc.wantMode || p.File != tc.wantFile || len(p.Rules) != tc.wantRules {
				t.Errorf("LoadPolicy = %+v, %v; want mode %s, file %q, %d rules", p, err, tc.wantMode, tc.wantFile, tc.wantRules)
			}
		})
	}
}
