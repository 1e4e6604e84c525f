//go:build linux

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
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

// pluginSums maps the sha256 of each plugin of an installed harness (in
// plugins/ next to bin) to its name.
func pluginSums(tb testing.TB, bin string) map[string]string {
	tb.Helper()
	sums := map[string]string{}
	for _, name := range realPlugins {
		sum, err := fileSHA256(filepath.Join(filepath.Dir(bin), "plugins", name))
		if err != nil {
			tb.Fatal(err)
		}
		sums[sum] = name
	}
	return sums
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// procPlugin names the plugin the process pid runs, from its executable:
// the toolbox runs a plugin from its cache copy, named for its sha256.
func procPlugin(pid int, sums map[string]string) string {
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	if target, err := os.Readlink(exe); err == nil {
		if name, ok := sums[filepath.Base(target)]; ok {
			return name
		}
	}
	if sum, err := fileSHA256(exe); err == nil {
		if name, ok := sums[sum]; ok {
			return name
		}
	}
	target, _ := os.Readlink(exe)
	return fmt.Sprintf("pid %d (%s)", pid, target)
}

// pluginProcs waits up to 10 s for the host process pid to run exactly
// the real plugins (bash, subagent, todo), one each under its keeper, and
// returns their pids; it fails with what it found otherwise.
func pluginProcs(tb testing.TB, pid int, sums map[string]string) []int {
	tb.Helper()
	var kids []int
	var names []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		kids, names = pluginPIDs(pid), nil
		for _, k := range kids {
			names = append(names, procPlugin(k, sums))
		}
		slices.Sort(names)
		if slices.Equal(names, realPlugins) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(names, realPlugins) {
		tb.Fatalf("harness (pid %d) runs %d child processes %v, want exactly its plugins %v", pid, len(kids), names, realPlugins)
	}
	return kids
}

// stopHost ends a harness run waiting on the model as Ctrl-C does, so that
// it stops its plugins and leaves nothing behind; it kills it after 10 s.
func stopHost(tb testing.TB, cmd *exec.Cmd) {
	tb.Helper()
	cmd.Process.Signal(syscall.SIGINT)
	done := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer done.Stop()
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitCancelled {
			tb.Errorf("harness after Ctrl-C: %v, want exit %d", err, exitCancelled)
		}
	}
}

// treeRSS returns the summed VmRSS and RssAnon (kB) of pid and all its
// descendants, and how many processes that is.
func treeRSS(pid int) (rss, anon, procs int) {
	for _, p := range descendants(pid) {
		r, a := rssKB(p)
		rss, anon, procs = rss+r, anon+a, procs+1
	}
	return rss, anon, procs
}

// descendants returns pid and every process below it.
func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, childPIDs(out[i])...)
	}
	return out
}

// BenchmarkIdleRSS measures the memory of an installed harness (static
// builds, the plugins in plugins/ next to it, a warm state dir) waiting on
// the model in a session that called no tool: the summed RSS of the whole
// process tree (the host and every descendant), and of its anonymous part
// (heap, stacks) alone — the rest is the binaries' read-only pages. It
// fails if any plugin process runs: plugins start on first use.
func BenchmarkIdleRSS(b *testing.B) {
	bin := installedHarness(b)
	state := b.TempDir()
	settleInstall(b, bin)
	// Warm the state dir: a cold one starts every plugin once to describe it.
	warm := exec.Command(bin, "plugins")
	warm.Env = installedEnv(state)
	if out, err := warm.CombinedOutput(); err != nil {
		b.Fatalf("harness plugins: %v\n%s", err, out)
	}
	script := filepath.Join(b.TempDir(), "hang.jsonl")
	if err := os.WriteFile(script, []byte(`{"text":"waiting","hang":true}`+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	var total, anon int
	for b.Loop() {
		cmd := exec.Command(bin, "run", "--provider", "script", "--script", script, "idle")
		cmd.Env = installedEnv(state)
		cmd.Dir = b.TempDir()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond) // settle: the model waits
		if kids := childPIDs(cmd.Process.Pid); len(kids) != 0 {
			b.Fatalf("harness runs %d child processes %v though no tool was called, want none", len(kids), kids)
		}
		var procs int
		total, anon, procs = treeRSS(cmd.Process.Pid)
		if procs != 1 || total == 0 {
			b.Fatalf("process tree of %d processes, %d kB: the host exited?", procs, total)
		}
		stopHost(b, cmd)
	}
	b.ReportMetric(float64(total)/1024, "MB-rss")
	b.ReportMetric(float64(anon)/1024, "MB-anon")
}
