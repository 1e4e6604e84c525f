// Command spawner is a test plugin that leaves processes behind, as a
// careless or hostile plugin would. Tool spawn starts three `sleep 1000`s
// — one in a session of its own (setsid), one behind a double fork (sh
// runs it in the background and exits), one a plain child in the
// plugin's process group — and writes the plugin's pid and theirs to the
// file its pidfile argument names, one "what pid start" a line (start:
// the process's start time, field 22 of /proc/<pid>/stat, so that a test
// never takes a pid reused since for it; written whole, by rename): the
// plugin first, then its parent, then the three sleeps. With hold true it then writes "spawner: holding" to its
// stderr and waits until the call is cancelled; the tests kill the host or
// the plugin meanwhile.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/harness-dev/harness/pluginapi"
)

type args struct {
	PIDFile string `json:"pidfile"`
	Hold    bool   `json:"hold"`
}

func main() {
	pluginapi.Serve(pluginapi.Plugin{
		Name:    "spawner",
		Version: "0.0.1",
		// It runs sh and sleep, and writes its pid file wherever it is
		// told: a host that confines plugins starts it once trusted.
		Capabilities: pluginapi.Capabilities{Exec: true, Write: []string{"/"}},
		Tools: []pluginapi.Tool{{
			Spec: pluginapi.ToolSpec{Name: "spawn", Description: "Leaves three sleeps behind.",
				Schema: json.RawMessage(`{"type":"object","properties":{"pidfile":{"type":"string"},"hold":{"type":"boolean"}},"required":["pidfile"]}`)},
			Run: spawn,
		}},
	})
}

func spawn(ctx context.Context, call *pluginapi.Call) (pluginapi.Result, error) {
	var a args
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return pluginapi.Result{}, err
	}
	var lines []string
	note := func(what string, pid int) { lines = append(lines, fmt.Sprintf("%s %d %s", what, pid, startTime(pid))) }
	note("plugin", os.Getpid())
	note("parent", os.Getppid())

	// setsid sleep 1000: its own session (and process group).
	setsid := exec.Command("sleep", "1000")
	if path, err := exec.LookPath("setsid"); err == nil {
		setsid = exec.Command(path, "sleep", "1000") // not a group leader: setsid execs sleep in place
	} else {
		setsid.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := setsid.Start(); err != nil {
		return pluginapi.Result{}, err
	}
	note("setsid", setsid.Process.Pid)

	// A double fork: sh starts sleep in the background and exits, so the
	// sleep is nobody's child here.
	out, err := exec.Command("sh", "-c", "sleep 1000 </dev/null >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		return pluginapi.Result{}, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return pluginapi.Result{}, fmt.Errorf("the double fork's pid: %w", err)
	}
	note("doublefork", pid)

	// A plain child, in the plugin's own process group.
	child := exec.Command("sleep", "1000")
	if err := child.Start(); err != nil {
		return pluginapi.Result{}, err
	}
	note("child", child.Process.Pid)

	tmp := a.PIDFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return pluginapi.Result{}, err
	}
	if err := os.Rename(tmp, a.PIDFile); err != nil {
		return pluginapi.Result{}, err
	}
	if a.Hold {
		// fd 2 is the stderr the host reads; os.Stderr is go-plugin's
		// stdio stream after Serve.
		fmt.Fprintln(os.NewFile(2, "stderr"), "spawner: holding") // stdout-ok: fd 2 is stderr
		<-ctx.Done()
		return pluginapi.Result{Content: "cancelled while holding", IsError: true}, nil
	}
	return pluginapi.Result{Content: "spawned " + strings.Join(lines, ", ")}, nil
}

// startTime is field 22 of /proc/<pid>/stat: when the process started, in
// clock ticks since boot ("?" if it cannot be read).
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "?"
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return "?"
	}
	return f[19]
}
