package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/providers"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/settings/paths"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/termview"
)

// parseFlags parses args into fs. It returns done when the command should
// stop: after -h (code 0, the flags printed) or a bad flag, reported on one
// line naming the flag and saying how to see the flags (exitUsage).
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	usage, out := fs.Usage, fs.Output()
	// The flag package prints its error and the whole usage on a bad flag.
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitOK, true
	default:
		fmt.Fprintf(out, "harness: %s; see the flags with harness %s -h\n", termsafe.Line(flagError(err)), fs.Name())
		return exitUsage, true
	}
}

// The flag package's error messages, which flagError rewords.
var (
	badValue   = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (.*)$`)
	undefined  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	needsValue = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
)

// flagError words a flag package error as this CLI spells flags (--name):
// the flag, the value given when it is not already in the reason, the
// reason.
func flagError(err error) string {
	msg := err.Error()
	if m := badValue.FindStringSubmatch(msg); m != nil {
		if strings.Contains(m[3], m[1]) {
			return fmt.Sprintf("--%s: %s", m[2], m[3])
		}
		return fmt.Sprintf("--%s %s: %s", m[2], m[1], m[3])
	}
	if m := undefined.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := needsValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	return msg
}

// app is the runtime of a command that runs turns, with the terminal it
// renders them on.
type app struct {
	*engine.Runtime
	term termview.Terminal
}

// runtimeConfig is the part of the runtime's Config every command shares:
// the state and plugin folders, the config file, the logger, the plugins'
// settings and the limits of turns and subagents.
func runtimeConfig(c *config, e env, log hclog.Logger) (engine.Config, error) {
	dir, err := c.stateDir(e)
	if err != nil {
		return engine.Config{}, err
	}
	dirs, err := c.pluginDirs()
	if err != nil {
		return engine.Config{}, err
	}
	// The plugins next to the executable ship with it: trusted with what
	// they declare. Every other plugin dir's are third parties'.
	builtin, err := paths.PluginDirs("")
	if err != nil {
		return engine.Config{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	store, where, err := c.sessionStore(ctx)
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{StateDir: dir, Sessions: store, SessionsWhere: where, PluginDirs: dirs, BuiltinPluginDirs: builtin, ConfinePlugins: true, Logger: log, LogLevel: c.LogLevel,
		HostVersion: versionString(), Watch: c.Watch, Reattach: c.Reattach, PluginEnv: c.pluginEnv(), Sandbox: c.sandbox(), ConfigFile: c.ConfigFile,
		MCPUserFile: paths.ConfigFile(e.get, "mcp.json"), MCPProject: c.MCPProject, MCPStartTimeout: c.MCPStartTimeout, Getenv: e.get, PluginIdle: c.PluginIdle,
		MaxSteps: c.MaxSteps, SubagentDepth: c.SubagentDepth, ContextWindow: c.ContextWindow, CompactAt: c.CompactAt,
		CompactTarget: c.CompactTarget, ToolBudget: c.ToolBudget,
		SubagentBudget: subagent.Budget{Steps: c.SubagentSteps, Wall: c.SubagentTime, Tokens: c.SubagentTokens}}, nil
}

// turnConfig is the Config of a runtime that runs turns, but its models:
// runtimeConfig's, the permission policy and the system prompt.
func turnConfig(c *config, e env, log hclog.Logger) (engine.Config, error) {
	rc, err := runtimeConfig(c, e, log)
	if err != nil {
		return rc, err
	}
	if rc.Policy, err = c.policy(e); err != nil {
		return rc, err
	}
	if c.SystemPromptFile != "" {
		b, err := os.ReadFile(c.SystemPromptFile)
		if err != nil {
			return rc, fmt.Errorf("read --system-prompt-file: %w", err)
		}
		rc.Instructions = string(b)
	}
	return rc, nil
}

// newTermApp checks the configuration and builds the runtime with a logger on
// the terminal; a non-nil model is used instead of the configured provider
// (the demo brings its own script).
func newTermApp(c *config, e env, std stdio, model agent.Model) (*app, error) {
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", err, errUsage)
	}
	log, err := newLogger(std.err, c.LogLevel, false)
	if err != nil {
		return nil, err
	}
	rt, err := newRuntime(c, e, log, model)
	if err != nil {
		return nil, err
	}
	if err := c.checkAuto(rt); err != nil {
		return nil, fmt.Errorf("%w: %w", err, errUsage)
	}
	color := e.get("NO_COLOR") == "" && e.get("TERM") != "dumb"
	styled := std.styled // the usage line is dim on a terminal
	if styled == nil {
		styled = std.err
	}
	return &app{Runtime: rt, term: termview.Terminal{In: std.in, Out: std.out, Err: styled, Color: color}}, nil
}

// newRuntime builds the runtime of a checked configuration, logging to log.
func newRuntime(c *config, e env, log hclog.Logger, model agent.Model) (*engine.Runtime, error) {
	rc, err := turnConfig(c, e, log)
	if err != nil {
		return nil, err
	}
	if model != nil {
		// the model a session is logged as starting on
		rc.Model, rc.ModelName, rc.Models = model, c.Provider, []llm.ModelInfo{{Provider: c.Provider, Name: c.Provider}}
	} else if err := rc.OpenModels(providers.Provider{Name: c.Provider, BaseURL: c.BaseURL, Script: c.Script, Thinking: c.Thinking, Getenv: e.get}, c.modelChoice()); err != nil {
		return nil, err
	}
	return engine.New(rc)
}

// checkAuto refuses a configured auto mode where rt's sandbox cannot hold
// it (engine.Runtime.AutoRefusal): one line naming where the mode came
// from, why, and what to do.
func (c *config) checkAuto(rt *engine.Runtime) error {
	if rt.Policy().Mode != permission.ModeAuto {
		return nil
	}
	if err := rt.AutoRefusal(); err != nil {
		from := c.modeFrom
		if from == "" {
			from = "mode"
		}
		return fmt.Errorf("%s auto: %w", c.source(from), err)
	}
	return nil
}
