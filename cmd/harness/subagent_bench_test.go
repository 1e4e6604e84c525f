//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
)

// BenchmarkSubagentCall measures a subagent tool call end to end in the
// installed harness (bin/harness, its plugins in bin/plugins/): the host
// calls the real subagent plugin, which asks the host over the broker to
// spawn a child (HostServices.SpawnSubagent); the host creates the child's
// session (its log file, fsynced), runs its turn with a script model that
// answers at once, closes it and returns the answer through the plugin.
// One `harness run` makes b.N such calls in a row; the per-call time is
// the span from the parent's tool/call event to its tool/result in the
// log (p50-ms). It fails unless every call was served by the subagent
// plugin and ran its own child session.
func BenchmarkSubagentCall(b *testing.B) {
	bin := installedHarness(b)
	var script strings.Builder
	for i := range b.N {
		fmt.Fprintf(&script, `{"toolCalls":[{"id":"sa%d","name":"subagent","args":{"description":"answer %d","prompt":"Answer at once."}}]}`+"\n", i, i)
		fmt.Fprintf(&script, `{"text":"answer %d","usage":{"input":10,"output":2}}`+"\n", i)
	}
	script.WriteString(`{"text":"Done."}` + "\n")
	path := filepath.Join(b.TempDir(), "script.jsonl")
	if err := os.WriteFile(path, []byte(script.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	state := b.TempDir()
	cmd := exec.Command(bin, "run", "--provider", "script", "--script", path, "--max-steps", fmt.Sprint(b.N+1), "delegate")
	cmd.Env = installedEnv(state)
	cmd.Dir = b.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	b.ResetTimer()
	if err := cmd.Run(); err != nil {
		b.Fatalf("harness run: %v\nstderr:\n%s", err, stderr.String())
	}
	b.StopTimer()

	evs, _ := logtest.ReadLog(b, state)
	began := map[string]time.Time{}
	var spans []time.Duration
	for _, e := range evs {
		d, _ := e["data"].(map[string]any)
		if e["type"] != "tool/call" && e["type"] != "tool/result" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(e["time"]))
		if err != nil {
			b.Fatalf("event time %v: %v", e["time"], err)
		}
		id := fmt.Sprint(d["callId"])
		switch e["type"] {
		case "tool/call":
			if p, _ := d["plugin"].(map[string]any); d["name"] != "subagent" || p["name"] != "subagent" {
				b.Fatalf("tool/call %v was not served by the subagent plugin", d)
			}
			began[id] = at
		case "tool/result":
			if d["isError"] == true || !strings.Contains(fmt.Sprint(d["content"]), "[subagent session ") {
				b.Fatalf("tool/result %v is not a child's answer", d)
			}
			spans = append(spans, at.Sub(began[id]))
		}
	}
	children, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl"))
	if len(spans) != b.N || len(children) != b.N+1 {
		b.Fatalf("%d subagent calls and %d child sessions logged, want %d of each", len(spans), len(children)-1, b.N)
	}
	slices.Sort(spans)
	b.ReportMetric(float64(spans[len(spans)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(spans[len(spans)*9/10].Microseconds())/1000, "p90-ms")
}
