//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childPIDs returns the pids whose parent is pid, from /proc.
func childPIDs(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone
		}
		// pid (comm) state ppid …; comm may hold spaces, so cut at the last ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, n)
		}
	}
	return out
}

// pluginPIDs returns the processes host runs as plugins: its children,
// each keeper among them (host/keeper) replaced by the process it keeps.
func pluginPIDs(host int) []int {
	var out []int
	for _, k := range childPIDs(host) {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(k) + "/cmdline")
		if !strings.Contains(string(cmdline), "\x00--harness-keeper-v1\x00") {
			out = append(out, k)
			continue
		}
		out = append(out, childPIDs(k)...)
	}
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z" // a zombie is dead, only unreaped
}

// TestHostKilledLeavesNoPlugins kills the real harness with SIGKILL in the
// middle of a turn — no cleanup can run — and checks that none of its
// plugin processes is alive 2 s later.
func TestHostKilledLeavesNoPlugins(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := harnessBin(t)
	// Plugins start on first use: the model calls two of them, then thinks.
	script := writeScript(t,
		`{"toolCalls":[{"id":"t1","name":"todo_write","args":{"todos":[{"content":"wait","status":"in_progress"}]}},{"id":"b1","name":"bash","args":{"command":"sleep 60","description":"wait","run_in_background":true}}]}`,
		`{"text":"thinking for a long while","hang":true}`)
	cmd := exec.Command(bin, "run", "--provider", "script", "--script", script, "--yes",
		"--state-dir", t.TempDir(), "--plugin-dir", testPlugins(t), "hold on")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var plugins []int
	for deadline := time.Now().Add(10 * time.Second); len(plugins) < 2 && time.Now().Before(deadline); {
		plugins = childPIDs(cmd.Process.Pid)
		time.Sleep(20 * time.Millisecond)
	}
	if len(plugins) < 2 {
		t.Fatalf("harness has %d child processes, want the 2 plugins the model called", len(plugins))
	}
	// the plugins themselves too, below their keepers (the children)
	plugins = append(plugins, pluginPIDs(cmd.Process.Pid)...)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	time.Sleep(2 * time.Second)
	for _, pid := range plugins {
		if alive(pid) {
			t.Errorf("plugin process %d is alive 2 s after the host was killed", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
