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
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/subagent"
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

// app is the runtime of a command that runs turns, with the settings its
// terminal rendering needs.
type app struct {
	*engine.Runtime
	cfg *config
	// color allows ANSI styles on a terminal: NO_COLOR unset, TERM not dumb.
	color bool
}

// runtimeConfig is the part of the runtime's Config every command shares:
// the state and plugin folders, the logger and the plugins' settings.
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
		MCPUserFile: mcpclient.UserFile(e.get), MCPProject: e.get("HARNESS_MCP_PROJECT") == "1", Getenv: e.get, PluginIdle: c.PluginIdle}, nil
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
	return newApp(c, e, log, model)
}

// newApp builds the runtime of a checked configuration, logging to log.
func newApp(c *config, e env, log hclog.Logger, model agent.Model) (*app, error) {
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
		rc.Model, rc.ModelName = model, c.Provider
	} else {
		if rc.Model, rc.ModelName, err = engine.OpenModel(engine.Provider{Name: c.Provider, Model: c.defaultModel(),
			BaseURL: c.BaseURL, Script: c.Script, Thinking: c.Thinking, Getenv: e.get}, log); err != nil {
			return nil, err
		}
		if rc.Models, err = c.models(); err != nil {
			return nil, err
		}
		// A model of another provider ([[models]] in the config file) is
		// served by that provider, opened on first use.
		rc.OpenProvider = func(m llm.ModelInfo) (agent.Model, error) {
			p, _, err := engine.OpenModel(engine.Provider{Name: m.Provider, Model: m.Name, Thinking: c.Thinking, Getenv: e.get}, log)
			return p, err
		}
	}
	rc.MaxSteps, rc.SubagentDepth = c.MaxSteps, c.SubagentDepth
	rc.ContextWindow, rc.CompactAt = c.ContextWindow, c.CompactAt
	rc.SubagentBudget = subagent.Budget{Steps: c.SubagentSteps, Wall: c.SubagentTime, Tokens: c.SubagentTokens}
	rt, err := engine.New(rc)
	if err != nil {
		return nil, err
	}
	return &app{Runtime: rt, cfg: c, color: e.get("NO_COLOR") == "" && e.get("TERM") != "dumb"}, nil
}

// openSession opens session id, or creates one in the current directory
// when id is empty.
func (a *app) openSession(id string) (*session.Session, error) {
	if id != "" {
		s, err := a.OpenSession(id)
		if errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("no session %q in %s: list them with harness sessions", id, a.SessionsDir())
		}
		return s, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find the current directory: %w", err)
	}
	return a.CreateSession(cwd)
}
