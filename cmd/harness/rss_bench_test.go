//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rssKB returns a process's VmRSS and its anonymous part (RssAnon) in kB.
func rssKB(pid int) (rss, anon int) {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmRSS:":
			rss = n
		case "RssAnon:":
			anon = n
		}
	}
	return rss, anon
}

// BenchmarkIdleRSS measures the memory of a harness process waiting on the
// model with its three plugins (todo, bash, subagent) started and idle: the
// sum of their RSS, and of the anonymous part (heap, stacks) alone — the
// rest is the binaries' read-only pages.
func BenchmarkIdleRSS(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "harness")
	if out, err := staticBuild("-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	script := filepath.Join(b.TempDir(), "hang.jsonl")
	if err := os.WriteFile(script, []byte(`{"text":"waiting","hang":true}`+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	var total, anon int
	for b.Loop() {
		cmd := exec.Command(bin, "run", "--provider", "script", "--script", script,
			"--state-dir", b.TempDir(), "--plugin-dir", testPlugins(b), "idle")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var kids []int
		for deadline := time.Now().Add(10 * time.Second); len(kids) < 3 && time.Now().Before(deadline); {
			kids = childPIDs(cmd.Process.Pid)
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond) // settle
		total, anon = 0, 0
		for _, pid := range append([]int{cmd.Process.Pid}, kids...) {
			r, a := rssKB(pid)
			total, anon = total+r, anon+a
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	b.ReportMetric(float64(total)/1024, "MB-rss")
	b.ReportMetric(float64(anon)/1024, "MB-anon")
}
