//go:build unix

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/pluginapi"
)

// TestRunReattach runs harness run against the todo plugin started by
// hand in debug mode, named in $HARNESS_REATTACH_PLUGINS: the script's
// todo_write is served by that process (not by the todo file of the plugin
// dir), which still runs after harness exits.
func TestRunReattach(t *testing.T) {
	t.Parallel()
	value, proc := startDebugPlugin(t, filepath.Join(testPlugins(t), "todo"))

	state := t.TempDir()
	env := map[string]string{
		"HARNESS_STATE_DIR":   state,
		"HARNESS_PLUGIN_DIR":  testPlugins(t), // holds a todo file too: the reattached plugin wins
		"HARNESS_PROVIDER":    "script",
		"HARNESS_LOG_LEVEL":   "info",
		pluginapi.EnvReattach: value,
		"HARNESS_SCRIPT": writeScript(t,
			todoLine("w1", `[{"content":"step through it","status":"in_progress"}]`),
			`{"text":"Debugged.","expect":{"lastRole":"tool","lastContains":"Updated todo list: 0 pending, 1 in progress, 0 completed."}}`),
	}
	code, out, errOut := harness(t, env, "run", "--watch=false", "plan")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "plugin todo is reattached for debugging; skipping its file") {
		t.Errorf("the log does not say the todo file was skipped:\n%s", errOut)
	}
	evs, _ := logtest.ReadLog(t, state)
	var call map[string]any
	for _, e := range evs {
		if e["type"] == "tool/call" {
			call = e["data"].(map[string]any)
		}
	}
	plugin, _ := call["plugin"].(map[string]any)
	if plugin["name"] != "todo" || plugin["pid"] != float64(proc.Pid) || plugin["sha256"] != nil {
		t.Errorf("tool/call does not name the reattached plugin (pid %d, no sha256): %v", proc.Pid, call)
	}
	if err := proc.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("harness stopped the reattached plugin: %v", err)
	}
}

// TestRunReattachBadValue: a $HARNESS_REATTACH_PLUGINS that does not parse
// is one error line naming the variable.
func TestRunReattachBadValue(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"HARNESS_STATE_DIR":   t.TempDir(),
		"HARNESS_PLUGIN_DIR":  t.TempDir(),
		"HARNESS_PROVIDER":    "script",
		"HARNESS_SCRIPT":      writeScript(t, `{"text":"unused"}`),
		pluginapi.EnvReattach: `{"todo":`,
	}
	code, out, errOut := harness(t, env, "run", "--watch=false", "plan")
	if code == 0 {
		t.Fatalf("exit 0 with a bad %s\n%s", pluginapi.EnvReattach, out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "parse "+pluginapi.EnvReattach+": ") {
		t.Errorf("stderr is not one line naming %s:\n%s", pluginapi.EnvReattach, errOut)
	}
}

// startDebugPlugin starts the plugin at path as a developer would under a
// debugger (HARNESS_PLUGIN_DEBUG=1), stops it when the test ends, and
// returns the HARNESS_REATTACH_PLUGINS value it prints, and its process.
func startDebugPlugin(t *testing.T, path string) (string, *os.Process) {
	t.Helper()
	cmd := exec.Command(path)
	cmd.Env = append(os.Environ(), pluginapi.EnvDebug+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), pluginapi.EnvReattach+"='"); ok {
				found <- strings.TrimSuffix(v, "'")
			}
		}
	}()
	select {
	case v := <-found:
		return v, cmd.Process
	case <-time.After(10 * time.Second):
		t.Fatal("the plugin printed no reattach line")
		return "", nil
	}
}
