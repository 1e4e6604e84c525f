package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/confine"
	"github.com/harness-dev/harness/host/llm/providers"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/session/natsstore"
	"github.com/harness-dev/harness/host/settings"
	"github.com/harness-dev/harness/host/settings/paths"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/sandbox"
)

// config is every setting of the harness command. Each is read one way
// (host/settings): a flag given on the command line wins over its
// environment variable, which wins over the config file
// ($XDG_CONFIG_HOME/harness/config.toml, --config, HARNESS_CONFIG), which
// wins over the default.
type config struct {
	Provider string
	Model    string
	BaseURL  string
	Script   string
	Thinking string // --thinking-budget (anthropic)
	StateDir string
	// Store keeps the sessions elsewhere than the state folder's files:
	// a NATS JetStream server's URL (store.go), with its credentials.
	Store, StoreCreds, StoreNkey, StoreCA string
	StoreLease                            time.Duration
	PluginDir                             string // colon-separated; resolved by pluginDirs
	MaxSteps                              int
	LogLevel                              string
	SystemPromptFile                      string
	// Mode is the permission mode: read-only | ask | accept-edits | auto |
	// allow-all ("" = ask); --yes sets allow-all. ModeSet says it was
	// given (a flag or its variable): harness run then sets it on a
	// continued session, which otherwise keeps its own.
	Mode    string
	ModeSet bool
	// Permission is --permission / HARNESS_PERMISSION, the deprecated
	// alias of --mode; resolve folds it into Mode.
	Permission      string
	Yes             bool
	PermissionsFile string
	// Subagents: how deep children may nest, and each child's budgets.
	SubagentDepth  int
	SubagentSteps  int
	SubagentTime   time.Duration
	SubagentTokens int
	// MCPProject trusts the session folder's .mcp.json.
	MCPProject bool
	// MCPStartTimeout bounds an MCP server's start (mcp.json's
	// startTimeout replaces it for one server).
	MCPStartTimeout time.Duration
	// Watch hot-reloads plugins whose binaries change.
	Watch bool
	// PluginEnv names host environment variables the plugins get besides
	// pluginhost.DefaultPassEnv (comma-separated; a trailing * is a prefix).
	PluginEnv string
	// Sandbox is what bash commands may touch: workspace-write |
	// read-only | off; SandboxNetwork what they reach: off | on | an
	// allow-list of hosts, comma-separated (package sandbox).
	Sandbox        string
	SandboxNetwork string
	// AddDirs are more folders bash commands may write in (--add-dir,
	// repeatable; HARNESS_ADD_DIRS colon-separated; key add-dirs, a
	// list), DenyRead more paths they cannot read (--deny-read; key
	// deny-read), PidsLimit the processes of one command; "~" expanded.
	AddDirs   []string
	DenyRead  []string
	PidsLimit int
	// CompactAt is the percent of the context window a request may fill
	// before compaction.
	CompactAt int
	// CompactTarget is the percent of the window the request after a
	// compaction may fill at most; ToolBudget the percent the tool schemas
	// may take before the tools beyond the built-in plugins' are deferred
	// behind tool_search.
	CompactTarget int
	ToolBudget    int
	// Reattach is $HARNESS_REATTACH_PLUGINS: plugins running in debug mode
	// that the toolbox attaches to instead of launching (parsed by
	// startTools).
	Reattach string
	// PluginIdle stops a plugin idle that long (0: never; default
	// defaultPluginIdle).
	PluginIdle time.Duration
	// ConfigFile is the config file (--config, HARNESS_CONFIG).
	ConfigFile string
	// Models are more model names of the provider a session may switch
	// to (comma-separated); ContextWindow is the window of the models the
	// built-in table does not know (0: unknown).
	Models        string
	ContextWindow int
	// ModelTable is the config file's [[models]].
	ModelTable []providers.Entry
	// AllowedTools and DisallowedTools are tool names and patterns
	// (mcp__server__*), comma-separated: allow and deny rules put before
	// the permissions file's (toolRules).
	AllowedTools    string
	DisallowedTools string
	// EditorTerminal runs bash calls in the editor's terminals under ACP
	// (acpbridge.Options.Terminal).
	EditorTerminal bool

	set      *settings.Set
	modeFrom string // "mode" or "permission": the setting Mode came from
	env      env
	resolved bool
}

// env looks up an environment variable; main passes os.LookupEnv, tests a map.
type env func(string) (string, bool)

