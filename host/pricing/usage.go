package pricing

import (
	"slices"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
)

// Usage is the token usage of a session, with what it cost where the
// models' prices are known.
type Usage struct {
	// Used is the tokens in the context now: the input, cached input and
	// output of the last step that reported usage, or the estimate of the
	// compacted history (TokensAfter) when a context/compact came after it.
	Used int
	// Size is the context window of the session's current model; 0:
	// unknown.
	Size int
	// Total sums the usage of the steps counted.
	Total event.Usage
	// Cost sums what the steps counted cost, in Currency; Priced is false
	// when a step's model has no known prices (Cost then counts the
	// others).
	Cost     float64
	Currency string
	Priced   bool
}

// Of reads a session's events evs: Total and Cost count the steps from seq
// from on (0: the whole session), each priced at modelAt of the session
// options (config/option switches by id, the host's records left out) as
// of that step; Used, and Size from the model as of the last event, are
// as of now.
func Of(evs []event.Event, from int64, modelAt func(opts map[string]string) llm.ModelInfo) Usage {
	u := Usage{Priced: true}
	opts := map[string]string{}
	for _, ev := range evs {
		switch ev.Type {
		case event.TypeConfigOption:
			if p, err := ev.Decode(); err == nil {
				if o := p.(event.ConfigOption); o.By != event.ByHost {
					opts[o.ID] = o.Value
				}
			}
		case event.TypeCompact:
			// the history the model sees now is the compacted one
			if p, err := ev.Decode(); err == nil {
				if c := p.(event.Compact); c.TokensAfter > 0 {
					u.Used = c.TokensAfter
				}
			}
		case event.TypeAssistantMessage:
			p, err := ev.Decode()
			if err != nil {
				continue
			}
			am := p.(event.AssistantMessage)
			if am.Usage == nil {
				continue
			}
			step := *am.Usage
			u.Used = step.InputTokens + step.CacheReadTokens + step.CacheWriteTokens + step.OutputTokens
			if ev.Seq < from {
				continue
			}
			u.Total = u.Total.Add(step)
			m := modelAt(opts)
			if m.Prices == nil {
				u.Priced = false
				continue
			}
			u.Currency = m.Prices.CurrencyOrUSD()
			u.Cost += m.Prices.Cost(llm.Usage{InputTokens: step.InputTokens, OutputTokens: step.OutputTokens, CacheReadTokens: step.CacheReadTokens, CacheWriteTokens: step.CacheWriteTokens})
		}
	}
	m := modelAt(opts)
	u.Size = m.ContextWindow
	if u.Total.IsZero() && m.Prices == nil {
		u.Priced = false
	}
	return u
}

// Summary is a listed session's usage: its tokens summed over its
// turns and their cost, each turn priced at the model its log says served
// it, whatever the host runs now. A model's prices are those of models
// (the configured ones), else the built-in table's; a switch logged
// without a provider is found by name. Priced is false when a turn's model
// is not named by the log (an old log), has no known prices, or is priced
// in another currency: such a session is priced as unknown, not guessed.
func Summary(s session.Summary, models []llm.ModelInfo) Usage {
	u := Usage{Priced: true}
	for ref, step := range s.Usage {
		u.Total = u.Total.Add(step)
		m, ok := findModel(ref, models)
		if !ok || m.Prices == nil || u.Currency != "" && m.Prices.CurrencyOrUSD() != u.Currency {
			u.Priced = false
			continue
		}
		u.Currency = m.Prices.CurrencyOrUSD()
		u.Cost += m.Prices.Cost(llm.Usage{InputTokens: step.InputTokens, OutputTokens: step.OutputTokens, CacheReadTokens: step.CacheReadTokens, CacheWriteTokens: step.CacheWriteTokens})
	}
	if len(s.Usage) == 0 {
		u.Priced = false
	}
	return u
}

// findModel finds the model a log names among models, then in the
// built-in table.
func findModel(ref session.Model, models []llm.ModelInfo) (llm.ModelInfo, bool) {
	if ref.Name == "" {
		return llm.ModelInfo{}, false
	}
	for _, in := range [][]llm.ModelInfo{models, llm.BuiltinModels()} {
		i := slices.IndexFunc(in, func(m llm.ModelInfo) bool {
			return m.Name == ref.Name && (ref.Provider == "" || m.Provider == ref.Provider)
		})
		if i >= 0 {
			return in[i], true
		}
	}
	return llm.ModelInfo{}, false
}
