package toolbox_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
)

// TestHoldKeepsTheListedProcess is provenance across a reload: a step
// holds its tool list (HoldTools) while the model thinks; the plugin is
// replaced meanwhile; the step's call, routed by the Plugin its list
// named, runs on that very process (same pid and sha256, the old
// version's answer), and the old process stops only once the step
// releases it. So the tool/call the loop logs from the list names the
// process that served.
func TestHoldKeepsTheListedProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	checkVersion(t, tb, "v1")

	list, release := tb.HoldTools()
	defer release()
	i := slices.IndexFunc(list, func(x tool.Tool) bool { return x.Spec.Name == "version" })
	listed := *list[i].Plugin
	install(t, "versioned-v2", dir, "versioned") // while the model "thinks"
	waitVersion(t, tb, "v2")                     // swapped: new calls go to the new version

	res := tb.Call(context.Background(), tool.Call{CallID: "c1", Name: "version", Args: `{}`, Plugin: &listed})
	if res.IsError || res.Content != "v1" || res.Plugin == nil || *res.Plugin != listed {
		t.Fatalf("held call = %+v (plugin %+v), want v1 served by %+v", res, res.Plugin, listed)
	}
	if !alive(listed.PID) {
		t.Fatalf("listed pid %d is gone while held", listed.PID)
	}
	release()
	waitFor(t, "the replaced process to stop once released", func() bool { return !alive(listed.PID) })
	// The reload ends (drained, stopped) only after the release.
	if r := rls.waitCount(t, 1); r.Err != "" || r.Change != toolbox.ChangeReplaced || r.Interrupted != 0 {
		t.Errorf("reload: %+v", r)
	}
}

// TestDescribeTimeout: a plugin that never answers Describe costs Open at
// most DescribeTimeout, does not delay the others, and fails naming the
// limit.
func TestDescribeTimeout(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "hang", "todo")
	cfg := testConfig(t, dir)
	cfg.DescribeTimeout = time.Second
	begin := time.Now()
	tb := open(t, cfg)
	took := time.Since(begin)
	if took > 4*time.Second { // 1 s, the stop, and a busy machine
		t.Errorf("Open took %s with a plugin hanging in Describe (limit 1s)", took)
	}
	fails := tb.Failures()
	if len(fails) != 1 || !strings.Contains(fails[0].Error(), filepath.Join(dir, "hang")) ||
		!strings.Contains(fails[0].Error(), "did not answer Describe within 1s") {
		t.Fatalf("failures = %v, want hang's saying it did not answer Describe within 1s", fails)
	}
	if res := call(tb, "todo_write", `{"todos":[]}`); res.IsError {
		t.Errorf("todo_write = %+v", res)
	}
}

// TestUnsafePluginFilesRefused: a plugin file or dir others could write is
// refused with a failure saying so; the safe ones serve.
func TestUnsafePluginFilesRefused(t *testing.T) {
	t.Parallel()
	t.Run("group-writable file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		copyPlugin(t, "todo", filepath.Join(dir, "todo"))
		copyPlugin(t, "versioned-v1", filepath.Join(dir, "versioned"))
		if err := os.Chmod(filepath.Join(dir, "todo"), 0o775); err != nil {
			t.Fatal(err)
		}
		tb := open(t, testConfig(t, dir))
		fails := tb.Failures()
		if len(fails) != 1 || fails[0].Path != filepath.Join(dir, "todo") ||
			!strings.Contains(fails[0].Error(), "plugin file is writable by group or others (mode 0775); refused: chmod go-w") {
			t.Fatalf("failures = %v", fails)
		}
		if names := toolNames(tb.Tools()); slices.Contains(names, "todo_write") || !slices.Contains(names, "version") {
			t.Errorf("tools = %v", names)
		}
	})
	t.Run("world-writable dir", func(t *testing.T) {
		t.Parallel()
		dir := pluginDir(t, "todo")
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		tb := open(t, testConfig(t, dir))
		fails := tb.Failures()
		if len(fails) != 1 || fails[0].Path != dir || !strings.Contains(fails[0].Error(), "plugin dir is writable by group or others (mode 0777)") {
			t.Fatalf("failures = %v", fails)
		}
		if len(tb.Tools()) != 0 {
			t.Errorf("tools of an unsafe dir: %v", toolNames(tb.Tools()))
		}
		if p := tb.Plugins(); len(p) != 1 || p[0].Status != toolbox.StatusFailed {
			t.Errorf("Plugins = %+v", p)
		}
	})
	t.Run("owned by another user", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() != 0 {
			t.Skip("needs root to give a file to another user")
		}
		dir := t.TempDir()
		copyPlugin(t, "todo", filepath.Join(dir, "todo"))
		if err := os.Chown(filepath.Join(dir, "todo"), 12345, 12345); err != nil {
			t.Fatal(err)
		}
		fails := open(t, testConfig(t, dir)).Failures()
		if len(fails) != 1 || !strings.Contains(fails[0].Error(), "owned by uid 12345") {
			t.Fatalf("failures = %v", fails)
		}
	})
}

