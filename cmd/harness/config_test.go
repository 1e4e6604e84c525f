package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigFileSettings: the harness commands read the config file at
// $XDG_CONFIG_HOME/harness/config.toml (or --config / HARNESS_CONFIG)
// under the environment and the flags, and a bad value or an unknown key
// in it is one usage error naming the file and the key.
func TestConfigFileSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string
		env      map[string]string
		args     []string
		wantCode int
		wantOut  []string // in stdout
		wantErr  string   // in stderr
	}{
		{name: "file sets the model list", file: "provider = \"script\"\nmodels = \"x,y\"\ncontext-window = 32000\n",
			args: []string{"models"}, wantOut: []string{"x (default)", "y ", "32000"}},
		{name: "env beats file", file: "provider = \"script\"\nmodels = \"x,y\"\n", env: map[string]string{"HARNESS_MODELS": "p,q"},
			args: []string{"models"}, wantOut: []string{"p (default)", "q "}},
		{name: "flag beats env", file: "provider = \"script\"\n", env: map[string]string{"HARNESS_MODELS": "p,q"},
			args: []string{"models", "--model", "q"}, wantOut: []string{"q (default)", "p "}},
		{name: "deepseek defaults", args: []string{"models"},
			wantOut: []string{"deepseek-chat (default)", "deepseek-reasoner", "128000", "USD 0.28 / 0.028 / 0.42"}},
		{name: "file models with prices and efforts", file: "provider = \"script\"\nmodel = \"m\"\n[[models]]\nname = \"m\"\ncontext-window = 100000\ninput-price = 3\noutput-price = 15\nreasoning-efforts = [\"low\", \"high\"]\n",
			args: []string{"models"}, wantOut: []string{"m (default)", "script", "1000", "USD 3 / 3 / 15", "low high"}},
		{name: "bad file value", file: "max-steps = \"many\"\n", args: []string{"models"},
			wantCode: exitUsage, wantErr: `config.toml: max-steps: "many" is not a whole number`},
		{name: "bad range names the file", file: "max-steps = 0\n", args: []string{"models"},
			wantCode: exitUsage, wantErr: `config.toml: max-steps: max-steps must be a whole number of at least 1`},
		{name: "unknown key", file: "modle = \"x\"\n", args: []string{"sessions"},
			wantCode: exitUsage, wantErr: `unknown key "modle"`},
		{name: "api key is not a setting", file: "api-key = \"sk-secret\"\n", args: []string{"sessions"},
			wantCode: exitUsage, wantErr: `unknown key "api-key"`},
		{name: "named file must exist", env: map[string]string{"HARNESS_CONFIG": "/nonexistent/harness.toml"}, args: []string{"sessions"},
			wantCode: exitUsage, wantErr: "read config file"},
		{name: "plugins check: log level from the file", file: "provider = \"script\"\nlog-level = \"loud\"\n", args: []string{"plugins", "check", "/nonexistent"},
			wantCode: exitUsage, wantErr: `unknown log level "loud"`},
		{name: "plugins check: env beats file", file: "log-level = \"error\"\n", env: map[string]string{"HARNESS_LOG_LEVEL": "loud"},
			args: []string{"plugins", "check", "/nonexistent"}, wantCode: exitUsage, wantErr: `unknown log level "loud"`},
		{name: "plugins check: flag beats env", env: map[string]string{"HARNESS_LOG_LEVEL": "loud"},
			args: []string{"plugins", "check", "--log-level", "error", "/nonexistent"}, wantCode: exitFailed, wantErr: "/nonexistent does not pass the plugin checks"},
		{name: "file sets the sandbox", file: "sandbox = \"read-only\"\nsandbox-network = \"on\"\n", args: []string{"sandbox"},
			wantOut: []string{"sandbox read-only, network on (mode from config file ", "config.toml: sandbox, network from config file "}},
		{name: "env beats file for the sandbox", file: "sandbox = \"read-only\"\n", env: map[string]string{"HARNESS_SANDBOX": "off"}, args: []string{"sandbox"},
			wantOut: []string{"sandbox off (mode from HARNESS_SANDBOX"}},
		{name: "bad sandbox in the file", file: "sandbox = \"full\"\n", args: []string{"sandbox"},
			wantCode: exitUsage, wantErr: `config.toml: sandbox: unknown sandbox mode "full"`},
		{name: "bad sandbox network in the file", file: "sandbox-network = [\"exa mple.com\"]\n", args: []string{"run", "hi"},
			wantCode: exitUsage, wantErr: `config.toml: sandbox-network: network allow-list: "exa mple.com": not a host name`},
		{name: "empty sandbox network list in the file", file: "sandbox-network = []\n", args: []string{"run", "hi"},
			wantCode: exitUsage, wantErr: `config.toml: sandbox-network: an empty array`},
		{name: "sandbox network list in the file", file: "sandbox-network = [\"registry.npmjs.org\", \"*.Example.com\", \"127.0.0.1:8080\"]\n", args: []string{"sandbox"},
			wantOut: []string{"sandbox workspace-write, network allow-list registry.npmjs.org,*.example.com,127.0.0.1:8080 (mode from the default, network from config file "}},
		{name: "bad MCP start timeout in the file", file: "mcp-start-timeout = \"0s\"\n", args: []string{"models"},
			wantCode: exitUsage, wantErr: "config.toml: mcp-start-timeout: mcp-start-timeout must be a duration above 0"},
		{name: "MCP start timeout from the env", env: map[string]string{"HARNESS_MCP_START_TIMEOUT": "soon"}, args: []string{"models"},
			wantCode: exitUsage, wantErr: "HARNESS_MCP_START_TIMEOUT"},
		{name: "bad context window", env: map[string]string{"HARNESS_CONTEXT_WINDOW": "-5"}, args: []string{"models"},
			wantCode: exitUsage, wantErr: "HARNESS_CONTEXT_WINDOW: context-window must be a number of tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			xdg := t.TempDir()
			if tt.file != "" {
				os.MkdirAll(filepath.Join(xdg, "harness"), 0o700)
				if err := os.WriteFile(filepath.Join(xdg, "harness", "config.toml"), []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"XDG_CONFIG_HOME": xdg, "HARNESS_STATE_DIR": t.TempDir()}
			for k, v := range tt.env {
				env[k] = v
			}
			code, out, errOut := harness(t, env, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout has no %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr has no %q:\n%s", tt.wantErr, errOut)
			}
			if strings.Contains(errOut+out, "sk-secret") {
				t.Errorf("the file's secret is echoed:\n%s%s", out, errOut)
			}
		})
	}
}

