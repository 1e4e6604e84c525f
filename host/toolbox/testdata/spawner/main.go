// Command spawner is a test plugin that leaves processes behind, as a
// careless or hostile plugin would. Tool spawn starts three `sleep 1000`s
// — one in a session of its own (setsid), one behind a double fork (sh
// runs it in the background and exits), one a plain child in the
// plugin's process group — and writes the plugin's pid and theirs to the
// file its pidfile argument names, one "what pid" a line (written whole,
// by rename). With hold true it then writes "spawner: holding" to its
// stderr and waits until the call is cancelled; the tests kill the host or
// the plugin meanwhile.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	lines := []string{fmt.Sprintf("plugin %d", os.Getpid())}

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
	lines = append(lines, fmt.Sprintf("setsid %d", setsid.Process.Pid))

	// A double fork: sh starts sleep in the background and exits, so the
	// sleep is nobody's child here.
	out, err := exec.Command("sh", "-c", "sleep 1000 </dev/null >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		return pluginapi.Result{}, err
	}
	lines = append(lines, "doublefork "+strings.TrimSpace(string(out)))

	// A plain child, in the plugin's own process group.
	child := exec.Command("sleep", "1000")
	if err := child.Start(); err != nil {
		return pluginapi.Result{}, err
	}
	lines = append(lines, fmt.Sprintf("child %d", child.Process.Pid))

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
