package toolbox_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
)

// BenchmarkTodoCall measures a todo_write round trip through the real todo
// plugin process: argument check, Execute over gRPC, event check. It
// reports the median besides the mean (budget: p50 ≤ 250 µs).
func BenchmarkTodoCall(b *testing.B) {
	cfg := testConfig(b, pluginDir(b, "todo"))
	tb := open(b, cfg)
	ctx := context.Background()
	c := toolbox.Call{SessionID: "s1", Caller: pluginapi.CallerAgent, Turn: 1, CallID: "c1", Name: "todo_write", Args: todoArgs, Cwd: "/src"}
	var took []time.Duration
	for b.Loop() {
		begin := time.Now()
		res := tb.Call(ctx, c, nil)
		took = append(took, time.Since(begin))
		if res.IsError || len(res.Events) != 1 {
			b.Fatalf("todo_write = %+v", res)
		}
	}
	reportPercentiles(b, took)
}

// BenchmarkOpen measures Open with one plugin (the real todo): discover,
// snapshot, launch, Describe, Configure, register; Close is not timed.
// Budget: ≤ 15 ms per plugin start.
//
// warm is every Open but the first: the hash index knows the file, the
// cached copy exists. rehash forgets the index before each Open, so the
// 19 MB binary is read and hashed again (a first start, or a changed file).
func BenchmarkOpen(b *testing.B) {
	for _, bc := range []struct {
		name   string
		forget bool
	}{{"warm", false}, {"rehash", true}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := testConfig(b, pluginDir(b, "todo"))
			ctx := context.Background()
			open(b, cfg) // fills the cache
			if !bc.forget {
				time.Sleep(2 * time.Second) // the file's times must be older than the index's racy window
				open(b, cfg)                // records the hash
			}
			var took []time.Duration
			for b.Loop() {
				if bc.forget {
					b.StopTimer()
					os.Remove(filepath.Join(cfg.CacheDir, "index.json"))
					b.StartTimer()
				}
				begin := time.Now()
				tb, err := toolbox.Open(ctx, cfg)
				took = append(took, time.Since(begin))
				if err != nil || len(tb.Tools()) == 0 {
					b.Fatalf("Open: %v, %v", err, tb.Failures())
				}
				b.StopTimer()
				if err := tb.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			reportPercentiles(b, took)
		})
	}
}

func reportPercentiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/1e3, "p50-µs")
	b.ReportMetric(float64(took[len(took)*9/10])/1e3, "p90-µs")
}
