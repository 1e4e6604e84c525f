package llm

import "slices"

// ModelInfo describes a model a user can choose: where it is served, how
// much context it takes, what it costs and which reasoning efforts it
// accepts. harness has a built-in table ([BuiltinModels]); the config
// file and the flags add to it.
type ModelInfo struct {
	// Provider names the provider that serves the model (deepseek, openai,
	// script, …); Name is the model name requested.
	Provider string
	Name     string
	// ContextWindow is the model's context window in tokens; 0: unknown.
	ContextWindow int
	// Prices are per million tokens; nil when unknown.
	Prices *Prices
	// ReasoningEfforts are the reasoning effort levels the model accepts,
	// in order (e.g. low, medium, high); none: the model has no choice.
	// The first is the default unless DefaultEffort says otherwise.
	ReasoningEfforts []string
	DefaultEffort    string
	// Images is true when the model takes images in user messages
	// (Message.Images); a prompt with images for a model without it is
	// refused before any request.
	Images bool
}

// Prices are what a model costs, per million tokens.
type Prices struct {
	// Currency is an ISO 4217 code; "" means USD.
	Currency string
	// Input is uncached input, CachedInput input read from the provider's
	// cache (Input when 0), Output output (reasoning included).
	Input, CachedInput, Output float64
}

// Cost returns what u cost at p, in p's currency.
func (p Prices) Cost(u Usage) float64 {
	cached := p.CachedInput
	if cached == 0 {
		cached = p.Input
	}
	return (float64(u.InputTokens)*p.Input + float64(u.CacheReadTokens)*cached + float64(u.OutputTokens)*p.Output) / 1e6
}

// CurrencyOrUSD is p's currency, USD when unset.
func (p Prices) CurrencyOrUSD() string {
	if p.Currency == "" {
		return "USD"
	}
	return p.Currency
}

// Effort returns the reasoning effort to use when the user chose none:
// DefaultEffort, else the middle level, else "".
func (m ModelInfo) Effort() string {
	if m.DefaultEffort != "" {
		return m.DefaultEffort
	}
	if len(m.ReasoningEfforts) == 0 {
		return ""
	}
	return m.ReasoningEfforts[len(m.ReasoningEfforts)/2]
}

// deepSeekPrices are DeepSeek's published API prices (V3.2, from
// 2025-09-29; https://api-docs.deepseek.com/quick_start/pricing), the same
// for both models: $0.28 per million input tokens, $0.028 on a cache hit,
// $0.42 output.
var deepSeekPrices = Prices{Currency: "USD", Input: 0.28, CachedInput: 0.028, Output: 0.42}

// BuiltinModels is harness's own model table: DeepSeek's models with
// their published context windows (128K) and prices. The caller owns the
// slice returned.
func BuiltinModels() []ModelInfo {
	p := deepSeekPrices
	return []ModelInfo{
		{Provider: "deepseek", Name: "deepseek-chat", ContextWindow: 128_000, Prices: &p},
		{Provider: "deepseek", Name: "deepseek-reasoner", ContextWindow: 128_000, Prices: &p},
	}
}

// FindModel returns the model of table named name served by provider.
func FindModel(table []ModelInfo, provider, name string) (ModelInfo, bool) {
	i := slices.IndexFunc(table, func(m ModelInfo) bool { return m.Provider == provider && m.Name == name })
	if i < 0 {
		return ModelInfo{}, false
	}
	return table[i], true
}
