package termview

import (
	"fmt"

	"github.com/harness-dev/harness/host/pricing"
)

// UsageLine renders the usage of a turn on one line: tokens in (cached
// among them), out, the cost when the model's prices are known and the
// context against the window; "" when the provider reported none.
func UsageLine(u pricing.Usage) string {
	line := UsageTotal(u)
	if line == "-" {
		return ""
	}
	if u.Size > 0 {
		line += fmt.Sprintf(" · context %d/%d", u.Used, u.Size)
	}
	return "tokens: " + line
}

// UsageTotal renders a session's tokens (in, cached among them, out) and
// cost for `harness sessions`; "-" when no usage was reported.
func UsageTotal(u pricing.Usage) string {
	t := u.Total
	if t.IsZero() {
		return "-"
	}
	out := fmt.Sprintf("%d in (%d cached) · %d out", t.InputTokens+t.CacheReadTokens, t.CacheReadTokens, t.OutputTokens)
	if u.Priced && u.Currency != "" {
		out += " · " + money(u.Cost, u.Currency)
	}
	return out
}

// money renders an amount with enough digits for fractions of a cent.
func money(amount float64, currency string) string {
	if currency == "USD" {
		return fmt.Sprintf("$%.4f", amount)
	}
	return fmt.Sprintf("%.4f %s", amount, currency)
}