func (e env) get(name string) string {
	v, _ := e(name)
	return v
}

// bindConfig registers the common settings on fs; parse (or check) reads
// them once fs is parsed.
func bindConfig(fs *flag.FlagSet, e env) *config {
	c := &config{env: e, set: settings.New(fs)}
	s := c.set
	s.ConfigFile(&c.ConfigFile, "config", "HARNESS_CONFIG", paths.ConfigFile(e.get, "config.toml"), "settings file (TOML; keys are the flag names, plus [[models]])")
	s.String(&c.Provider, "provider", "HARNESS_PROVIDER", "deepseek", "model provider: deepseek | openai | openai-responses | anthropic | script")
	s.String(&c.Model, "model", "HARNESS_MODEL", "", "the default model (deepseek: deepseek-chat)")
	s.String(&c.Models, "models", "HARNESS_MODELS", "", "comma-separated model names of the provider a session may switch to (the editor's model picker); the first is the default unless --model says otherwise")
	s.Int(&c.ContextWindow, "context-window", "HARNESS_CONTEXT_WINDOW", 0, "context window in tokens of the models the built-in table does not know")
	s.String(&c.BaseURL, "base-url", "HARNESS_BASE_URL", "", "base URL of the provider's API (a local OpenAI-compatible server, a gateway), e.g. http://localhost:11434/v1")
	s.String(&c.Thinking, "thinking-budget", "HARNESS_THINKING_BUDGET", "", "anthropic extended thinking: adaptive, off, or a budget of at least 1024 tokens (default: none sent, the model's default)")
	s.String(&c.Script, "script", "HARNESS_SCRIPT", "", "JSONL script played by the script provider")
	s.String(&c.StateDir, "state-dir", "HARNESS_STATE_DIR", "", "where sessions are kept (default $XDG_STATE_HOME/harness, else ~/.local/state/harness)")
	s.String(&c.Store, "store", "HARNESS_STORE", "", "where sessions are kept: empty for files in the state folder, or a NATS JetStream server shared by hosts: nats://host:4222 (tls://…; comma-separated URLs of a cluster)")
	s.String(&c.StoreCreds, "store-creds", "HARNESS_STORE_CREDS", "", "NATS credentials file (.creds) for --store")
	s.String(&c.StoreNkey, "store-nkey", "HARNESS_STORE_NKEY", "", "NATS nkey seed file for --store")
	s.String(&c.StoreCA, "store-ca", "HARNESS_STORE_CA", "", "CA certificates (PEM) that sign the --store server's TLS certificate, when the system's do not")
	s.Duration(&c.StoreLease, "store-lease", "HARNESS_STORE_LEASE", natsstore.DefaultLeaseTTL, "how long a session of --store stays held by a host that died before another may take it over")
	s.String(&c.PluginDir, "plugin-dir", "HARNESS_PLUGIN_DIR", "", "colon-separated plugin folders (default: plugins/ next to the harness executable)")
	s.String(&c.LogLevel, "log-level", "HARNESS_LOG_LEVEL", "warn", "log level on stderr: trace | debug | info | warn | error | off")
	s.String(&c.SystemPromptFile, "system-prompt-file", "HARNESS_SYSTEM_PROMPT_FILE", "", "file whose text replaces the default system prompt")
	s.String(&c.Mode, "mode", "HARNESS_MODE", "", "permission mode: read-only | ask | accept-edits | auto (commands run unasked in the sandbox) | allow-all (default ask)")
	s.String(&c.Permission, "permission", "HARNESS_PERMISSION", "", "deprecated: use --mode")
	s.String(&c.PermissionsFile, "permissions", "HARNESS_PERMISSIONS_FILE", "", "permission rules file (default $XDG_CONFIG_HOME/harness/permissions.json)")
	s.String(&c.PluginEnv, "plugin-env", "HARNESS_PLUGIN_ENV", "", "comma-separated names of environment variables the plugins (and so bash commands) get besides PATH, HOME, USER, LANG, LC_*, TERM, TMPDIR, XDG_*, the proxy variables and the toolchains' (GO*, JAVA_HOME, VIRTUAL_ENV …), e.g. NPM_CONFIG_REGISTRY; values come from this environment")
	s.String(&c.Sandbox, "sandbox", "HARNESS_SANDBOX", string(sandbox.WorkspaceWrite), "what bash commands may write, enforced by the kernel: workspace-write (the session's folder and a private temp folder) | read-only | off (the user's rights); see harness sandbox")
	s.StringList(&c.SandboxNetwork, "sandbox-network", "HARNESS_SANDBOX_NETWORK", string(sandbox.NetworkOff), ",", "what sandboxed bash commands reach: off (loopback only) | on | hosts, comma-separated (registry.npmjs.org,*.example.com,127.0.0.1:8080; the config file takes an array), reached only through harness's HTTP/HTTPS proxy")
	s.List(&c.AddDirs, "add-dir", "add-dirs", "HARNESS_ADD_DIRS", "a folder bash commands may write in besides the session's, its .git hooks and config, .vscode and the like kept read-only; repeat for more (env: colon-separated; config key add-dirs, a list)", nil)
	s.List(&c.DenyRead, "deny-read", "deny-read", "HARNESS_DENY_READ", "a path bash commands cannot read (hidden as empty), besides ~/.ssh, ~/.aws and the other credential stores; repeat for more (env: colon-separated; config key deny-read, a list)", nil)
	s.Int(&c.PidsLimit, "pids-limit", "HARNESS_PIDS_LIMIT", sandbox.DefaultPidsLimit, "most processes (and threads) one sandboxed bash command may have")
	s.Bool(&c.MCPProject, "mcp-project", "HARNESS_MCP_PROJECT", false, "start the MCP servers of the project's .mcp.json too (they run commands from the repository)")
	s.Bool(&c.Watch, "watch", "HARNESS_WATCH", true, "reload a plugin when its binary changes; --watch=false turns it off")
	s.Bool(&c.Yes, "yes", "", false, "allow every tool call without asking (same as --mode allow-all)")
	s.Int(&c.MaxSteps, "max-steps", "HARNESS_MAX_STEPS", 100, "most model steps in one turn")
	s.Int(&c.SubagentDepth, "subagent-depth", "HARNESS_SUBAGENT_DEPTH", subagent.DefaultMaxDepth, "how deep subagents may nest, 1 to 3")
	s.Int(&c.SubagentSteps, "subagent-steps", "HARNESS_SUBAGENT_STEPS", subagent.DefaultSteps, "step budget of each subagent")
	s.Int(&c.SubagentTokens, "subagent-tokens", "HARNESS_SUBAGENT_TOKENS", 0, "token budget of each subagent when the provider reports usage; 0: none")
	s.Int(&c.CompactAt, "compact-at", "HARNESS_COMPACT_AT", 80, "compact the history before a request that would fill more than this percent of the context window")
	s.Duration(&c.MCPStartTimeout, "mcp-start-timeout", "HARNESS_MCP_START_TIMEOUT", mcpclient.DefaultStartTimeout, "longest start of an MCP server (launch, initialize, its tool list); a server's startTimeout in mcp.json, in seconds, replaces it; the first prompt waits for none longer than 2s")
	s.Int(&c.CompactTarget, "compact-target", "HARNESS_COMPACT_TARGET", agent.DefaultCompactTarget, "after a compaction, the request fills at most this percent of the context window")
	s.Int(&c.ToolBudget, "tool-budget", "HARNESS_TOOL_BUDGET", engine.DefaultToolBudget, "percent of the context window the tool schemas may take before MCP and third-party tools are deferred behind tool_search; 100: never")
	s.Duration(&c.PluginIdle, "plugin-idle", "HARNESS_PLUGIN_IDLE", defaultPluginIdle, "stop a plugin after this long without use; it starts again on its next call; 0: never")
	s.Duration(&c.SubagentTime, "subagent-time", "HARNESS_SUBAGENT_TIME", subagent.DefaultWall, "wall-time budget of each subagent")
	s.StringList(&c.AllowedTools, "allowed-tools", "HARNESS_ALLOWED_TOOLS", "", ",", "tools that run without asking, names or mcp__server__* patterns, comma-separated: allow rules on top of the permissions file (its deny rules still win)")
	s.StringList(&c.DisallowedTools, "disallowed-tools", "HARNESS_DISALLOWED_TOOLS", "", ",", "tools that never run, names or mcp__server__* patterns, comma-separated: deny rules on top of the permissions file; harness run does not offer them to the model")
	s.Bool(&c.EditorTerminal, "editor-terminal", "HARNESS_EDITOR_TERMINAL", false, "harness acp: run bash calls in the editor's terminal when it offers terminals (the editor shows a real terminal); such commands run as the editor's, outside harness's sandbox")
	s.Table("models", &c.ModelTable)
	c.Reattach = e.get(pluginapi.EnvReattach)
	return c
}

