package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/harness-dev/harness/host/tool"
)

// EditorTerminal is implemented by a turn's live sink (an EditorFiles)
// whose client runs commands in terminals it shows (ACP's terminal/*):
// when EditorTerminal reports true, the foreground calls of the built-in
// bash plugin's bash tool run there instead of in the plugin — in the
// editor's process, with the user's rights, outside harness's sandbox
// (the call is still decided by the permission policy first). Background
// calls, and every other tool, run as always.
type EditorTerminal interface {
	EditorTerminal() bool
	// RunInTerminal runs `bash -c command` in cwd in a terminal of the
	// editor shown on call callID, and returns what it printed (the tail
	// the editor kept), whether that was cut, and how it ended: its exit
	// code (nil: unknown), or the signal that killed it. When ctx ends
	// first the command is killed and ctx's error returned with what it
	// printed.
	RunInTerminal(ctx context.Context, callID, command, cwd string) (output string, truncated bool, exitCode *int, signal string, err error)
}

// terminalTimeout is a terminal call's time limit when it names none, as
// the bash plugin's.
const terminalTimeout = 2 * time.Minute

// inTerminal returns the terminal that runs call c, if its session's
// turn has one and c is a foreground call of the bash plugin's bash.
func (r *Runtime) inTerminal(c tool.Call) (EditorTerminal, bool) {
	if c.Name != "bash" || c.Plugin == nil || c.Plugin.Name != "bash" {
		return nil, false
	}
	ed, ok := r.editors.Editor(c.SessionID)
	if !ok {
		return nil, false
	}
	et, ok := ed.(EditorTerminal)
	if !ok || !et.EditorTerminal() {
		return nil, false
	}
	var a struct {
		RunInBackground bool `json:"run_in_background"`
	}
	if json.Unmarshal([]byte(c.Args), &a) != nil || a.RunInBackground {
		return nil, false // the plugin answers bad arguments, and keeps background tasks
	}
	return et, true
}

// runInTerminal runs a bash call in the editor's terminal: its result is
// what bash's is, the output and "[exit code: N]" or "[killed by signal:
// NAME]" when it failed.
func runInTerminal(ctx context.Context, et EditorTerminal, c tool.Call) tool.Result {
	var a struct {
		Command   string `json:"command"`
		TimeoutMs *int64 `json:"timeout_ms"`
		Workdir   string `json:"workdir"`
	}
	if err := json.Unmarshal([]byte(c.Args), &a); err != nil || strings.TrimSpace(a.Command) == "" {
		return tool.Result{Content: "Error: bash needs a command", IsError: true}
	}
	cwd := c.Cwd
	if a.Workdir != "" {
		cwd = a.Workdir
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(c.Cwd, cwd)
		}
	}
	limit := terminalTimeout
	if a.TimeoutMs != nil && *a.TimeoutMs > 0 {
		limit = time.Duration(*a.TimeoutMs) * time.Millisecond
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out, truncated, exitCode, signal, err := et.RunInTerminal(tctx, c.CallID, a.Command, cwd)
	if truncated {
		out = "[earlier output cut]\n" + out
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return tool.Result{Content: "Error: cancelled\n" + out, IsError: true}
	case err != nil && tctx.Err() != nil:
		return tool.Result{Content: "Error: timed out after " + limit.String() + "\n" + out, IsError: true}
	case err != nil:
		return tool.Result{Content: "Error: the editor's terminal failed: " + err.Error() + "\n" + out, IsError: true}
	case signal != "":
		return tool.Result{Content: out + "\n[killed by signal: " + signal + "]", IsError: true}
	case exitCode != nil && *exitCode != 0:
		return tool.Result{Content: out + "\n[exit code: " + strconv.Itoa(*exitCode) + "]", IsError: true}
	}
	return tool.Result{Content: out}
}
