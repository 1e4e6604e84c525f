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
	// cache (Input when 0), CacheWrite input written to the provider's
	// cache (Anthropic's 5-minute cache writes; Input when 0), Output
	// output (reasoning included).
	Input, CachedInput, CacheWrite, Output float64
}

// Cost returns what u cost at p, in p's currency.
func (p Prices) Cost(u Usage) float64 {
	cached := p.CachedInput
	if cached == 0 {
		cached = p.Input
	}
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	return (float64(u.InputTokens)*p.Input + float64(u.CacheReadTokens)*cached +
		float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*p.Output) / 1e6
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

// claudeSonnet55Prices are Anthropic's published prices for Claude Sonnet
// 5.5 (claude-sonnet-5-5, the anthropic provider's default model), from
// its model page https://platform.claude.com/docs/en/models/sonnet-5-5/overview
// (Pricing): $2 per million input tokens, $2.50 for 5-minute cache
// writes (the only kind the provider asks for), $0.20 for cache reads,
// $10 output. Its window there: 1M tokens, input text and images.
// Third-party price trackers report a cut of cache reads to $0.10 from
// 2026-10-07 that the model page did not show when this was written; the
// page wins until the cut is on it.
var claudeSonnet55Prices = Prices{Currency: "USD", Input: 2, CachedInput: 0.20, CacheWrite: 2.50, Output: 10}

// BuiltinModels is harness's own model table: DeepSeek's models with
// their published context windows (128K) and prices; the default models
// of the anthropic and openai-responses providers. The caller owns the
// slice returned.
//
// gpt-5.5 (the openai-responses default) has its window (1,050,000
// tokens) and image input as listed by several gateways quoting OpenAI's
// model page, and no prices: OpenAI's own pricing page
// (https://developers.openai.com/api/docs/pricing) could not be checked
// when this was written, and its price doubles past 272K input tokens,
// which one flat price cannot say. A [[models]] entry with prices covers it.
func BuiltinModels() []ModelInfo {
	p := deepSeekPrices
	c := claudeSonnet55Prices
	return []ModelInfo{
		{Provider: "deepseek", Name: "deepseek-chat", ContextWindow: 128_000, Prices: &p},
		{Provider: "deepseek", Name: "deepseek-reasoner", ContextWindow: 128_000, Prices: &p},
		{Provider: "anthropic", Name: "claude-sonnet-5-5", ContextWindow: 1_000_000, Prices: &c, Images: true},
		{Provider: "openai-responses", Name: "gpt-5.5", ContextWindow: 1_050_000, Images: true},
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
