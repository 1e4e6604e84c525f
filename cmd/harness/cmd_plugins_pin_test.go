//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/pluginlock"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/internal/logtest"
)

// pinRefusal is what these tests say when a changed pinned plugin ran:
// pin verification (pluginlock.Verify, called by host/toolbox right after
// hashing a plugin file, at Open and at every reload) is broken.
const pinRefusal = "pin verification is broken: host/toolbox must call pluginlock.Verify(filepath.Dir(path), filepath.Base(path), sum) right after hashing a plugin file (at Open and at every reload) and make an error the file's failure"

// changeBinary rewrites the plugin file at path with its bytes plus a
// trailer: still the same working plugin, with another sha256. It returns
// the new sum.
func changeBinary(t *testing.T, path, trailer string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, []byte("\n"+trailer+"\n")...)
	// Write a dotfile (discovery skips it) and rename it over the plugin,
	// as go build and harness dev do.
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".new")
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	sum, err := pluginlock.HashFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func readLock(t *testing.T, dir string) pluginlock.Lock {
	t.Helper()
	l, err := pluginlock.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPluginsPin writes, rewrites and reports the lock of a plugin dir.
func TestPluginsPin(t *testing.T) {
	t.Parallel()
	plugins := testPlugins(t)
	dir := pluginDirWith(t, filepath.Join(plugins, "todo"), filepath.Join(plugins, "bash"))
	env := map[string]string{"HARNESS_PLUGIN_DIR": dir}
	pin := func(args ...string) string {
		t.Helper()
		code, out, errOut := harness(t, env, append([]string{"plugins", "pin"}, args...)...)
		if code != exitOK {
			t.Fatalf("harness plugins pin %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return out
	}
	lockPath := dir + ".lock"
	out := pin()
	for _, want := range []string{lockPath + ": pinned 2 plugins of " + dir, "\n  bash  ", "\n  todo  ", "  new\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("first pin: output lacks %q:\n%s", want, out)
		}
	}
	todoSum, _ := pluginlock.HashFile(filepath.Join(dir, "todo"))
	if l := readLock(t, dir); l.Development || len(l.Plugins) != 2 || l.Plugins["todo"].SHA256 != todoSum {
		t.Errorf("lock = %+v", l)
	}
	if !regexp.MustCompile(`(?m)^  todo  [0-9a-f]{12}…  unchanged$`).MatchString(pin()) {
		t.Error("a second pin does not report todo unchanged")
	}

	newSum := changeBinary(t, filepath.Join(dir, "todo"), "v2")
	if err := os.Remove(filepath.Join(dir, "bash")); err != nil {
		t.Fatal(err)
	}
	out = pin()
	for _, want := range []string{"pinned 1 plugins", "  todo  " + newSum[:12] + "…  changed (was " + todoSum[:12] + "…)", "  bash  " + strings.Repeat(" ", 13) + "  removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("pin after a change: output lacks %q:\n%s", want, out)
		}
	}

	out = pin("--dev")
	if !strings.Contains(out, dir+" is marked for development") || !readLock(t, dir).Development {
		t.Errorf("pin --dev: %s / %+v", out, readLock(t, dir))
	}
	pin()
	if readLock(t, dir).Development {
		t.Error("pin without --dev left the dir marked for development")
	}
	var raw map[string]any
	b, _ := os.ReadFile(lockPath)
	if err := json.Unmarshal(b, &raw); err != nil || raw["version"] != float64(1) {
		t.Errorf("lock file %s: %v", b, err)
	}
}

func TestPluginsPinErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none")
	code, out, errOut := harness(t, map[string]string{"HARNESS_PLUGIN_DIR": missing}, "plugins", "pin")
	if code != exitFailed || !strings.Contains(out, missing+": no such plugin dir; skipped") || !strings.Contains(errOut, "no plugin dir to pin") {
		t.Errorf("missing dir: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = harness(t, map[string]string{"HARNESS_PLUGIN_DIR": t.TempDir()}, "plugins", "pin", "todo")
	if code != exitUsage || !strings.Contains(errOut, "takes no arguments") {
		t.Errorf("an argument: exit %d\n%s", code, errOut)
	}
}

// listPlugins runs `harness plugins` on dir and returns its output.
func listPlugins(t *testing.T, dir string) string {
	t.Helper()
	env := map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_PLUGIN_DIR": dir, "HARNESS_LOG_LEVEL": "off"}
	code, out, errOut := harness(t, env, "plugins")
	if code != exitOK {
		t.Fatalf("harness plugins: exit %d\n%s\n%s", code, out, errOut)
	}
	return out
}

// running reports whether `harness plugins` lists plugin name with the
// sha256 sum as running, or registered to start on first use (not
// started).
func running(out, name, sum string) bool {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` +\S+ +\S+ +` + sum[:12] + ` +(running|not started) `).MatchString(out)
}

// TestPinnedPluginRefused is the acceptance test of pinning: a pinned
// plugin whose file changed is refused with the lock's message, and so is
// a file the lock does not name; the other plugins serve on.
func TestPinnedPluginRefused(t *testing.T) {
	t.Parallel()
	plugins := testPlugins(t)
	dir := pluginDirWith(t, filepath.Join(plugins, "todo"), filepath.Join(plugins, "subagent"))
	if code, out, errOut := harness(t, map[string]string{"HARNESS_PLUGIN_DIR": dir}, "plugins", "pin"); code != exitOK {
		t.Fatalf("pin: exit %d\n%s\n%s", code, out, errOut)
	}
	subagentSum, _ := pluginlock.HashFile(filepath.Join(dir, "subagent"))
	newSum := changeBinary(t, filepath.Join(dir, "todo"), "tampered")
	copyFile(t, filepath.Join(plugins, "bash"), filepath.Join(dir, "bash"))
	out := listPlugins(t, dir)
	if running(out, "todo", newSum) {
		t.Fatalf("the tampered pinned plugin runs: %s\n%s", pinRefusal, out)
	}
	for _, want := range []string{
		filepath.Join(dir, "todo") + ": plugin todo in " + dir + " is pinned to sha256 ",
		"but the file now has " + newSum[:12] + "…: if you trust the new binary, run harness plugins pin",
		filepath.Join(dir, "bash") + ": plugin bash in " + dir + " is not pinned in " + dir + ".lock",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("harness plugins lacks %q:\n%s", want, out)
		}
	}
	if !running(out, "subagent", subagentSum) {
		t.Errorf("the unchanged pinned plugin does not run:\n%s", out)
	}
	// Trusting the new binaries: pin again, and they run.
	if code, out, errOut := harness(t, map[string]string{"HARNESS_PLUGIN_DIR": dir}, "plugins", "pin"); code != exitOK {
		t.Fatalf("pin again: exit %d\n%s\n%s", code, out, errOut)
	}
	if out := listPlugins(t, dir); !running(out, "todo", newSum) {
		t.Errorf("after pin, the new todo does not run:\n%s", out)
	}
}

