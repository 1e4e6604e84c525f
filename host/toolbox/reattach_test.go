//go:build unix

package toolbox_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// debugPlugin is a plugin started by hand in debug mode, as under a
// debugger.
type debugPlugin struct {
	cmd      *exec.Cmd
	reattach map[string]pluginapi.ReattachConfig
	stopOnce sync.Once
}

// startDebug starts the built plugin name with $HARNESS_PLUGIN_DEBUG=1 and
// reads the $HARNESS_REATTACH_PLUGINS value it prints. The test's cleanup
// kills it.
func startDebug(t *testing.T, name string) *debugPlugin {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name))
	cmd.Env = append(os.Environ(), pluginapi.EnvDebug+"=1")
	logs := &logBuffer{}
	cmd.Stderr = logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &debugPlugin{cmd: cmd}
	t.Cleanup(func() {
		d.kill()
		if t.Failed() {
			t.Logf("debug plugin %s stderr:\n%s", name, logs)
		}
	})
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
		if d.reattach, err = pluginhost.ParseReattach(v); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("plugin %s printed no reattach line", name)
	}
	return d
}

func (d *debugPlugin) pid() int { return d.cmd.Process.Pid }

// kill kills the plugin and reaps it.
func (d *debugPlugin) kill() {
	d.stopOnce.Do(func() {
		_ = d.cmd.Process.Kill()
		_ = d.cmd.Wait()
	})
}

// running reports whether the plugin process is still there.
func (d *debugPlugin) running() bool {
	return d.cmd.Process.Signal(syscall.Signal(0)) == nil
}

// TestReattach attaches a toolbox to the todo plugin running in debug
// mode: its tool is listed under the debugged process's pid, calls reach
// it, Close only detaches, a file of the same plugin in the plugin dir is
// skipped (at Open and when it appears), and once the process is gone a
// call says so instead of restarting it.
func TestReattach(t *testing.T) {
	t.Parallel()
	dbg := startDebug(t, "todo")

	cfg := testConfig(t, t.TempDir())
	cfg.Reattach = dbg.reattach
	tb := open(t, cfg)
	want := event.Plugin{Name: "todo", Version: pluginInfo(t, tb, "todo").Version, PID: dbg.pid()}
	if got := toolNamed(t, tb, "todo_write").Plugin; *got != want || got.Version == "" {
		t.Errorf("todo_write served by %+v, want %+v", got, want)
	}
	info := pluginInfo(t, tb, "todo")
	if info.Path != "reattach:todo" || info.Status != toolbox.StatusRunning || info.PID != dbg.pid() || info.SHA256 != "" {
		t.Errorf("Plugins lists %+v", info)
	}
	res := call(tb, "todo_write", todoArgs)
	if res.IsError || !strings.Contains(res.Content, "Updated todo list") || res.Plugin == nil || *res.Plugin != want {
		t.Fatalf("todo_write: %+v", res)
	}
	if err := tb.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if !dbg.running() {
		t.Fatal("Close stopped the reattached plugin; it should only detach")
	}

	// Attach again (the plugin serves hosts in turn), with the todo file in
	// the plugin dir, watched: the reattached plugin wins over the file.
	dir := pluginDir(t, "todo")
	cfg = testConfig(t, dir)
	logs := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("second toolbox's log:\n%s", logs)
		}
	})
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})
	cfg.Reattach = dbg.reattach
	cfg.Watch = true
	cfg.Debounce = 10 * time.Millisecond
	tb = open(t, cfg)
	const skipped = "plugin todo is reattached for debugging; skipping its file"
	if n := strings.Count(logs.String(), skipped); n != 1 {
		t.Errorf("Open logged %q %d times, want once", skipped, n)
	}
	if got := tb.Plugins(); len(got) != 1 || got[0].Path != "reattach:todo" {
		t.Errorf("Plugins = %+v, want only reattach:todo", got)
	}
	copyPlugin(t, "todo", filepath.Join(dir, "todo-copy"))
	waitFor(t, "the new file to be skipped", func() bool { return strings.Count(logs.String(), skipped) == 2 })
	if got := tb.Plugins(); len(got) != 1 || got[0].Path != "reattach:todo" {
		t.Errorf("after a reload, Plugins = %+v, want only reattach:todo", got)
	}
	if res := call(tb, "todo_write", todoArgs); res.IsError || *res.Plugin != want {
		t.Fatalf("todo_write after reattaching: %+v", res)
	}

	// The developer stops the plugin: no restart, a clear error.
	dbg.kill()
	const gone = "Error: plugin todo (reattached for debugging) is gone; restart it and harness"
	for i := range 2 {
		if res := call(tb, "todo_write", todoArgs); !res.IsError || res.Content != gone {
			t.Errorf("call %d after the plugin was killed: %+v, want %q", i+1, res, gone)
		}
	}
	info = pluginInfo(t, tb, "todo")
	if info.Status != toolbox.StatusStopped || !strings.Contains(info.Err, "is gone") {
		t.Errorf("Plugins lists %+v, want it stopped and gone", info)
	}
	if strings.Contains(logs.String(), "plugin restarted") || strings.Contains(logs.String(), "plugin disabled") {
		t.Errorf("the toolbox tried to restart the reattached plugin:\n%s", logs)
	}
}

// TestReattachFailures: a reattached plugin that is not there, and one
// whose tool another reattached plugin offers, are Failures naming them;
// the rest works.
func TestReattachFailures(t *testing.T) {
	t.Parallel()
	dbg := startDebug(t, "todo")
	clash := startDebug(t, "versioned-clash") // offers todo_write too
	cfg := testConfig(t, pluginDir(t, "crashy"))
	cfg.Reattach = map[string]pluginapi.ReattachConfig{
		"todo":      dbg.reattach["todo"],
		"versioned": clash.reattach["versioned"],
		"absent": {Protocol: "grpc", ProtocolVersion: pluginapi.ProtocolVersion, Pid: dbg.pid(),
			Addr: pluginapi.ReattachAddr{Network: "unix", String: filepath.Join(t.TempDir(), "no-socket")}},
	}
	cfg.StartTimeout = 2 * time.Second
	tb := open(t, cfg)
	fails := map[string]string{}
	for _, f := range tb.Failures() {
		fails[f.Path] = f.Error()
	}
	if !strings.Contains(fails["reattach:absent"], "attach to plugin absent") {
		t.Errorf("failure of absent: %q (all: %v)", fails["reattach:absent"], fails)
	}
	if want := `tool "todo_write" is already offered by reattach:todo (plugin todo); refused plugin versioned`; !strings.Contains(fails["reattach:versioned"], want) {
		t.Errorf("failure of versioned: %q, want it to contain %q", fails["reattach:versioned"], want)
	}
	if res := call(tb, "todo_write", todoArgs); res.IsError || res.Plugin.PID != dbg.pid() {
		t.Errorf("todo_write: %+v", res)
	}
	if res := call(tb, "ok", ""); res.IsError {
		t.Errorf("the discovered plugin does not serve alongside: %+v", res)
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	if !dbg.running() || !clash.running() {
		t.Error("Close stopped a reattached plugin")
	}
}