// parse parses args into fs and resolves the settings. It returns done
// when the command should stop: after -h (code 0), a bad flag (reported by
// fs) or a bad setting (reported here, naming where it came from).
func (c *config) parse(fs *flag.FlagSet, args []string) (code int, done bool) {
	if code, done := parseFlags(fs, args); done {
		return code, done
	}
	if err := c.resolve(); err != nil {
		fmt.Fprintf(fs.Output(), "harness: %s\n", termsafe.Line(err.Error()))
		return exitUsage, true
	}
	return 0, false
}

// resolve reads the environment and the config file into the settings no
// flag set; once.
func (c *config) resolve() error {
	if c.resolved || c.set == nil { // a config built as a literal (tests) is all set
		return nil
	}
	c.resolved = true
	if err := c.set.Resolve(settings.Lookup(c.env)); err != nil {
		return err
	}
	c.resolveMode()
	// Every command logs: a bad level is named with where it came from.
	if _, err := hclogger(io.Discard, c.LogLevel, false); err != nil {
		return fmt.Errorf("%s: %w", c.source("log-level"), err)
	}
	return nil
}

// resolveMode folds --permission, the deprecated alias, into --mode: the
// one given the stronger way wins (a flag over a variable over the
// file), --mode on a tie. ModeSet says the mode was given for this run
// (a flag or a variable), not taken from the file or the default: only
// such a mode switches a continued session.
func (c *config) resolveMode() {
	src := "mode"
	if c.Permission != "" && (c.Mode == "" || c.set.Rank("permission") > c.set.Rank("mode")) {
		c.Mode, src = c.Permission, "permission"
	}
	c.ModeSet = c.Mode != "" && c.set.Rank(src) >= 2
	c.modeFrom = src
}

