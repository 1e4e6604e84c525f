package termview

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/harness-dev/harness/host/llm"
)

// Models writes the table of `harness models`: each model, the first
// marked the default, with its provider, context window, prices per
// million tokens (input / cached input / output) and reasoning efforts;
// "?" for what is unknown.
func Models(w io.Writer, models []llm.ModelInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	io.WriteString(tw, "MODEL\tPROVIDER\tCONTEXT\tPRICE IN/CACHED/OUT PER 1M\tREASONING EFFORT\n")
	for i, m := range models {
		name := cell(m.Name)
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
		efforts := cell(strings.Join(m.ReasoningEfforts, " "))
		if efforts == "" {
			efforts = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, cell(m.Provider), window, cell(price), efforts)
	}
	return tw.Flush()
}

// cmpPrice is the cached-input price, the input price when none is known.
func cmpPrice(cached, input float64) float64 {
	if cached == 0 {
		return input
	}
	return cached
}
