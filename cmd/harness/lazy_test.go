//go:build linux

package main

import (
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// runningPlugins names the plugins the host process pid runs (under their
// keepers).
func runningPlugins(pid int, sums map[string]string) []string {
	var names []string
	for _, k := range pluginPIDs(pid) {
		names = append(names, procPlugin(k, sums))
	}
	slices.Sort(names)
	return names
}

// waitPlugins polls until the host pid runs exactly the plugins want, for
// up to 10 s.
func waitPlugins(t *testing.T, pid int, sums map[string]string, want ...string) {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = runningPlugins(pid, sums); slices.Equal(got, want) {
			return
		}
	}
	t.Fatalf("harness runs the plugins %v, want %v", got, want)
}

// TestPluginsStartOnFirstUse runs the installed harness (the real plugins
// next to it) on a session whose model calls todo_write and starts a
// background bash task, then thinks: only those two plugins ever start
// (fs and subagent, never called, never run). `harness plugins` lists
// every plugin as not started.
func TestPluginsStartOnFirstUse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the install")
	}
	t.Parallel()
	bin := installedHarness(t)
	sums := pluginSums(t, bin)
	state := t.TempDir()
	// Warm the cache (a cold one starts every plugin once to describe it),
	// and see them listed as not started.
	out, err := exec.Command(bin, "plugins", "--state-dir", state).CombinedOutput()
	if err != nil {
		t.Fatalf("harness plugins: %v\n%s", err, out)
	}
	for _, name := range realPlugins {
		if !regexp.MustCompile(`(?m)^` + name + ` .* not started`).Match(out) {
			t.Errorf("harness plugins does not list %s as not started:\n%s", name, out)
		}
	}
	script := writeScript(t,
		`{"toolCalls":[{"id":"t1","name":"todo_write","args":{"todos":[{"content":"wait","status":"in_progress"}]}}]}`,
		`{"text":"now bash","expect":{"lastRole":"tool"},"toolCalls":[{"id":"b1","name":"bash","args":{"command":"sleep 60","description":"wait","run_in_background":true}}]}`,
		`{"text":"waiting","hang":true}`,
	)
	cmd := exec.Command(bin, "run", "--provider", "script", "--script", script, "--yes", "--plugin-idle", "400ms", "go")
	cmd.Env = installedEnv(state)
	cmd.Dir = t.TempDir()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopHost(t, cmd)
	pid := cmd.Process.Pid

	// Both called plugins start; the others never do.
	seen := map[string]bool{}
	for deadline := time.Now().Add(10 * time.Second); !seen["bash"] && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, n := range runningPlugins(pid, sums) {
			seen[n] = true
		}
	}
	if !seen["bash"] {
		t.Fatalf("bash never started though the model called it (seen %v)", seen)
	}
	// Exactly the two called plugins run while the model thinks (a step
	// holds the processes its tool list names, so none stops meanwhile;
	// idle stops are tested in engine's TestPluginsLifecycle).
	waitPlugins(t, pid, sums, "bash", "todo")
	time.Sleep(1500 * time.Millisecond) // several idle periods
	for _, n := range runningPlugins(pid, sums) {
		seen[n] = true
	}
	if seen["fs"] || seen["subagent"] {
		t.Errorf("plugins that were never called ran: %v", seen)
	}
}

// TestSessionWithoutToolsStartsNoPlugin: a session whose model never
// calls a tool never starts a plugin process, cold state dir or warm.
func TestSessionWithoutToolsStartsNoPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the install")
	}
	t.Parallel()
	bin := installedHarness(t)
	sums := pluginSums(t, bin)
	state := t.TempDir()
	for _, cache := range []string{"cold", "warm"} {
		script := writeScript(t, `{"text":"waiting-for-ever","hang":true}`)
		cmd := exec.Command(bin, "run", "--provider", "script", "--script", script, "go")
		cmd.Env = installedEnv(state)
		cmd.Dir = t.TempDir()
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The model is asked once the tools are registered: the
		// describing starts of a cold cache have ended by then.
		asked := make(chan bool, 1)
		go func() {
			var seen []byte
			buf := make([]byte, 4096)
			for {
				n, err := stdout.Read(buf)
				seen = append(seen, buf[:n]...)
				if strings.Contains(string(seen), "waiting-for-ever") {
					asked <- true
					io.Copy(io.Discard, stdout)
					return
				}
				if err != nil {
					asked <- false
					return
				}
			}
		}()
		select {
		case ok := <-asked:
			if !ok {
				t.Fatalf("%s cache: harness ended before the model answered", cache)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s cache: the model was not asked within 30 s", cache)
		}
		time.Sleep(300 * time.Millisecond)
		if got := runningPlugins(cmd.Process.Pid, sums); len(got) != 0 {
			t.Errorf("%s cache: a session that called no tool runs the plugins %v", cache, got)
		}
		stopHost(t, cmd)
	}
}
