package main

import (
	"context"
	"fmt"

	"github.com/harness-dev/harness/host/llm/providers"
	"github.com/harness-dev/harness/host/termsafe"
	"github.com/harness-dev/harness/termview"
)

// cmdModels lists the models a session may use; with --remote, the models
// the provider's server offers (GET /models).
func cmdModels(ctx context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("models", std.err, "harness models [--remote] [flags]")
	c := bindConfig(fs, e)
	remote := fs.Bool("remote", false, "list the models the provider's server offers (GET BASE-URL/models) instead")
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	if len(fs.Args()) > 0 {
		return exitUsage, fmt.Errorf("harness models takes no arguments, got %q: %w", fs.Args(), errUsage)
	}
	if err := c.check(); err != nil {
		return exitUsage, fmt.Errorf("%w: %w", err, errUsage)
	}
	if *remote {
		names, err := providers.ListRemote(ctx, providers.Provider{Name: c.Provider, BaseURL: c.BaseURL, Getenv: e.get})
		if err != nil {
			return exitFailed, err
		}
		for _, n := range names {
			fmt.Fprintln(std.out, termsafe.Line(n))
		}
		if len(names) == 0 {
			fmt.Fprintln(std.err, "the server lists no models")
		}
		return exitOK, nil
	}
	models, err := c.modelChoice().Resolve()
	if err != nil {
		return exitUsage, err
	}
	return exitOK, termview.Models(std.out, models)
}

// modelChoice is what the settings say of the models.
func (c *config) modelChoice() providers.Choice {
	file := "config file"
	if c.set != nil && c.set.File() != "" {
		file = "config file " + c.set.File()
	}
	return providers.Choice{Provider: c.Provider, Model: c.Model, Names: c.Models, File: c.ModelTable,
		FileName: file, ContextWindow: c.ContextWindow}
}
