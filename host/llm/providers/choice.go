package providers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/llmproc"
	"github.com/harness-dev/harness/host/llm/openai"
)

// Choice is what a user configured of the models: the provider and
// its default model (--provider, --model), more model names of that
// provider (--models, comma-separated), the config file's [[models]]
// (File, read from FileName) and the context window of models no table
// knows (--context-window). Resolve turns it into the models a session may
// use (engine.Config.Models).
type Choice struct {
	Provider      string
	Model         string
	Names         string
	File          []Entry
	FileName      string
	ContextWindow int
}

// Entry is one [[models]] table of the config file. Prices are in
// Currency (default USD) per million tokens.
type Entry struct {
	Provider         string   `toml:"provider"`
	Name             string   `toml:"name"`
	ContextWindow    int      `toml:"context-window"`
	InputPrice       *float64 `toml:"input-price"`
	CachedInputPrice *float64 `toml:"cached-input-price"`
	OutputPrice      *float64 `toml:"output-price"`
	Currency         string   `toml:"currency"`
	ReasoningEfforts []string `toml:"reasoning-efforts"`
	DefaultEffort    string   `toml:"default-reasoning-effort"`
	// Images says the model takes images (unset: what the built-in table
	// says, else no).
	Images *bool `toml:"images"`
}

// DefaultModel is the model a session starts with: --model, else the
// first of --models, else the provider's own default.
func (c Choice) DefaultModel() string {
	if c.Model != "" {
		return c.Model
	}
	if names := c.names(); len(names) > 0 {
		return names[0]
	}
	switch c.Provider {
	case "deepseek":
		return openai.DeepSeekModel
	case "script":
		return "script"
	case "anthropic":
		return llmproc.AnthropicModel
	case "openai-responses":
		return llmproc.ResponsesModel
	}
	return ""
}

// names are the names of --models.
func (c Choice) names() []string {
	var names []string
	for _, n := range strings.Split(c.Names, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// Resolve returns the models a session may switch to, the default first:
// the default, the names of --models (the configured provider's), the
// config file's [[models]]; with neither, the built-in table's models of
// the provider. Each has what the file, else the built-in table, knows of
// it; --context-window fills in an unknown window.
func (c Choice) Resolve() ([]llm.ModelInfo, error) {
	table := llm.BuiltinModels()
	var fromFile []llm.ModelInfo
	for i, m := range c.File {
		where := fmt.Sprintf("%s: models[%d]", cmp.Or(c.FileName, "config file"), i)
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
	add(lookup(c.Provider, c.DefaultModel()))
	for _, n := range c.names() {
		add(lookup(c.Provider, n))
	}
	for _, m := range fromFile {
		add(m)
	}
	if len(c.names()) == 0 && len(fromFile) == 0 {
		for _, m := range table {
			if m.Provider == c.Provider {
				add(m)
			}
		}
	}
	return out, nil
}
