package pricing_test

import (
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/pricing"
	"github.com/harness-dev/harness/host/session"
)

// TestSummaryUsage: a listed session is priced by the models its log says
// it used, whatever the host is configured with now; a log that does not
// say is priced as unknown.
func TestSummaryUsage(t *testing.T) {
	t.Parallel()
	mtok := event.Usage{InputTokens: 1_000_000}
	deepseek := session.Model{Provider: "deepseek", Name: "deepseek-chat"}
	deepseekIn, _ := llm.FindModel(llm.BuiltinModels(), "deepseek", "deepseek-chat")
	configured := []llm.ModelInfo{{Provider: "openai", Name: "mine", Prices: &llm.Prices{Input: 2}}, {Provider: "script", Name: "script"}}
	for _, tc := range []struct {
		name   string
		usage  map[session.Model]event.Usage
		priced bool
		cost   float64
	}{
		{"script session, deepseek configured", map[session.Model]event.Usage{{Provider: "script", Name: "script"}: mtok}, false, 0},
		{"deepseek session, script configured: the built-in prices", map[session.Model]event.Usage{deepseek: mtok}, true, deepseekIn.Prices.Input},
		{"a configured model's prices", map[session.Model]event.Usage{{Provider: "openai", Name: "mine"}: mtok}, true, 2},
		{"a switch without provider, by name", map[session.Model]event.Usage{{Name: "mine"}: mtok}, true, 2},
		{"old log: no model named", map[session.Model]event.Usage{{}: mtok}, false, 0},
		{"old log, then a switch", map[session.Model]event.Usage{{}: mtok, {Name: "mine"}: mtok}, false, 2},
		{"unknown model", map[session.Model]event.Usage{{Provider: "openai", Name: "other"}: mtok}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u := pricing.Summary(session.Summary{Usage: tc.usage}, configured)
			if u.Priced != tc.priced || u.Cost != tc.cost {
				t.Errorf("priced %v, cost %v; want %v, %v", u.Priced, u.Cost, tc.priced, tc.cost)
			}
		})
	}
}
