package pluginhost_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// reportP50 reports the median of the timed samples.
func reportP50(b *testing.B, samples []time.Duration, unit string, scale time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2])/float64(scale), unit)
}

// BenchmarkLaunch times a plugin start as the toolbox does it: spawn,
// handshake, Describe (budget: 15 ms p50). Close is not timed.
func BenchmarkLaunch(b *testing.B) {
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		c, err := pluginhost.Launch(b.Context(), pluginhost.LaunchConfig{Path: bin("todo"), Name: "todo", Logger: hclog.NewNullLogger()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Describe(b.Context()); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(start))
		b.StopTimer()
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	reportP50(b, samples, "ms-p50", time.Millisecond)
}

// BenchmarkTodoExecute times one todo_write round trip through the real
// plugin process (budget: 250 µs p50).
func BenchmarkTodoExecute(b *testing.B) {
	c, err := pluginhost.Launch(b.Context(), pluginhost.LaunchConfig{Path: bin("todo"), Name: "todo"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Configure(b.Context(), pluginapi.ConfigureRequest{Host: &plugintest.FakeHost{}}); err != nil {
		b.Fatal(err)
	}
	req := pluginapi.CallRequest{
		Tool:      "todo_write",
		Args:      json.RawMessage(`{"todos":[{"content":"read the code","status":"completed"},{"content":"write the test","status":"in_progress"},{"content":"fix the bug","status":"pending"}]}`),
		Caller:    pluginapi.CallerAgent,
		SessionID: "s1",
		Turn:      1,
		CallID:    "c1",
	}
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := c.Execute(b.Context(), req, nil)
		if err != nil || res.IsError {
			b.Fatal(res, err)
		}
		samples = append(samples, time.Since(start))
	}
	reportP50(b, samples, "µs-p50", time.Microsecond)
}
