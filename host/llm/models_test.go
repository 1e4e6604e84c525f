package llm

import (
	"math"
	"testing"
)

func TestPricesCost(t *testing.T) {
	t.Parallel()
	p := Prices{Input: 0.28, CachedInput: 0.028, Output: 0.42}
	got := p.Cost(Usage{InputTokens: 1_000_000, CacheReadTokens: 2_000_000, OutputTokens: 500_000})
	if want := 0.28 + 0.056 + 0.21; math.Abs(got-want) > 1e-9 {
		t.Fatalf("cost %v, want %v", got, want)
	}
	// Cache writes at their own price, as input when it has none.
	if got := (Prices{Input: 2, CacheWrite: 2.5}).Cost(Usage{CacheWriteTokens: 1_000_000}); got != 2.5 {
		t.Fatalf("cache write cost %v, want 2.5", got)
	}
	if got := (Prices{Input: 2}).Cost(Usage{CacheWriteTokens: 1_000_000}); got != 2 {
		t.Fatalf("cache write without a price cost %v, want the input price 2", got)
	}
	// No cached price: cached input costs as input.
	if got := (Prices{Input: 1}).Cost(Usage{CacheReadTokens: 1_000_000}); got != 1 {
		t.Fatalf("cached at the input price: %v, want 1", got)
	}
}

func TestBuiltinModels(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"deepseek-chat", "deepseek-reasoner"} {
		m, ok := FindModel(BuiltinModels(), "deepseek", name)
		if !ok || m.ContextWindow <= 0 || m.Prices == nil || m.Prices.Input <= 0 {
			t.Errorf("%s: %+v, %v: want a context window and prices", name, m, ok)
		}
	}
	if _, ok := FindModel(BuiltinModels(), "openai", "deepseek-chat"); ok {
		t.Error("a model is found under another provider")
	}
}

func TestEffort(t *testing.T) {
	t.Parallel()
	if e := (ModelInfo{ReasoningEfforts: []string{"low", "medium", "high"}}).Effort(); e != "medium" {
		t.Errorf("default effort %q, want medium", e)
	}
	if e := (ModelInfo{ReasoningEfforts: []string{"low", "high"}, DefaultEffort: "low"}).Effort(); e != "low" {
		t.Errorf("default effort %q, want low", e)
	}
}
