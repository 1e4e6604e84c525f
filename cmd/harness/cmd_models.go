package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/openai"
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
		names, err := engine.ListRemoteModels(ctx, engine.Provider{Name: c.Provider, BaseURL: c.BaseURL, Getenv: e.get})
		if err != nil {
			return exitFailed, err
		}
		for _, n := range names {
			fmt.Fprintln(std.out, n)
		}
		if len(names) == 0 {
			fmt.Fprintln(std.err, "the server lists no models")
		}
		return exitOK, nil
	}
	models, err := c.models()
	if err != nil {
		return exitUsage, err
	}
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPROVIDER\tCONTEXT\tPRICE IN/CACHED/OUT PER 1M\tREASONING EFFORT")
	for i, m := range models {
		name := m.Name
		if i == 0 {
			name += " (default)"
		}
		window, price := "?", "?"
		if m.ContextWindow > 0 {
			window = strconv.Itoa(m.ContextWindow)
		}
		if p := m.Prices; p != nil {
			price = fmt.Sprintf("%s %g / %g / %g", p.CurrencyOrUSD(), p.Input, cmpPrice(p.CachedInput, p.Input), p.Output)
		}
		efforts := strings.Join(m.ReasoningEfforts, " ")
		if efforts == "" {
			efforts = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, m.Provider, window, price, efforts)
	}
	return exitOK, tw.Flush()
}

func cmpPrice(cached, input float64) float64 {
	if cached == 0 {
		return input
	}
	return cached
}

// defaultModel is the model a session starts with: --model, else the
// first of --models, else the provider's own default.
func (c *config) defaultModel() string {
	if c.Model != "" {
		return c.Model
	}
	if names := c.modelNames(); len(names) > 0 {
		return names[0]
	}
	switch c.Provider {
	case "deepseek":
		return openai.DeepSeekModel
	case "script":
		return "script"
	}
	return ""
}

// modelNames are the names of --models.
func (c *config) modelNames() []string {
	var names []string
	for _, n := range strings.Split(c.Models, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// models returns the models a session may switch to, the default first:
// the default, the names of --models (the configured provider's), the
// config file's [[models]]; with neither, the built-in table's models of
// the provider. Each has what the file, else the built-in table, knows of
// it; --context-window fills in an unknown window.
func (c *config) models() ([]llm.ModelInfo, error) {
	table := llm.BuiltinModels()
	var fromFile []llm.ModelInfo
	for i, m := range c.ModelTable {
		where := fmt.Sprintf("config file: models[%d]", i)
		if c.set != nil {
			where = fmt.Sprintf("config file %s: models[%d]", c.set.File(), i)
		}
		if m.Name == "" {
			return nil, fmt.Errorf("%s: no name", where)
		}
		info := llm.ModelInfo{Provider: m.Provider, Name: m.Name, ContextWindow: m.ContextWindow,
			ReasoningEfforts: m.ReasoningEfforts, DefaultEffort: m.DefaultEffort}
		if info.Provider == "" {
			info.Provider = c.Provider
		}
		if m.ContextWindow < 0 {
			return nil, fmt.Errorf("%s (%s): context-window must be a number of tokens", where, m.Name)
		}
		if m.DefaultEffort != "" && !slices.Contains(m.ReasoningEfforts, m.DefaultEffort) {
			return nil, fmt.Errorf("%s (%s): default-reasoning-effort %q is not one of reasoning-efforts", where, m.Name, m.DefaultEffort)
		}
		if m.InputPrice != nil || m.OutputPrice != nil || m.CachedInputPrice != nil {
			p := &llm.Prices{Currency: m.Currency}
			for _, f := range []struct {
				v   *float64
				dst *float64
			}{{m.InputPrice, &p.Input}, {m.CachedInputPrice, &p.CachedInput}, {m.OutputPrice, &p.Output}} {
				if f.v != nil {
					if *f.v < 0 {
						return nil, fmt.Errorf("%s (%s): prices must not be negative", where, m.Name)
					}
					*f.dst = *f.v
				}
			}
			info.Prices = p
		} else if known, ok := llm.FindModel(table, info.Provider, info.Name); ok {
			info.Prices = known.Prices
		}
		if info.ContextWindow == 0 {
			if known, ok := llm.FindModel(table, info.Provider, info.Name); ok {
				info.ContextWindow = known.ContextWindow
			}
		}
		if m.Images != nil {
			info.Images = *m.Images
		} else if known, ok := llm.FindModel(table, info.Provider, info.Name); ok {
			info.Images = known.Images
		}
		fromFile = append(fromFile, info)
	}
	lookup := func(provider, name string) llm.ModelInfo {
		if m, ok := llm.FindModel(fromFile, provider, name); ok {
			return m
		}
		if m, ok := llm.FindModel(table, provider, name); ok {
			return m
		}
		return llm.ModelInfo{Provider: provider, Name: name}
	}
	var out []llm.ModelInfo
	add := func(m llm.ModelInfo) {
		if m.Name == "" || slices.ContainsFunc(out, func(o llm.ModelInfo) bool { return o.Provider == m.Provider && o.Name == m.Name }) {
			return
		}
		if m.ContextWindow == 0 {
			m.ContextWindow = c.ContextWindow
		}
		out = append(out, m)
	}
	add(lookup(c.Provider, c.defaultModel()))
	for _, n := range c.modelNames() {
		add(lookup(c.Provider, n))
	}
	for _, m := range fromFile {
		add(m)
	}
	if len(c.modelNames()) == 0 && len(fromFile) == 0 {
		for _, m := range table {
			if m.Provider == c.Provider {
				add(m)
			}
		}
	}
	return out, nil
}

// usageLine renders the usage of a turn on one line: tokens in (cached
// among them), out, and the cost when the model's prices are known; ""
// when the provider reported none.
func usageLine(u engine.Usage) string {
	t := u.Total
	if t.IsZero() {
		return ""
	}
	line := fmt.Sprintf("tokens: %d in (%d cached) · %d out", t.InputTokens+t.CacheReadTokens, t.CacheReadTokens, t.OutputTokens)
	if u.Priced && u.Currency != "" {
		line += " · " + money(u.Cost, u.Currency)
	}
	if u.Size > 0 {
		line += fmt.Sprintf(" · context %d/%d", u.Used, u.Size)
	}
	return line
}

// money renders an amount with enough digits for fractions of a cent.
func money(amount float64, currency string) string {
	if currency == "USD" {
		return fmt.Sprintf("$%.4f", amount)
	}
	return fmt.Sprintf("%.4f %s", amount, currency)
}
