package toolbox_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// lazyConfig is testConfig with plugins started on first use; cache is the
// cache dir, shared between the toolboxes of one test.
func lazyConfig(t testing.TB, cache string, idle time.Duration, dirs ...string) toolbox.Config {
	t.Helper()
	cfg := testConfig(t, dirs...)
	cfg.CacheDir = cache
	cfg.StartOnUse = true
	cfg.IdleTimeout = idle
	return cfg
}

func newLogger(w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: w, Level: hclog.Debug})
}

// openClose opens a toolbox with cfg and closes it: the descriptions are
// then cached.
func openClose(t *testing.T, cfg toolbox.Config) {
	t.Helper()
	tb, err := toolbox.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestStartOnFirstUse(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "todo", "versioned-v1")
	cache := filepath.Join(t.TempDir(), "cache")
	todoExe := filepath.Join(cache, sha256File(t, filepath.Join(dir, "todo")))
	versionedExe := filepath.Join(cache, sha256File(t, filepath.Join(dir, "versioned-v1")))

	// Cold: each plugin is started once to be described, then stopped.
	cfg := lazyConfig(t, cache, 0, dir)
	tb := open(t, cfg)
	for _, exe := range []string{todoExe, versionedExe} {
		waitFor(t, "the describing start of "+filepath.Base(exe)[:8]+" to stop", func() bool { return len(runningFrom(exe)) == 0 })
		if _, err := os.Stat(exe + ".describe.json"); err != nil {
			t.Errorf("no cached description: %v", err)
		}
	}
	tb.Close()

	// Warm: no process starts at Open; the tools come from the cache.
	logs := &logBuffer{}
	cfg = lazyConfig(t, cache, 0, dir)
	cfg.Logger = newLogger(logs)
	tb = open(t, cfg)
	if got := strings.Count(logs.String(), "plugin described from the cache"); got != 2 {
		t.Errorf("%d plugins described from the cache, want 2; log:\n%s", got, logs)
	}
	if strings.Contains(logs.String(), "waiting for RPC address") {
		t.Errorf("a plugin was launched at Open with a warm cache; log:\n%s", logs)
	}
	for _, exe := range []string{todoExe, versionedExe} {
		if pids := runningFrom(exe); len(pids) != 0 {
			t.Errorf("%s runs (pids %v) before any call", filepath.Base(exe)[:8], pids)
		}
	}
	tl := toolNamed(t, tb, "todo_write")
	if tl.Plugin.PID != 0 || tl.Plugin.SHA256 != filepath.Base(todoExe) || tl.Plugin.Name != "todo" || tl.Spec.Parameters == nil {
		t.Errorf("todo_write before any call: %+v, want the cached binary's spec with PID 0", tl)
	}
	if pi := pluginInfo(t, tb, "todo"); pi.Status != toolbox.StatusNotStarted || pi.PID != 0 {
		t.Errorf("todo before any call: %+v, want not started", pi)
	}

	// Concurrent first calls start it once, and all succeed.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		pids = map[int]int{}
	)
	for range 8 {
		wg.Go(func() {
			r := call(tb, "todo_write", todoArgs)
			if r.IsError || r.Plugin == nil {
				t.Errorf("first call: %+v", r)
				return
			}
			mu.Lock()
			pids[r.Plugin.PID]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(pids) != 1 {
		t.Errorf("concurrent first calls were served by pids %v, want one process", pids)
	}
	if got := runningFrom(todoExe); len(got) != 1 {
		t.Errorf("todo processes after the first calls: %v, want one", got)
	}
	if pi := pluginInfo(t, tb, "todo"); pi.Status != toolbox.StatusRunning || pi.PID == 0 {
		t.Errorf("todo after a call: %+v, want running", pi)
	}
	if tl := toolNamed(t, tb, "todo_write"); tl.Plugin.PID == 0 {
		t.Errorf("todo_write lists no pid once started: %+v", tl.Plugin)
	}
	// The plugin whose tool was never called never started.
	if pids := runningFrom(versionedExe); len(pids) != 0 {
		t.Errorf("versioned runs (pids %v) though its tool was never called", pids)
	}
	if pi := pluginInfo(t, tb, "versioned"); pi.Status != toolbox.StatusNotStarted {
		t.Errorf("versioned: %+v, want not started", pi)
	}
}

func TestIdleStopThenTransparentRestart(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "versioned-v1")
	cache := filepath.Join(t.TempDir(), "cache")
	tb := open(t, lazyConfig(t, cache, 150*time.Millisecond, dir))
	r := call(tb, "version", `{}`)
	if r.IsError || r.Content != "v1" || r.Plugin.PID == 0 {
		t.Fatalf("first call: %+v", r)
	}
	first := r.Plugin.PID
	waitFor(t, "the idle plugin to stop", func() bool { return !alive(first) })
	if pi := pluginInfo(t, tb, "versioned"); pi.Status != toolbox.StatusStopped || pi.PID != 0 || pi.Err != "" {
		t.Errorf("after the idle stop: %+v, want stopped without error", pi)
	}
	if tl := toolNamed(t, tb, "version"); tl.Plugin.PID != 0 {
		t.Errorf("the tool list names pid %d after the idle stop", tl.Plugin.PID)
	}
	// The next call starts it again; an idle stop is not a crash.
	for i := range 3 {
		r = call(tb, "version", `{}`)
		if r.IsError || r.Content != "v1" || r.Plugin.PID == 0 || r.Plugin.PID == first {
			t.Fatalf("call %d after the idle stop: %+v", i, r)
		}
		prev := r.Plugin.PID
		waitFor(t, "the idle plugin to stop again", func() bool { return !alive(prev) })
	}
	if pi := pluginInfo(t, tb, "versioned"); pi.Status == toolbox.StatusDisabled {
		t.Errorf("idle stops counted as crashes: %+v", pi)
	}
}

func TestBusyPluginIsNotStopped(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "stateful", "slow")
	cache := filepath.Join(t.TempDir(), "cache")
	const idle = 100 * time.Millisecond
	tb := open(t, lazyConfig(t, cache, idle, dir))

	// A call in flight keeps its plugin.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result, 1)
	go func() {
		done <- tb.Call(ctx, tool.Call{SessionID: "s1", CallID: "c-sleep", Name: "sleep", Args: `{}`})
	}()
	waitFor(t, "slow to start", func() bool { return pluginInfo(t, tb, "slow").PID != 0 })
	slow := pluginInfo(t, tb, "slow").PID

	// State held for a session keeps its plugin.
	r := call(tb, "hold", `{"hold":true}`)
	if r.IsError || r.Plugin.PID == 0 {
		t.Fatalf("hold: %+v", r)
	}
	stateful := r.Plugin.PID
	time.Sleep(5 * idle)
	if !alive(slow) {
		t.Errorf("slow (pid %d) was stopped during a call", slow)
	}
	if !alive(stateful) {
		t.Errorf("stateful (pid %d) was stopped while it held session state", stateful)
	}
	cancel()
	<-done
	waitFor(t, "slow to stop once its call ended", func() bool { return !alive(slow) })

	// A step holding the plugin keeps it too.
	_, release := tb.HoldTools()
	time.Sleep(3 * idle)
	if !alive(stateful) {
		t.Errorf("stateful (pid %d) was stopped while a step held it", stateful)
	}
	release()
	time.Sleep(3 * idle)
	if !alive(stateful) {
		t.Errorf("stateful (pid %d) was stopped while it held session state", stateful)
	}

	// Once the session is closed, it stops.
	if err := tb.SessionClosed(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stateful to stop after its session closed", func() bool { return !alive(stateful) })

	// A result saying it holds nothing any more lets it stop as well.
	r = call(tb, "hold", `{"hold":true}`)
	again := r.Plugin.PID
	if r.IsError || again == 0 || again == stateful {
		t.Fatalf("hold after the idle stop: %+v", r)
	}
	time.Sleep(3 * idle)
	if !alive(again) {
		t.Fatalf("stateful (pid %d) was stopped while it held session state", again)
	}
	if r = call(tb, "hold", `{"hold":false}`); r.IsError {
		t.Fatalf("release: %+v", r)
	}
	waitFor(t, "stateful to stop once it holds nothing", func() bool { return !alive(again) })
}

func TestCachedDescription(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cache := filepath.Join(t.TempDir(), "cache")
	openClose(t, lazyConfig(t, cache, 0, dir))
	sum1 := sha256File(t, filepath.Join(dir, "versioned"))
	desc1 := filepath.Join(cache, sum1+".describe.json")
	if _, err := os.Stat(desc1); err != nil {
		t.Fatalf("no cached description: %v", err)
	}

	// A binary that changed while no harness ran is described again
	// before its tools are offered: never the stale description.
	install(t, "versioned-v2", dir, "versioned")
	sum2 := sha256File(t, filepath.Join(dir, "versioned"))
	tb := open(t, lazyConfig(t, cache, 0, dir))
	if pi := pluginInfo(t, tb, "versioned"); pi.Version != "v2" || pi.SHA256 != sum2 {
		t.Errorf("after the binary changed: %+v, want v2 (%s)", pi, sum2[:12])
	}
	if tl := toolNamed(t, tb, "version"); tl.Plugin.SHA256 != sum2 || tl.Plugin.Version != "v2" {
		t.Errorf("the tool list names %+v, want v2", tl.Plugin)
	}
	if r := call(tb, "version", `{}`); r.Content != "v2" {
		t.Errorf("call after the change: %+v", r)
	}
	tb.Close()

	// A damaged or forged cached description is ignored and rebuilt, never
	// trusted, never fatal.
	desc2 := filepath.Join(cache, sum2+".describe.json")
	good, err := os.ReadFile(desc2)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"garbage":   "{not json",
		"empty":     "",
		"forged":    strings.Replace(string(good), `"Version":"v2"`, `"Version":"v9"`, 1), // check sum no longer matches
		"other sum": strings.Replace(string(good), sum2, sum1, 1),
		"invalid":   `{"sha256":"` + sum2 + `","check":"x","description":{}}`,
	} {
		if name == "forged" && bad == string(good) {
			t.Fatalf("forged: the version is not where the test expects it in %s", good)
		}
		if err := os.WriteFile(desc2, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		logs := &logBuffer{}
		cfg := lazyConfig(t, cache, 0, dir)
		cfg.Logger = newLogger(logs)
		tb := open(t, cfg)
		if pi := pluginInfo(t, tb, "versioned"); pi.Version != "v2" || len(tb.Failures()) != 0 {
			t.Errorf("%s: %+v, failures %v", name, pi, tb.Failures())
		}
		if !strings.Contains(logs.String(), "cached plugin description ignored") {
			t.Errorf("%s: no warning in the log:\n%s", name, logs)
		}
		if r := call(tb, "version", `{}`); r.Content != "v2" {
			t.Errorf("%s: call: %+v", name, r)
		}
		tb.Close()
		if b, _ := os.ReadFile(desc2); string(b) != string(good) {
			t.Errorf("%s: the description was not rebuilt: %s", name, b)
		}
	}
}

// BenchmarkFirstCall measures the first call to the real todo plugin's
// tool when its plugin is not running (started on first use: launch,
// Describe, Configure, then the call) next to a call to the running
// process, in the same run; first-call-extra-p50 is the difference of the
// medians (budget: one plugin start, ≤ 15 ms). The process is stopped
// between first calls by a 1 ms idle time, untimed. keeper runs the plugin
// under host/keeper, as harness does (the keeper is this test binary run
// again); direct starts it as the host's own child, as before.
func BenchmarkFirstCall(b *testing.B) {
	for _, bc := range []struct {
		name string
		sup  pluginhost.Supervisor
	}{{"keeper", supervise}, {"direct", nil}} {
		b.Run(bc.name, func(b *testing.B) { benchmarkFirstCall(b, bc.sup) })
	}
}

func benchmarkFirstCall(b *testing.B, sup pluginhost.Supervisor) {
	cache := filepath.Join(b.TempDir(), "cache")
	cfg := lazyConfig(b, cache, time.Millisecond, pluginDir(b, "todo"))
	cfg.Supervisor = sup
	tb := open(b, cfg)
	ctx := context.Background()
	c := tool.Call{SessionID: "s1", Caller: string(pluginapi.CallerAgent), Turn: 1, CallID: "c1", Name: "todo_write", Args: todoArgs}
	var first, warm []time.Duration
	for b.Loop() {
		b.StopTimer()
		for pluginInfo(b, tb, "todo").PID != 0 {
			time.Sleep(time.Millisecond)
		}
		b.StartTimer()
		begin := time.Now()
		res := tb.Call(ctx, c)
		first = append(first, time.Since(begin))
		if res.IsError {
			b.Fatalf("first call: %+v", res)
		}
		// A warm call, on the process the first call started: holding it
		// keeps the 1 ms idle stop away meanwhile.
		b.StopTimer()
		_, release := tb.HoldTools()
		begin = time.Now()
		res = tb.Call(ctx, c)
		warm = append(warm, time.Since(begin))
		release()
		if res.IsError {
			b.Fatalf("warm call: %+v", res)
		}
		b.StartTimer()
	}
	slices.Sort(first)
	slices.Sort(warm)
	b.ReportMetric(float64(first[len(first)/2].Microseconds())/1000, "ms-first-p50")
	b.ReportMetric(float64(warm[len(warm)/2].Microseconds())/1000, "ms-warm-p50")
	b.ReportMetric(float64((first[len(first)/2]-warm[len(warm)/2]).Microseconds())/1000, "ms-first-call-extra-p50")
}

// TestStartEarly: a plugin that asks to run for as long as the host does
// (pluginapi.Plugin.StartEarly) runs once Open returns — described live on
// a cold cache, and from a warm cache too — and outlives many idle times,
// while a plugin beside it starts on first use and stops when idle.
func TestStartEarly(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "todo", "early")
	cache := filepath.Join(t.TempDir(), "cache")
	earlyExe := filepath.Join(cache, sha256File(t, filepath.Join(dir, "early")))
	todoExe := filepath.Join(cache, sha256File(t, filepath.Join(dir, "todo")))
	const idle = 100 * time.Millisecond
	for _, round := range []string{"cold cache", "warm cache"} {
		tb := open(t, lazyConfig(t, cache, idle, dir))
		if pids := runningFrom(earlyExe); len(pids) != 1 {
			tb.Close()
			t.Fatalf("%s: early runs as %v once Open returned, want one process", round, pids)
		}
		if pi := pluginInfo(t, tb, "early"); pi.Status != toolbox.StatusRunning || pi.PID == 0 {
			t.Errorf("%s: early: %+v, want running", round, pi)
		}
		if tl := toolNamed(t, tb, "ping"); tl.Plugin.PID == 0 {
			t.Errorf("%s: ping lists no pid: %+v", round, tl.Plugin)
		}
		first := runningFrom(earlyExe)[0]
		if r := call(tb, "ping", `{}`); r.IsError || r.Plugin == nil || r.Plugin.PID != first {
			t.Errorf("%s: ping: %+v, want pong from pid %d", round, r, first)
		}
		if r := call(tb, "todo_write", todoArgs); r.IsError {
			t.Errorf("%s: todo_write: %+v", round, r)
		}
		waitFor(t, "todo to stop when idle", func() bool { return len(runningFrom(todoExe)) == 0 })
		time.Sleep(5 * idle)
		if pids := runningFrom(earlyExe); !slices.Equal(pids, []int{first}) {
			t.Errorf("%s: early runs as %v after %v idle, want pid %d still", round, pids, 5*idle+idle, first)
		}
		tb.Close()
		waitFor(t, "early to stop with the toolbox", func() bool { return len(runningFrom(earlyExe)) == 0 })
	}
}
