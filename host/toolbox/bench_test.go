package toolbox_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/tool"
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
	c := tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), Turn: 1, CallID: "c1", Name: "todo_write", Args: todoArgs, Cwd: "/src"}
	var took []time.Duration
	for b.Loop() {
		begin := time.Now()
		res := tb.Call(ctx, c)
		took = append(took, time.Since(begin))
		if res.IsError || len(res.Events) != 1 {
			b.Fatalf("todo_write = %+v", res)
		}
	}
	reportPercentiles(b, took)
}

// BenchmarkTodoPreviewCall measures a call the way the agent loop makes
// it: Preview, then Call. todo_write declares no preview (protocol minor
// 5), so the preview costs no RPC: it is the declared title alone.
func BenchmarkTodoPreviewCall(b *testing.B) {
	cfg := testConfig(b, pluginDir(b, "todo"))
	tb := open(b, cfg)
	ctx := context.Background()
	c := tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), Turn: 1, CallID: "c1", Name: "todo_write", Args: todoArgs, Cwd: "/src"}
	var took []time.Duration
	for b.Loop() {
		begin := time.Now()
		_ = tb.Preview(ctx, c)
		res := tb.Call(ctx, c)
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

// BenchmarkReload measures hot reload end to end, the way a developer
// meets it: a new binary is renamed into the watched plugin dir (as `go
// build -o` does), and the clock runs until the first call answered by the
// new binary (polling every millisecond), default debounce included
// (budget: p50 ≤ 300 ms). Each iteration installs new bytes (the v1 or v2
// build plus a counter appended, which the loader ignores), so every
// stage does its full work: hash, cache copy, start. It reports p50 and
// p90 of that latency, the median of each reload stage, and, for
// "under-load" (4 goroutines calling the plugin back to back throughout),
// the calls made and failed (want 0).
//
//	go test -run='^$' -bench=BenchmarkReload -benchtime=30x ./host/toolbox
func BenchmarkReload(b *testing.B) {
	for _, bc := range []struct {
		name    string
		callers int
	}{{"idle", 0}, {"under-load", 4}} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			install(b, "versioned-v1", dir, "versioned")
			cfg, rls := watchConfig(b, dir)
			cfg.Debounce = 0 // the default
			tb := open(b, cfg)
			checkVersion(b, tb, "v1")
			images := [][]byte{readPlugin(b, "versioned-v1"), readPlugin(b, "versioned-v2")}
			var stats *loadStats
			if bc.callers > 0 {
				stats = load(tb, bc.callers)
			}
			var took []time.Duration
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				img := append(slices.Clip(images[i%2]), fmt.Sprintf("\nreload %d\n", i)...)
				sum := fmt.Sprintf("%x", sha256.Sum256(img))
				tmp := filepath.Join(dir, ".versioned.new")
				if err := os.WriteFile(tmp, img, 0o755); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				begin := time.Now()
				if err := os.Rename(tmp, filepath.Join(dir, "versioned")); err != nil {
					b.Fatal(err)
				}
				for {
					res := call(tb, "version", `{}`)
					if !res.IsError && res.Plugin.SHA256 == sum {
						break
					}
					if time.Since(begin) > 10*time.Second {
						b.Fatalf("reload %d: not serving after 10s: %+v", i, res)
					}
					time.Sleep(time.Millisecond)
				}
				took = append(took, time.Since(begin))
				b.StopTimer()
				if r := rls.waitCount(b, i); r.Err != "" {
					b.Fatalf("reload %d failed: %+v", i, r)
				}
				b.StartTimer()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(took[len(took)*9/10])/1e6, "p90-ms")
			for _, stage := range allStages {
				var ds []time.Duration
				for _, r := range rls.all() {
					ds = append(ds, r.Elapsed(stage))
				}
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2])/1e6, stage+"-ms")
			}
			if stats != nil {
				calls, failed, _ := stats.stop()
				b.ReportMetric(float64(calls), "calls")
				b.ReportMetric(float64(len(failed)), "failed-calls")
				if len(failed) > 0 {
					b.Errorf("%d of %d calls failed; first: %+v", len(failed), calls, failed[0])
				}
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
