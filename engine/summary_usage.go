package engine

import (
	"slices"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
)

// SummaryUsage is a listed session's usage: its tokens summed over its
// turns and their cost, each turn priced at the model its log says served
// it, whatever the host runs now. A model's prices are those of models
// (the configured ones), else the built-in table's; a switch logged
// without a provider is found by name. Priced is false when a turn's model
// is not named by the log (an old log), has no known prices, or is priced
// in another currency: such a session is priced as unknown, not guessed.
func SummaryUsage(s session.Summary, models []llm.ModelInfo) Usage {
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
