package engine

import (
	"slices"

	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/session"
)

// SummaryUsage is a listed session's usage: its tokens summed over its
// turns and their cost, each turn priced at the model current when it
// ended ("" in the summary: the default, models[0]). Priced is false when
// a turn's model has no known prices or another currency.
func SummaryUsage(s session.Summary, models []llm.ModelInfo) Usage {
	var u Usage
	u.Priced = len(models) > 0
	for name, step := range s.Usage {
		u.Total = u.Total.Add(step)
		i := slices.IndexFunc(models, func(m llm.ModelInfo) bool { return m.Name == name })
		if name == "" && len(models) > 0 {
			i = 0
		}
		if i < 0 || models[i].Prices == nil || u.Currency != "" && models[i].Prices.CurrencyOrUSD() != u.Currency {
			u.Priced = false
			continue
		}
		u.Currency = models[i].Prices.CurrencyOrUSD()
		u.Cost += models[i].Prices.Cost(llm.Usage{InputTokens: step.InputTokens, OutputTokens: step.OutputTokens, CacheReadTokens: step.CacheReadTokens, CacheWriteTokens: step.CacheWriteTokens})
	}
	return u
}