// TestTamperedCacheEntryNotRun: a cached copy changed at the same size
// never runs under the original sha256: the next Open hashes it again,
// removes it and runs a fresh copy of the file.
func TestTamperedCacheEntryNotRun(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "todo")
	cfg := testConfig(t, dir)
	tb := open(t, cfg)
	sum := sha256File(t, filepath.Join(dir, "todo"))
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(cfg.CacheDir, sum)
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff // same size, other bytes
	if err := os.Chmod(entry, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, b, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(entry, 0o500); err != nil {
		t.Fatal(err)
	}

	tb = open(t, cfg)
	p := pluginInfo(t, tb, "todo")
	if p.Status != toolbox.StatusRunning || p.SHA256 != sum {
		t.Fatalf("todo = %+v", p)
	}
	if got := sha256File(t, entry); got != sum {
		t.Fatalf("the cache entry runs with sha256 %s, named %s", got, sum)
	}
	if pids := runningFrom(entry); len(pids) != 1 || pids[0] != p.PID {
		t.Errorf("processes of the entry: %v, want [%d]", pids, p.PID)
	}
}

// TestCachePruned: at Open, cache entries that no plugin runs and that
// were last used more than CacheGrace ago go; recent ones and the ones in
// use stay.
func TestCachePruned(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "todo")
	cfg := testConfig(t, dir)
	cfg.CacheGrace = time.Hour
	tb := open(t, cfg)
	inUse := filepath.Join(cfg.CacheDir, sha256File(t, filepath.Join(dir, "todo")))
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	stale := filepath.Join(cfg.CacheDir, strings.Repeat("ab", 32))
	fresh := filepath.Join(cfg.CacheDir, strings.Repeat("cd", 32))
	tmp := filepath.Join(cfg.CacheDir, ".reload.123.tmp")
	for _, f := range []string{stale, fresh, tmp} {
		if err := os.WriteFile(f, []byte("a previous build"), 0o500); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{stale, tmp, inUse} {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	open(t, cfg)
	for f, want := range map[string]bool{stale: false, tmp: false, fresh: true, inUse: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}

// TestReloadSlowWriteInPlace: a cp that stalls mid-file for longer than
// the debounce is still one replacement: the half-written binary is seen
// as incomplete, never started, never withdrawn.
func TestReloadSlowWriteInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "versioned")
	copyPlugin(t, "versioned-v1", path)
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	checkVersion(t, tb, "v1")

	v2 := readPlugin(t, "versioned-v2")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(v2[:len(v2)/2]); err != nil {
		t.Fatal(err)
	}
	// The writer stalls: the debounce fires on half a binary.
	waitFor(t, "a reload pass over the half-written file", func() bool {
		fi, err := os.Stat(path)
		return err == nil && time.Since(fi.ModTime()) > 4*cfg.Debounce
	})
	if _, err := f.Write(v2[len(v2)/2:]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	waitVersion(t, tb, "v2")
	for _, r := range rls.all() {
		if r.Err != "" || r.Change != toolbox.ChangeReplaced {
			t.Errorf("reload %+v: want one replacement", r)
		}
	}
}
