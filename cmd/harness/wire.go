package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/termview"
)

// parseFlags parses args into fs. It returns done when the command should
// stop: after -h (code 0) or a bad flag, which fs has already reported.
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return exitOK, true
	default:
		return exitUsage, true
	}
}

// app is the runtime of a command that runs turns, with the terminal it
// renders them on.
type app struct {
	*engine.Runtime
	term termview.Terminal
}

// runtimeConfig is the part of the runtime's Config every command shares:
// the state and plugin folders, the logger, the plugins' settings and the
// limits of turns and subagents.
func runtimeConfig(c *config, e env, log hclog.Logger) (engine.Config, error) {
	dir, err := c.stateDir(e)
	if err != nil {
		return engine.Config{}, err
	}
	dirs, err := c.pluginDirs()
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{StateDir: dir, PluginDirs: dirs, Logger: log, LogLevel: c.LogLevel,
		HostVersion: versionString(), Watch: c.Watch, Reattach: c.Reattach, PluginEnv: c.pluginEnv(),
		MCPUserFile: engine.ConfigFile(e.get, "mcp.json"), MCPProject: c.MCPProject, Getenv: e.get, PluginIdle: c.PluginIdle,
		MaxSteps: c.MaxSteps, SubagentDepth: c.SubagentDepth, ContextWindow: c.ContextWindow, CompactAt: c.CompactAt,
		SubagentBudget: subagent.Budget{Steps: c.SubagentSteps, Wall: c.SubagentTime, Tokens: c.SubagentTokens}}, nil
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
	color := e.get("NO_COLOR") == "" && e.get("TERM") != "dumb"
	return &app{Runtime: rt, term: termview.Terminal{In: std.in, Out: std.out, Err: std.err, Color: color}}, nil
}

// newRuntime builds the runtime of a checked configuration, logging to log.
func newRuntime(c *config, e env, log hclog.Logger, model agent.Model) (*engine.Runtime, error) {
	rc, err := runtimeConfig(c, e, log)
	if err != nil {
		return nil, err
	}
	if rc.Policy, err = c.policy(e); err != nil {
		return nil, err
	}
	if c.SystemPromptFile != "" {
		b, err := os.ReadFile(c.SystemPromptFile)
		if err != nil {
			return nil, fmt.Errorf("read --system-prompt-file: %w", err)
		}
		rc.Instructions = string(b)
	}
	if model != nil {
		// the model a session is logged as starting on
		rc.Model, rc.ModelName, rc.Models = model, c.Provider, []llm.ModelInfo{{Provider: c.Provider, Name: c.Provider}}
	} else if err := rc.OpenModels(engine.Provider{Name: c.Provider, BaseURL: c.BaseURL, Script: c.Script, Thinking: c.Thinking, Getenv: e.get}, c.modelChoice()); err != nil {
		return nil, err
	}
	return engine.New(rc)
}