// source says where setting name's value came from (host/settings).
func (c *config) source(name string) string {
	if c.set == nil {
		return "--" + name
	}
	return c.set.Source(name)
}

// check validates the parsed settings.
func (c *config) check() error {
	if err := c.resolve(); err != nil {
		return err
	}
	if c.MaxSteps < 1 {
		return fmt.Errorf("%s: max-steps must be a whole number of at least 1", c.source("max-steps"))
	}
	if c.ContextWindow < 0 {
		return fmt.Errorf("%s: context-window must be a number of tokens, 0 for unknown", c.source("context-window"))
	}
	if _, err := c.modelChoice().Resolve(); err != nil {
		return err
	}
	switch c.Provider {
	case "deepseek", "openai", "openai-responses", "anthropic", "script":
	default:
		return fmt.Errorf("unknown provider %q: use deepseek, openai, openai-responses, anthropic or script", c.Provider)
	}
	if c.Mode != "" {
		from := c.modeFrom
		if from == "" {
			from = "mode"
		}
		if _, err := permission.ParseMode(c.Mode); err != nil {
			return fmt.Errorf("%s: %w", c.source(from), err)
		}
	}
	if c.Sandbox != "" { // "": the default (a config built as a literal)
		if _, err := sandbox.ParseMode(c.Sandbox); err != nil {
			return fmt.Errorf("%s: %w", c.source("sandbox"), err)
		}
	}
	if _, err := parseNetwork(c.SandboxNetwork); err != nil {
		return fmt.Errorf("%s: %w", c.source("sandbox-network"), err)
	}
	if _, err := c.sandboxPaths(); err != nil {
		return err
	}
	if c.PidsLimit < 0 || c.PidsLimit > maxPidsLimit || (c.PidsLimit > 0 && c.PidsLimit < minPidsLimit) {
		return fmt.Errorf("%s: pids-limit must be from %d to %d (0: the default, %d)", c.source("pids-limit"), minPidsLimit, maxPidsLimit, sandbox.DefaultPidsLimit)
	}
	if err := pluginhost.CheckEnvNames(c.pluginEnv()); err != nil {
		return fmt.Errorf("%s: %w", c.source("plugin-env"), err)
	}
	if c.MCPStartTimeout <= 0 {
		return fmt.Errorf("%s: mcp-start-timeout must be a duration above 0 such as 90s", c.source("mcp-start-timeout"))
	}
	if c.PluginIdle < 0 {
		return fmt.Errorf("%s: plugin-idle must be a duration such as 5m, or 0 for never", c.source("plugin-idle"))
	}
	if _, err := providers.ThinkingBudget(c.Thinking); err != nil {
		return fmt.Errorf("%s: %w", c.source("thinking-budget"), err)
	}
	if c.CompactAt < 0 || c.CompactAt > 100 {
		return fmt.Errorf("%s: compact-at must be a percent from 1 to 100", c.source("compact-at"))
	}
	if c.CompactTarget < 0 || c.CompactTarget > 99 || c.CompactAt > 0 && c.CompactTarget >= c.CompactAt {
		return fmt.Errorf("%s: compact-target must be a percent from 1 to below compact-at (%d)", c.source("compact-target"), c.CompactAt)
	}
	if c.ToolBudget < 0 || c.ToolBudget > 100 {
		return fmt.Errorf("%s: tool-budget must be a percent from 1 to 100", c.source("tool-budget"))
	}
	if c.SubagentDepth < 1 || c.SubagentDepth > subagent.LimitMaxDepth {
		return fmt.Errorf("%s: subagent-depth must be 1, 2 or 3", c.source("subagent-depth"))
	}
	for _, n := range []string{"subagent-steps", "subagent-time", "subagent-tokens"} {
		bad := n == "subagent-steps" && c.SubagentSteps < 1 || n == "subagent-time" && c.SubagentTime <= 0 || n == "subagent-tokens" && c.SubagentTokens < 0
		if bad {
			return fmt.Errorf("%s: subagent budgets must be positive: subagent-steps, subagent-time (a duration like 10m), subagent-tokens (0 for none)", c.source(n))
		}
	}
	return nil
}