// TestRunUsageLine: harness run prints one usage line per turn (tokens
// in with the cached ones, out, the cost at the model's prices) and
// harness sessions shows the session's total.
func TestRunUsageLine(t *testing.T) {
	t.Parallel()
	xdg := t.TempDir()
	os.MkdirAll(filepath.Join(xdg, "harness"), 0o700)
	os.WriteFile(filepath.Join(xdg, "harness", "config.toml"), []byte(
		"provider = \"script\"\nmodel = \"m\"\n[[models]]\nname = \"m\"\ncontext-window = 100000\ninput-price = 1\ncached-input-price = 0.5\noutput-price = 2\n"), 0o600)
	script := writeScript(t, `{"text":"one","usage":{"input":1000,"cacheRead":2000,"output":500},"expect":{"model":"m"}}`)
	env := map[string]string{"XDG_CONFIG_HOME": xdg, "HARNESS_STATE_DIR": t.TempDir(), "HARNESS_SCRIPT": script,
		"HARNESS_PLUGIN_DIR": t.TempDir()}
	code, _, errOut := harness(t, env, "run", "hello")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// 1000 in at 1, 2000 cached at 0.5, 500 out at 2 per million = $0.003.
	if want := "tokens: 3000 in (2000 cached) · 500 out · $0.0030 · context 3500/100000"; !strings.Contains(errOut, want) {
		t.Fatalf("stderr has no %q:\n%s", want, errOut)
	}
	id := strings.Fields(errOut[strings.Index(errOut, "session ")+len("session "):])[0]
	env["HARNESS_SCRIPT"] = writeScript(t, `{"text":"two","usage":{"input":10,"output":5},"expect":{"model":"m"}}`)
	if code, _, errOut := harness(t, env, "run", "--session", id, "again"); code != exitOK ||
		!strings.Contains(errOut, "tokens: 10 in (0 cached) · 5 out · $0.0000") {
		t.Fatalf("second turn: exit %d, stderr:\n%s", code, errOut)
	}
	code, out, errOut := harness(t, env, "sessions")
	if code != exitOK || !strings.Contains(out, "TOTAL") || !strings.Contains(out, "3010 in (2000 cached) · 505 out · $0.0030") {
		t.Fatalf("sessions: exit %d\n%s%s", code, out, errOut)
	}
}
