package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/harness-dev/harness/acpagent"
	"github.com/harness-dev/harness/acpbridge"
	"github.com/harness-dev/harness/engine"
)

// cmdACP serves the Agent Client Protocol on stdin and stdout until stdin
// ends: an editor (Zed, …) runs `harness acp` and drives it. stdout carries
// ACP messages only; the log goes to stderr as JSON lines.
func cmdACP(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("acp", std.err, "harness acp [flags]   (an editor runs it: ACP on stdin/stdout, JSON log on stderr)")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if len(fs.Args()) > 0 {
		return exitUsage, fmt.Errorf("harness acp takes no arguments, got %q: %w", fs.Args(), errUsage)
	}
	if err := c.check(); err != nil {
		return exitUsage, fmt.Errorf("%w: %w", err, errUsage)
	}
	// An editor keeps the agent's stderr as its log: under ACP the default
	// level is info, so that reloads and recoveries are on record.
	if c.source("log-level") == "default" {
		c.LogLevel = "info"
	}
	log, err := newLogger(std.err, c.LogLevel, true)
	if err != nil {
		return exitUsage, err
	}
	rt, err := newRuntime(c, e, log, nil)
	var noKey error
	if errors.Is(err, engine.ErrNoAPIKey) {
		// An editor sees an agent that exits at start as a crash, with no
		// reason it shows: serve without a model instead — initialize,
		// session/list — and refuse the sessions saying which key to set.
		noKey = err
		log.Error("no API key: harness acp refuses sessions until it is restarted with one", "error", err)
		var rc engine.Config
		if rc, err = turnConfig(c, e, log); err == nil {
			rt, err = engine.New(rc)
		}
	}
	if err != nil {
		return exitFailed, err
	}

	// The plugins start while the editor initializes; a session waits for
	// them when it is created or opened. They stop after Serve has closed
	// every session, so they exit with the host.
	ag := acpagent.New(rt, log)
	if noKey != nil {
		ag.Refuse(noKey)
	}
	stopStarting := ag.StartTools(ctx)
	err = acpbridge.Serve(ctx, ag, std.in, std.out, acpbridge.Options{
		Name: "harness", Title: "harness", Version: versionString(), Logger: log.Named("acp"), Modes: acpagent.Modes(),
		Images: acpagent.DefaultTakesImages(rt.Models())})
	stopStarting() // if the editor left while they were starting
	if cerr := rt.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	if err != nil {
		return exitFailed, err
	}
	return exitOK, nil
}
