package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"

	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/termview"
)

func cmdSessions(_ context.Context, args []string, std stdio, e env) (int, error) {
	fs := newFlagSet("sessions", std.err, "harness sessions [flags]")
	c := bindConfig(fs, e)
	if code, done := c.parse(fs, args); done {
		return code, nil
	}
	dir, err := c.stateDir(e)
	if err != nil {
		return exitFailed, err
	}
	store := &session.Store{Dir: filepath.Join(dir, "sessions")}
	list, err := store.List()
	if err != nil {
		return exitFailed, err
	}
	if len(list) == 0 {
		fmt.Fprintf(std.err, "no sessions in %s yet: start one with harness run PROMPT, or try harness demo\n", store.Dir)
		return exitOK, nil
	}
	models, err := c.modelChoice().Resolve()
	if err != nil {
		return exitUsage, err
	}
	return exitOK, termview.Sessions(std.out, list, func(s session.Summary) string { return sessionTotal(s, models) })
}

// sessionTotal renders a session's tokens (in, cached among them, out) and
// cost, each turn priced at the model current when it ended ("" in the
// summary: the default, models[0]); "-" when no usage was reported.
func sessionTotal(s session.Summary, models []llm.ModelInfo) string {
	var total event.Usage
	cost, currency, priced := 0.0, "", len(models) > 0
	for name, u := range s.Usage {
		total = total.Add(u)
		i := slices.IndexFunc(models, func(m llm.ModelInfo) bool { return m.Name == name })
		if name == "" && len(models) > 0 {
			i = 0
		}
		if i < 0 || models[i].Prices == nil || currency != "" && models[i].Prices.CurrencyOrUSD() != currency {
			priced = false
			continue
		}
		currency = models[i].Prices.CurrencyOrUSD()
		cost += models[i].Prices.Cost(llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens})
	}
	if total.IsZero() {
		return "-"
	}
	out := fmt.Sprintf("%d in (%d cached) · %d out", total.InputTokens+total.CacheReadTokens, total.CacheReadTokens, total.OutputTokens)
	if priced && currency != "" {
		out += " · " + money(cost, currency)
	}
	return out
}
