package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// config is every setting of the harness command, from flags with
// environment twins. A flag given on the command line wins over its variable.
type config struct {
	Provider         string
	Model            string
	BaseURL          string
	Script           string
	StateDir         string
	PluginDir        string // colon-separated; resolved by pluginDirs
	MaxSteps         int
	LogLevel         string
	SystemPromptFile string
	// Permission is the permission mode: ask | allow-all ("" = the
	// command's default); --yes sets allow-all.
	Permission      string
	Yes             bool
	PermissionsFile string
	// Subagents: how deep children may nest, and each child's budgets.
	SubagentDepth  int
	SubagentSteps  int
	SubagentTime   time.Duration
	SubagentTokens int
	// Watch hot-reloads plugins whose binaries change.
	Watch bool
	// PluginEnv names host environment variables the plugins get besides
	// pluginhost.DefaultPassEnv (comma-separated; a trailing * is a prefix).
	PluginEnv string
	// Reattach is $HARNESS_REATTACH_PLUGINS: plugins running in debug mode
	// that the toolbox attaches to instead of launching (parsed by
	// startTools).
	Reattach string
}

// env looks up an environment variable; main passes os.LookupEnv, tests a map.
type env func(string) (string, bool)

func (e env) get(name string) string {
	v, _ := e(name)
	return v
}

// bindConfig registers the common flags on fs, their defaults taken from the
// environment, and returns the config they fill when fs is parsed.
func bindConfig(fs *flag.FlagSet, e env) *config {
	c := &config{}
	str := func(p *string, name, envName, def, usage string) {
		if v := e.get(envName); v != "" {
			def = v
		}
		fs.StringVar(p, name, def, usage+" (env "+envName+")")
	}
	str(&c.Provider, "provider", "HARNESS_PROVIDER", "deepseek", "model provider: deepseek | openai | openai-responses | anthropic | script")
	str(&c.Model, "model", "HARNESS_MODEL", "", "model name (deepseek: deepseek-chat by default)")
	str(&c.BaseURL, "base-url", "HARNESS_BASE_URL", "", "base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1")
	str(&c.Script, "script", "HARNESS_SCRIPT", "", "JSONL script played by the script provider")
	str(&c.StateDir, "state-dir", "HARNESS_STATE_DIR", "", "where sessions are kept (default $XDG_STATE_HOME/harness, else ~/.local/state/harness)")
	str(&c.PluginDir, "plugin-dir", "HARNESS_PLUGIN_DIR", "", "colon-separated plugin folders (default: plugins/ next to the harness executable)")
	str(&c.LogLevel, "log-level", "HARNESS_LOG_LEVEL", "warn", "log level on stderr: trace | debug | info | warn | error | off")
	str(&c.SystemPromptFile, "system-prompt-file", "HARNESS_SYSTEM_PROMPT_FILE", "", "file whose text replaces the default system prompt")
	str(&c.Permission, "permission", "HARNESS_PERMISSION", "", "permission mode for tools that need it: ask | allow-all (default ask)")
	str(&c.PermissionsFile, "permissions", "HARNESS_PERMISSIONS_FILE", "", "permission rules file (default $XDG_CONFIG_HOME/harness/permissions.json)")
	str(&c.PluginEnv, "plugin-env", "HARNESS_PLUGIN_ENV", "", "comma-separated names of environment variables the plugins (and so bash commands) get besides PATH, HOME, USER, LANG, LC_*, TERM, TMPDIR, XDG_*, the proxy variables and the toolchains' (GO*, JAVA_HOME, VIRTUAL_ENV …), e.g. NPM_CONFIG_REGISTRY; values come from this environment")
	watch := e.get("HARNESS_WATCH") != "false" && e.get("HARNESS_WATCH") != "0"
	fs.BoolVar(&c.Watch, "watch", watch, "reload a plugin when its binary changes; --watch=false turns it off (env HARNESS_WATCH)")
	c.Reattach = e.get(pluginapi.EnvReattach)
	fs.BoolVar(&c.Yes, "yes", false, "allow every tool call without asking (same as --permission allow-all)")
	fs.IntVar(&c.MaxSteps, "max-steps", 100, "most model steps in one turn (env HARNESS_MAX_STEPS)")
	num := func(p *int, name, envName string, def int, usage string) {
		if v := e.get(envName); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				def = n
			} else {
				def = -1 // reported by check
			}
		}
		fs.IntVar(p, name, def, usage+" (env "+envName+")")
	}
	num(&c.SubagentDepth, "subagent-depth", "HARNESS_SUBAGENT_DEPTH", subagent.DefaultMaxDepth, "how deep subagents may nest, 1 to 3")
	num(&c.SubagentSteps, "subagent-steps", "HARNESS_SUBAGENT_STEPS", subagent.DefaultSteps, "step budget of each subagent")
	num(&c.SubagentTokens, "subagent-tokens", "HARNESS_SUBAGENT_TOKENS", 0, "token budget of each subagent when the provider reports usage; 0: none")
	wall := subagent.DefaultWall
	if v := e.get("HARNESS_SUBAGENT_TIME"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			wall = d
		} else {
			wall = -1 // reported by check
		}
	}
	fs.DurationVar(&c.SubagentTime, "subagent-time", wall, "wall-time budget of each subagent (env HARNESS_SUBAGENT_TIME)")
	if v := e.get("HARNESS_MAX_STEPS"); v != "" {
		// An unparsable value is reported by check, not ignored.
		n, err := strconv.Atoi(v)
		if err != nil {
			n = -1
		}
		c.MaxSteps = n
		fs.Lookup("max-steps").DefValue = v
	}
	return c
}

