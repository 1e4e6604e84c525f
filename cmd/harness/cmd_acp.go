package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/acpagent"
	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/llm/providers"
)

// cmdACP serves the Agent Client Protocol on stdin and stdout until stdin
// ends: an editor (Zed, …) runs `harness acp` and drives it. stdout carries
// ACP messages only; the log goes to stderr as JSON lines.
func cmdACP(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("acp", std.err, "harness acp [flags]   (an editor runs it: ACP on stdin/stdout, JSON log on stderr)")
	c := bindConfig(fs, e)
	var flagOut strings.Builder
	fs.SetOutput(&flagOut)
	code, done := parseFlags(fs, args)
	if done && code == exitOK { // -h
		_, err := fmt.Fprint(std.err, flagOut.String())
		return code, err
	}
	// A bad setting (flags too) does not end the agent, which an editor
	// shows as a crash with no reason: it refuses sessions naming it. Under
	// ACP the log level is info by default: stderr is the editor's log.
	broken := c.check()
	switch {
	case done:
		broken = errors.New(strings.TrimPrefix(strings.TrimSpace(flagOut.String()), "harness: "))
	case len(fs.Args()) > 0:
		broken = fmt.Errorf("harness acp takes no arguments, got %q", fs.Args())
	}
	if broken != nil || c.source("log-level") == "default" {
		c.LogLevel = "info"
	}
	log, _ := newLogger(std.err, c.LogLevel, true) // cannot fail: check validated the level, or it is info
	// go-plugin writes a few lines through the standard library's logger
	// (its broker's accept errors while a plugin's start is cancelled):
	// they go through this one too, so that every line on stderr is a JSON
	// record. The process is the agent's: the standard logger is its own.
	stdlog.SetFlags(0)
	stdlog.SetOutput(log.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true}))
	var rt *engine.Runtime
	if broken == nil {
		rt, broken = newRuntime(c, e, log, nil)
	}
	var noKey error
	if errors.Is(broken, providers.ErrNoAPIKey) {
		// Serve without a model instead — initialize, session/list — and
		// refuse the sessions saying which key to set.
		noKey, broken = broken, nil
		var rc engine.Config
		if rc, broken = turnConfig(c, e, log); broken == nil {
			rt, broken = engine.New(rc)
		}
	}
	if broken == nil {
		broken = c.checkAuto(rt) // never a session silently weaker than its mode
	}
	if broken != nil {
		log.Error("harness acp refuses sessions until its settings are fixed and it is restarted", "error", broken)
		return exitOK, acpbridge.Serve(ctx, acpagent.Unavailable(broken), std.in, std.out, acpagent.BridgeOptions(log, versionString(), nil))
	}

	// The plugins start while the editor initializes; a session waits for
	// them when it is created or opened. They stop after Serve has closed
	// every session, so they exit with the host.
	ag := acpagent.New(rt, log)
	if noKey != nil {
		ag.Refuse(noKey)
	}
	stopStarting := ag.StartTools(ctx)
	opts := acpagent.BridgeOptions(log, versionString(), rt)
	opts.KeyVars = c.keyVars(e, noKey != nil)
	opts.Terminal = c.EditorTerminal
	err := acpbridge.Serve(ctx, ag, std.in, std.out, opts)
	stopStarting() // if the editor left while they were starting
	if cerr := rt.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}

// keyVars are the variables the API keys of the configured providers are
// read from (the provider's, and those of the config file's [[models]]),
// as initialize's auth methods; missing says the host refuses sessions
// for want of the key. The openai provider with --base-url needs none.
func (c *config) keyVars(e env, missing bool) []acpbridge.KeyVar {
	var out []acpbridge.KeyVar
	add := func(provider string) {
		v := providers.KeyEnv(provider)
		if v == "" || (provider == "openai" && c.BaseURL != "") {
			return
		}
		for i := range out {
			if out[i].Var == v {
				if !slices.Contains(out[i].Providers, provider) {
					out[i].Providers = append(out[i].Providers, provider)
				}
				return
			}
		}
		out = append(out, acpbridge.KeyVar{Var: v, Providers: []string{provider},
			Missing: missing || (e.get(v) == "" && e.get("HARNESS_API_KEY") == "")})
	}
	add(c.Provider)
	for _, m := range c.ModelTable {
		add(cmp.Or(m.Provider, c.Provider))
	}
	return out
}
