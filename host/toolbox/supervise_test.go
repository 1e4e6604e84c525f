//go:build linux

package toolbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/tool"
)

// leftProc is a process a test plugin started: its pid and its start time
// (/proc/<pid>/stat field 22), so that a pid reused since is not taken
// for it.
type leftProc struct {
	what  string
	pid   int
	start string
}

// procStat returns /proc/<pid>/stat's fields after the command name
// (state first), or nil if the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// running reports whether p is still the live process it was.
func (p leftProc) running() bool {
	f := procStat(p.pid)
	return len(f) > 19 && f[0] != "Z" && f[19] == p.start
}

// readLeft reads the spawner plugin's pid file, once written: the
// plugin, its parent (its keeper, checked) and the three sleeps, each with
// its start time.
func readLeft(t testing.TB, path string) []leftProc {
	t.Helper()
	var b []byte
	waitFor(t, "the spawner's pid file", func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil
	})
	var out []leftProc
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("pid file line %q", line)
		}
		pid, err := strconv.Atoi(f[1])
		if err != nil || f[2] == "?" {
			t.Fatalf("pid file line %q", line)
		}
		out = append(out, leftProc{what: f[0], pid: pid, start: f[2]})
	}
	if len(out) != 5 || out[1].what != "parent" {
		t.Fatalf("pid file holds %v, want the plugin, its parent, setsid, doublefork and child", out)
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(out[1].pid) + "/cmdline")
	if out[1].pid == os.Getpid() || !strings.Contains(string(cmdline), "--harness-keeper-v1") {
		t.Fatalf("plugin %d's parent is %d (%q), want a keeper", out[0].pid, out[1].pid, cmdline)
	}
	out[1].what = "keeper"
	return out
}

// noneLeft waits (generously: the machine may be busy) for every process
// of procs to be gone, and fails naming those still running.
func noneLeft(t testing.TB, after string, procs []leftProc) {
	t.Helper()
	begin := time.Now()
	for deadline := begin.Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var left []string
		for _, p := range procs {
			if p.running() {
				left = append(left, fmt.Sprintf("%s %d", p.what, p.pid))
			}
		}
		if len(left) == 0 {
			t.Logf("all gone %v after %s", time.Since(begin).Round(time.Millisecond), after)
			return
		}
		if time.Now().After(deadline) {
			for _, p := range procs {
				if p.running() {
					_ = syscall.Kill(p.pid, syscall.SIGKILL)
				}
			}
			t.Fatalf("%s still running 10 s after %s", strings.Join(left, ", "), after)
		}
	}
}

// TestPluginKilledLeavesNothing: a plugin SIGKILLed mid-call, as the OOM
// killer would, while the host lives: what it started — in a session of
// its own, behind a double fork, a plain child — is killed by its keeper;
// the call is an error result with the plugin's last stderr line, as
// before; the next call restarts the plugin; and provenance names the
// plugin's own pid, not its keeper's.
func TestPluginKilledLeavesNothing(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "spawner")))
	pidfile := filepath.Join(t.TempDir(), "pids")
	done := make(chan tool.Result, 1)
	go func() { done <- call(tb, "spawn", fmt.Sprintf(`{"pidfile":%q,"hold":true}`, pidfile)) }()
	procs := readLeft(t, pidfile)
	plugin := procs[0].pid
	if listed := toolNamed(t, tb, "spawn").Plugin.PID; listed != plugin {
		t.Errorf("the tool list names pid %d, the plugin is %d", listed, plugin)
	}
	if err := syscall.Kill(plugin, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	noneLeft(t, "the plugin was SIGKILLed", procs)

	var res tool.Result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not return 10 s after its plugin was killed")
	}
	if !res.IsError || !strings.HasPrefix(res.Content, "Error: plugin spawner crashed during the call: ") ||
		!strings.Contains(res.Content, "spawner: holding") {
		t.Errorf("the call's result = %q, want the crash with the plugin's last stderr line", res.Content)
	}
	if res.Plugin == nil || res.Plugin.PID != plugin {
		t.Errorf("the result names %+v, want pid %d", res.Plugin, plugin)
	}

	// Restarted on the next call; Close then leaves nothing either.
	pidfile2 := filepath.Join(t.TempDir(), "pids")
	res = call(tb, "spawn", fmt.Sprintf(`{"pidfile":%q}`, pidfile2))
	if res.IsError || res.Plugin == nil || res.Plugin.PID == plugin {
		t.Fatalf("the call after the crash = %+v", res)
	}
	procs = readLeft(t, pidfile2)
	if procs[0].pid != res.Plugin.PID {
		t.Errorf("the result names pid %d, the plugin is %d", res.Plugin.PID, procs[0].pid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- tb.Close() }()
	select {
	case err := <-closed:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Close: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close took over 10 s")
	}
	noneLeft(t, "Close", procs)
}