// check validates the parsed settings.
func (c *config) check() error {
	if c.MaxSteps < 1 {
		return fmt.Errorf("--max-steps (or HARNESS_MAX_STEPS) must be a whole number of at least 1")
	}
	switch c.Provider {
	case "deepseek", "openai", "openai-responses", "anthropic", "script":
	default:
		return fmt.Errorf("unknown provider %q: use deepseek, openai, openai-responses, anthropic or script", c.Provider)
	}
	if c.Permission != "" {
		if _, err := permission.ParseMode(c.Permission); err != nil {
			return err
		}
	}
	if err := pluginhost.CheckEnvNames(c.pluginEnv()); err != nil {
		return fmt.Errorf("--plugin-env (or HARNESS_PLUGIN_ENV): %w", err)
	}
	if c.SubagentDepth < 1 || c.SubagentDepth > subagent.LimitMaxDepth {
		return fmt.Errorf("--subagent-depth (or HARNESS_SUBAGENT_DEPTH) must be 1, 2 or 3")
	}
	if c.SubagentSteps < 1 || c.SubagentTime <= 0 || c.SubagentTokens < 0 {
		return fmt.Errorf("subagent budgets must be positive: --subagent-steps, --subagent-time (a duration like 10m), --subagent-tokens (0 for none)")
	}
	return nil
}

// pluginEnv returns the names of --plugin-env.
func (c *config) pluginEnv() []string {
	var names []string
	for _, n := range strings.Split(c.PluginEnv, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// policy returns the permission policy: the mode (--yes wins) and the rules
// of the permissions file.
func (c *config) policy(e env) (permission.Policy, error) {
	p := permission.Policy{Mode: permission.ModeAsk, File: c.PermissionsFile}
	if c.Permission != "" {
		p.Mode = permission.Mode(c.Permission)
	}
	if c.Yes {
		p.Mode = permission.ModeAllowAll
	}
	if p.File == "" {
		if p.File = engine.DefaultPermissionsFile(e.get); p.File == "" {
			return p, nil // nowhere to look: no rules
		}
	}
	rules, err := permission.LoadRules(p.File)
	if err != nil {
		return p, err
	}
	p.Rules = rules
	return p, nil
}

// stateDir returns the state folder: the flag, else engine's default.
func (c *config) stateDir(e env) (string, error) {
	if c.StateDir != "" {
		return filepath.Abs(c.StateDir)
	}
	return engine.DefaultStateDir(e.get)
}

// pluginDirs returns the plugin folders: the flag's colon-separated list,
// else engine's default.
func (c *config) pluginDirs() ([]string, error) { return engine.PluginDirs(c.PluginDir) }