// TestDevDirServesChangedPlugin: in a dir marked for development, a
// changed plugin is not refused.
func TestDevDirServesChangedPlugin(t *testing.T) {
	t.Parallel()
	dir := pluginDirWith(t, filepath.Join(testPlugins(t), "todo"))
	if code, out, errOut := harness(t, map[string]string{"HARNESS_PLUGIN_DIR": dir}, "plugins", "pin", "--dev"); code != exitOK {
		t.Fatalf("pin --dev: exit %d\n%s\n%s", code, out, errOut)
	}
	newSum := changeBinary(t, filepath.Join(dir, "todo"), "rebuilt")
	if out := listPlugins(t, dir); !running(out, "todo", newSum) {
		t.Errorf("the changed plugin does not run in a development dir:\n%s", out)
	}
}

// watchingHost starts the toolbox of the plugin dir dir as the CLI does,
// from the CLI's own flags and defaults, and skips the test when it does
// not hot-reload.
func watchingHost(t *testing.T, dir string) *engine.Runtime {
	t.Helper()
	fs := newFlagSet("test", io.Discard, "")
	c := bindConfig(fs, func(string) (string, bool) { return "", false })
	if err := fs.Parse([]string{"--plugin-dir", dir, "--state-dir", t.TempDir(), "--log-level", "info"}); err != nil {
		t.Fatal(err)
	}
	logs := &logtest.Buffer{}
	log, err := newLogger(logs, c.LogLevel, false)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := runtimeConfig(c, func(string) (string, bool) { return "", false }, log)
	if err != nil {
		t.Fatal(err)
	}
	h, err := engine.New(rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.StartTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if strings.Contains(logs.String(), "watch=false") {
		t.Fatal("hot reload is off: startTools does not set toolbox.Config.Watch")
	}
	return h
}

// pluginInfo returns the toolbox's entry for plugin file path.
func pluginInfo(h *engine.Runtime, path string) (toolbox.PluginInfo, bool) {
	for _, p := range h.Plugins() {
		if p.Path == path {
			return p, true
		}
	}
	return toolbox.PluginInfo{}, false
}

// TestDevDirReloads is the acceptance test of development dirs: in a dir
// marked for development, a rebuilt plugin is hot-reloaded; in a pinned
// dir, the reload is refused and the pinned version serves on.
func TestDevDirReloads(t *testing.T) {
	t.Parallel()
	for _, dev := range []bool{true, false} {
		name := map[bool]string{true: "development dir", false: "pinned dir"}[dev]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := pluginDirWith(t, filepath.Join(testPlugins(t), "todo"))
			oldSum, _ := pluginlock.HashFile(filepath.Join(dir, "todo"))
			pins, err := pluginlock.Scan(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := pluginlock.Write(dir, pluginlock.Lock{Development: dev, Plugins: pins}); err != nil {
				t.Fatal(err)
			}
			h := watchingHost(t, dir)
			path := filepath.Join(dir, "todo")
			newSum := changeBinary(t, path, "rebuilt")
			deadline := time.Now().Add(15 * time.Second)
			for time.Now().Before(deadline) {
				p, _ := pluginInfo(h, path)
				switch {
				case dev && p.SHA256 == newSum:
					return // reloaded
				case !dev && p.LastReload != nil && p.LastReload.Err != "":
					if !strings.Contains(p.LastReload.Err, "is pinned to sha256") {
						t.Fatalf("the reload failed for another reason than the pin (%s): %s", p.LastReload.Err, pinRefusal)
					}
					if p.SHA256 != oldSum || (p.Status != toolbox.StatusRunning && p.Status != toolbox.StatusNotStarted) {
						t.Errorf("after a refused reload: %+v, want the pinned version serving (running, or not started: it starts on first use)", p)
					}
					return
				case !dev && p.SHA256 == newSum:
					t.Fatalf("the changed pinned binary was reloaded: %s", pinRefusal)
				}
				time.Sleep(20 * time.Millisecond)
			}
			p, _ := pluginInfo(h, path)
			t.Fatalf("no reload of %s within 15 s: %+v", path, p)
		})
	}
}
