//go:build unix

package main

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkTrue is `true` through the plugin process, as the host calls
// it: Execute over gRPC, bash spawned in its own session, output read to
// EOF, result back. Budget: 5 ms p50.
//
// spaced leaves 20 ms between calls (timer stopped), as a model's answer
// does and more: the init of the next command (proc_linux.go's
// waitingInit) is ready when the call comes. back-to-back calls at once:
// each waits for the rest of the next init's start.
func BenchmarkTrue(b *testing.B) {
	b.Run("spaced", func(b *testing.B) { benchTrue(b, 20*time.Millisecond) })
	b.Run("back-to-back", func(b *testing.B) { benchTrue(b, 0) })
}

func benchTrue(b *testing.B, gap time.Duration, env ...string) {
	c, _ := launch(b, env...)
	f := fixture{c: c, cwd: b.TempDir()}
	req := f.req(b, call{args: map[string]any{"command": "true"}})
	var took []time.Duration
	for b.Loop() {
		if gap > 0 {
			b.StopTimer()
			time.Sleep(gap)
			b.StartTimer()
		}
		start := time.Now()
		res, err := c.Execute(b.Context(), req, nil)
		took = append(took, time.Since(start))
		if err != nil || res.Content != "(no output)" {
			b.Fatalf("%+v, %v", res, err)
		}
	}
	reportPercentiles(b, took)
}

func reportPercentiles(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	at := func(p float64) float64 {
		return float64(took[min(int(p*float64(len(took))), len(took)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

// BenchmarkOutput100MB streams 100 MB of output through the plugin
// process and reports its peak RSS (VmHWM). Budget: 64 MB.
func BenchmarkOutput100MB(b *testing.B) {
	c, _ := launch(b)
	f := fixture{c: c, cwd: b.TempDir()}
	req := f.req(b, call{args: map[string]any{"command": "head -c 100000000 /dev/zero | tr '\\0' a"}})
	b.SetBytes(100_000_000)
	for b.Loop() {
		res, err := c.Execute(b.Context(), req, nil)
		if err != nil || !strings.Contains(res.Content, "(100,000,000 bytes)") {
			b.Fatalf("%.300q, %v", res.Content, err)
		}
		_ = os.Remove(spillIn(b, res.Content))
	}
	b.ReportMetric(float64(peakRSS(b, c.PID()))/(1<<20), "peak-RSS-MB")
}

// TestPeakRSS: 100 MB of output, with live progress, leaves the plugin
// process under 64 MB of peak RSS.
func TestPeakRSS(t *testing.T) {
	t.Parallel()
	c, _ := launch(t)
	f := fixture{c: c, cwd: t.TempDir()}
	req := f.req(t, call{args: map[string]any{"command": "head -c 100000000 /dev/urandom | base64 -w 100"}})
	chunks := 0
	res, err := c.Execute(t.Context(), req, func(string) { chunks++ })
	if err != nil || !strings.Contains(res.Content, " characters cut; full output: ") {
		t.Fatalf("%.300q, %v", res.Content, err)
	}
	peak := peakRSS(t, c.PID())
	t.Logf("peak RSS %.1f MB after 135 MB of output, %d progress chunks", float64(peak)/(1<<20), chunks)
	if peak > 64<<20 {
		t.Errorf("peak RSS %d MB, want under 64 MB", peak>>20)
	}
}

// peakRSS reads VmHWM of process pid, in bytes.
func peakRSS(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("parse %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
