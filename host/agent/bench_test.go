package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
)

// BenchmarkStep measures the loop's own cost per step: one op is a turn of
// 10 steps (9 that call tools, then an answer) against the script provider,
// no-op in-process tools and the in-memory session ("mem") or the real
// session log on disk ("log": write(2) per event, one fsync per turn).
// ns/step is the figure to watch; the budget is 1 ms.
func BenchmarkStep(b *testing.B) {
	const steps = 10
	for _, bc := range []struct {
		name  string
		calls []string
		safe  bool
		real  bool
	}{
		{"mem/1call", []string{"c1:noop"}, false, false},
		{"mem/4parallel", []string{"c1:noop", "c2:noop", "c3:noop", "c4:noop"}, true, false},
		{"log/1call", []string{"c1:noop"}, false, true},
		{"log/4parallel", []string{"c1:noop", "c2:noop", "c3:noop", "c4:noop"}, true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			text := strings.Repeat(toolLine("Working on it, step by step.", bc.calls...)+"\n", steps-1) +
				`{"text":"Done: everything is in place.","usage":{"input":1000,"output":20}}`
			tb := &fakeToolbox{tools: []Tool{mkTool("noop", bc.safe)}, call: func(context.Context, Call) Result {
				return Result{Content: "ok"}
			}}
			prompt := event.Text("do the thing")
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer() // loading the script is not the loop's cost
				model, err := script.Load(strings.NewReader(text))
				if err != nil {
					b.Fatal(err)
				}
				var s SessionLog
				if bc.real {
					_, rs := realSession(b)
					s = rs
				} else {
					ms := newMemSession()
					ms.drop = true
					s = ms
				}
				b.StartTimer()
				l := &Loop{Model: model, ModelName: "bench", Tools: tb, System: "system prompt"}
				if out := l.Run(ctx, s, prompt, nil); out.Reason != event.ReasonCompleted {
					b.Fatalf("turn ended %s: %v", out.Reason, out.Err)
				}
				tb.calls = tb.calls[:0]
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
		})
	}
}