// The range of pids-limit: a command needs bash and a few children; the
// kernel's own cap on pids is 2^22.
// defaultPluginIdle is --plugin-idle's default: a plugin unused for that
// long is stopped (it starts again on its next call, ~5–15 ms).
const defaultPluginIdle = 5 * time.Minute

const (
	minPidsLimit = 8
	maxPidsLimit = 1 << 22
)

// sandboxPaths checks add-dir and deny-read ("~" expanded with $HOME)
// and returns the sandbox with them; an error names the setting's source.
func (c *config) sandboxPaths() (confine.Setting, error) {
	home := ""
	if c.env != nil {
		home = c.env.get("HOME")
	}
	var sb confine.Setting
	for _, d := range c.AddDirs {
		checked, err := confine.CheckAddDir(d, home)
		if err != nil {
			return sb, fmt.Errorf("%s: %w", c.source("add-dir"), err)
		}
		if !slices.Contains(sb.AddDirs, checked) {
			sb.AddDirs = append(sb.AddDirs, checked)
		}
	}
	for _, p := range c.DenyRead {
		checked, err := confine.CheckDenyRead(p, home)
		if err != nil {
			return sb, fmt.Errorf("%s: %w", c.source("deny-read"), err)
		}
		if !slices.Contains(sb.DenyRead, checked) {
			sb.DenyRead = append(sb.DenyRead, checked)
		}
	}
	return sb, nil
}

// sandbox is the sandbox setting; check has validated it.
func (c *config) sandbox() confine.Setting {
	sb, _ := c.sandboxPaths()
	sb.Mode, _ = sandbox.ParseMode(c.Sandbox) // "" stays "": engine's default
	sb.Network, _ = parseNetwork(c.SandboxNetwork)
	sb.PidsLimit = c.PidsLimit
	return sb
}

// parseNetwork reads the sandbox-network setting: off, on or an
// allow-list (sandbox.ParseNetwork).
func parseNetwork(s string) (sandbox.Network, error) { return sandbox.ParseNetwork(s) }

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

// policy returns the permission policy: the mode new sessions get (--yes
// wins) and the rules of the permissions file.
func (c *config) policy(e env) (permission.Policy, error) {
	mode := permission.Mode(c.Mode)
	if c.Yes {
		mode = permission.ModeAllowAll
	}
	p, err := engine.LoadPolicy(mode, c.PermissionsFile, e.get)
	if err != nil {
		return p, err
	}
	p.Rules = append(c.toolRules(), p.Rules...)
	return p, nil
}

// stateDir returns the state folder: the flag, else engine's default.
func (c *config) stateDir(e env) (string, error) {
	if c.StateDir != "" {
		return filepath.Abs(c.StateDir)
	}
	return paths.StateDir(e.get)
}

// pluginDirs returns the plugin folders: the flag's colon-separated list,
// else engine's default.
func (c *config) pluginDirs() ([]string, error) { return paths.PluginDirs(c.PluginDir) }
