package main

import (
	"context"
	"fmt"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/pricing"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/shorten"
	"github.com/harness-dev/harness/termview"
)

func cmdSessions(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("sessions", std.err, "harness sessions [flags]")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	dir, err := c.stateDir(e)
	if err != nil {
		return exitFailed, err
	}
	store, where, err := c.sessionStore(ctx)
	if err != nil {
		return exitFailed, err
	}
	rt, err := engine.New(engine.Config{StateDir: dir, Sessions: store, SessionsWhere: where}) // starts nothing: reads the logs only
	if err != nil {
		return exitFailed, err
	}
	list, err := rt.ListSessions()
	if err != nil {
		return exitFailed, err
	}
	if len(list) == 0 {
		fmt.Fprintf(std.err, "no sessions in %s yet: start one with harness run PROMPT, or try harness demo\n", rt.SessionsDir())
		return exitOK, nil
	}
	models, err := c.modelChoice().Resolve()
	if err != nil {
		return exitUsage, err
	}
	if err := termview.Sessions(std.out, list, func(s session.Summary) string { return termview.UsageTotal(pricing.Summary(s, models)) }); err != nil {
		return exitFailed, err
	}
	// A log that could not be read — refused because another user could
	// have written it, or damaged — is listed by id only; say why, one
	// line each.
	for _, s := range list {
		if s.Err != nil {
			fmt.Fprintf(std.err, "harness: %s\n", shorten.Headline(s.Err.Error()))
		}
	}
	return exitOK, nil
}
