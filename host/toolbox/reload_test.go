package toolbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
)

// reloads collects the reloads a toolbox reports through OnReload.
type reloads struct {
	mu   sync.Mutex
	list []toolbox.Reload
}

func (r *reloads) add(rl toolbox.Reload) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rl)
}

func (r *reloads) all() []toolbox.Reload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.list)
}

func (r *reloads) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.list)
}

// waitCount waits until n reloads were reported and returns the n-th.
func (r *reloads) waitCount(t testing.TB, n int) toolbox.Reload {
	t.Helper()
	waitFor(t, fmt.Sprintf("reload #%d", n), func() bool { return r.count() >= n })
	return r.all()[n-1]
}

// watchConfig is testConfig with hot reload on, a short debounce, and the
// reloads collected.
func watchConfig(t testing.TB, dirs ...string) (toolbox.Config, *reloads) {
	t.Helper()
	cfg := testConfig(t, dirs...)
	cfg.Watch = true
	cfg.Debounce = 40 * time.Millisecond
	rl := &reloads{}
	cfg.OnReload = rl.add
	return cfg, rl
}

// install puts the built plugin name into dir as file, the way `go build
// -o dir/` does: a complete file renamed over the old one (here a hard
// link of the build, renamed from a temporary name the watcher ignores).
func install(t testing.TB, name, dir, file string) {
	t.Helper()
	tmp := filepath.Join(dir, "."+file+".tmp")
	if err := os.Link(filepath.Join(bin, name), tmp); err != nil {
		copyPlugin(t, name, tmp)
	}
	if err := os.Rename(tmp, filepath.Join(dir, file)); err != nil {
		t.Fatal(err)
	}
}

// readPlugin returns the bytes of the built plugin name.
func readPlugin(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(bin, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeInPlace writes b to dst opened with flags (O_TRUNC: over the file,
// as cp does), in 1 MiB chunks with a short pause between them.
func writeInPlace(t testing.TB, b []byte, dst string, flags int) {
	t.Helper()
	f, err := os.OpenFile(dst, os.O_WRONLY|flags, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	for len(b) > 0 {
		n := min(len(b), 1<<20)
		if _, err := f.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
		time.Sleep(2 * time.Millisecond)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitVersion calls tool version until the plugin answers want, and
// returns that result.
func waitVersion(t testing.TB, tb *toolbox.Toolbox, want string) tool.Result {
	t.Helper()
	var res tool.Result
	waitFor(t, "version "+want, func() bool {
		res = call(tb, "version", `{}`)
		return !res.IsError && res.Content == want
	})
	return res
}

func checkVersion(t testing.TB, tb *toolbox.Toolbox, want string) tool.Result {
	t.Helper()
	res := call(tb, "version", `{}`)
	if res.IsError || res.Content != want {
		t.Fatalf("version = %+v, want %s", res, want)
	}
	return res
}

var allStages = []string{
	toolbox.StageDebounce, toolbox.StageCopy, toolbox.StageHash, toolbox.StageStart, toolbox.StageDescribe,
	toolbox.StageConfigure, toolbox.StageSwap, toolbox.StageDrain, toolbox.StageStop,
}

func stageNames(r toolbox.Reload) []string {
	var names []string
	for _, s := range r.Stages {
		names = append(names, s.Name)
	}
	return names
}

func TestReloadRename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyPlugin(t, "versioned-v1", filepath.Join(dir, "versioned"))
	cfg, rls := watchConfig(t, dir)
	cfg.ReloadsFile = filepath.Join(filepath.Dir(cfg.CacheDir), "reloads.json")
	tb := open(t, cfg)
	v1 := checkVersion(t, tb, "v1").Plugin
	if v1.SHA256 != sha256File(t, filepath.Join(bin, "versioned-v1")) {
		t.Fatalf("v1 served by %+v", v1)
	}

	begin := time.Now()
	install(t, "versioned-v2", dir, "versioned")
	res := waitVersion(t, tb, "v2")
	t.Logf("v2 serving after %v", time.Since(begin))
	v2sum := sha256File(t, filepath.Join(bin, "versioned-v2"))
	if res.Plugin.SHA256 != v2sum || res.Plugin.Version != "v2" || res.Plugin.PID == v1.PID {
		t.Errorf("v2 result plugin = %+v (v1 was %+v)", res.Plugin, v1)
	}
	if ref := toolNamed(t, tb, "version").Plugin; *ref != *res.Plugin {
		t.Errorf("Tools lists %+v, the call was served by %+v", ref, *res.Plugin)
	}
	waitFor(t, "the v1 process to stop", func() bool { return !alive(v1.PID) })

	r := rls.waitCount(t, 1)
	t.Logf("reload: %+v", r)
	if r.Err != "" || r.Change != toolbox.ChangeReplaced || r.FromSHA != v1.SHA256 || r.ToSHA != v2sum ||
		r.FromVersion != "v1" || r.ToVersion != "v2" || r.Plugin != "versioned" || r.Path != filepath.Join(dir, "versioned") {
		t.Errorf("reload = %+v", r)
	}
	if !slices.Equal(stageNames(r), allStages) {
		t.Errorf("stages = %v, want %v", stageNames(r), allStages)
	}
	var sum time.Duration
	for _, s := range r.Stages {
		sum += s.Elapsed
	}
	if sum != r.Total || r.Serving <= 0 || r.Serving > r.Total || r.Elapsed(toolbox.StageDebounce) < cfg.Debounce {
		t.Errorf("total %v, serving %v, stages sum to %v, debounce %v", r.Total, r.Serving, sum, r.Elapsed(toolbox.StageDebounce))
	}
	info := pluginInfo(t, tb, "versioned")
	if info.LastReload == nil || info.LastReload.ToSHA != v2sum || info.SHA256 != v2sum || info.Version != "v2" ||
		info.Status != toolbox.StatusRunning || info.PID != res.Plugin.PID {
		t.Errorf("Plugins()[versioned] = %+v, last reload %+v", info, info.LastReload)
	}
	if n := rls.count(); n != 1 {
		t.Errorf("%d reloads reported, want 1: %+v", n, rls.all())
	}

	// Another process (harness plugins) sees the last reload in the
	// reloads file.
	other := cfg
	other.Watch, other.OnReload = false, nil
	seen := pluginInfo(t, open(t, other), "versioned").LastReload
	if seen == nil || seen.ToSHA != v2sum || !seen.At.Equal(r.At) || len(seen.Stages) != len(r.Stages) ||
		seen.Stages[0] != r.Stages[0] || seen.Serving != r.Serving || seen.Change != toolbox.ChangeReplaced {
		t.Errorf("LastReload in another toolbox = %+v, want %+v", seen, r)
	}
}

func TestReloadWriteInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "versioned")
	copyPlugin(t, "versioned-v1", path) // a copy of its own: written in place below
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	checkVersion(t, tb, "v1")

	// cp over the file: truncate, then the bytes in chunks. The host runs
	// its cached copy, so this write does not fail with "text file busy".
	writeInPlace(t, readPlugin(t, "versioned-v2"), path, os.O_TRUNC)
	res := waitVersion(t, tb, "v2")
	if res.Plugin.SHA256 != sha256File(t, filepath.Join(bin, "versioned-v2")) {
		t.Errorf("served by %+v", res.Plugin)
	}

	// Delete, then write a new file in chunks (as `go build -o` does when
	// its work dir is on another file system).
	v1 := readPlugin(t, "versioned-v1")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	writeInPlace(t, v1, path, os.O_CREATE|os.O_EXCL)
	waitVersion(t, tb, "v1")
	rls.waitCount(t, 2) // reported once the old process stopped
	for _, r := range rls.all() {
		if r.Err != "" || r.Change != toolbox.ChangeReplaced {
			t.Errorf("reload %+v: want replacements without failures", r)
		}
	}
	if n := rls.count(); n != 2 {
		t.Errorf("%d reloads, want 2", n)
	}
}

func TestReloadDrainsACallInFlight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	v1 := checkVersion(t, tb, "v1").Plugin

	started := make(chan struct{}, 1)
	done := make(chan tool.Result, 1)
	go func() {
		done <- tb.Call(context.Background(), tool.Call{CallID: "slow", Name: "slow_version", Args: `{"ms":1500}`, Progress: func(string) { started <- struct{}{} }})
	}()
	<-started
	install(t, "versioned-v2", dir, "versioned")
	waitVersion(t, tb, "v2")
	// While v2 serves, v1 still runs the slow call.
	if !alive(v1.PID) {
		t.Errorf("v1 (pid %d) stopped before its call ended", v1.PID)
	}
	// A caller whose tool list named v1 still reaches it while it drains.
	res := tb.Call(context.Background(), tool.Call{Name: "version", Args: `{}`, Plugin: v1})
	if res.IsError || res.Content != "v1" || res.Plugin.PID != v1.PID {
		t.Errorf("call listing v1 during its drain = %+v", res)
	}
	select {
	case res := <-done:
		if res.IsError || res.Content != "v1" || *res.Plugin != *v1 {
			t.Errorf("the call in flight during the reload = %+v, want v1 from %+v", res, v1)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the slow call did not return")
	}
	waitFor(t, "v1 to stop after its drain", func() bool { return !alive(v1.PID) })
	r := rls.waitCount(t, 1)
	if r.Err != "" || r.Interrupted != 0 || r.Elapsed(toolbox.StageDrain) < 500*time.Millisecond {
		t.Errorf("reload = %+v, want a drain of about a second", r)
	}
	// After the drain, a caller listing v1 is served by v2.
	res = tb.Call(context.Background(), tool.Call{Name: "version", Args: `{}`, Plugin: v1})
	if res.IsError || res.Content != "v2" {
		t.Errorf("call listing v1 after its drain = %+v", res)
	}
}

func TestReloadDrainTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cfg, rls := watchConfig(t, dir)
	cfg.DrainTimeout = 300 * time.Millisecond
	tb := open(t, cfg)
	v1 := checkVersion(t, tb, "v1").Plugin

	started := make(chan struct{}, 1)
	done := make(chan tool.Result, 1)
	go func() {
		done <- tb.Call(context.Background(), tool.Call{CallID: "slow", Name: "slow_version", Args: `{"ms":20000}`, Progress: func(string) { started <- struct{}{} }})
	}()
	<-started
	install(t, "versioned-v2", dir, "versioned")
	waitVersion(t, tb, "v2")
	select {
	case res := <-done:
		const want = "Error: plugin versioned was replaced or removed during the call, and the call did not end within 300ms; it was cancelled"
		if !res.IsError || res.Content != want || res.Plugin.PID != v1.PID {
			t.Errorf("the call outliving the drain = %+v, want %q", res, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the slow call was not cancelled")
	}
	if r := rls.waitCount(t, 1); r.Interrupted != 1 || r.Err != "" {
		t.Errorf("reload = %+v, want 1 interrupted call", r)
	}
	waitFor(t, "v1 to stop", func() bool { return !alive(v1.PID) })
}

func TestReloadBrokenKeepsTheOld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	v1 := checkVersion(t, tb, "v1").Plugin

	broken := []struct {
		name, content string
		stage, err    string
	}{
		{"shell script", "#!/bin/sh\necho hello\n", toolbox.StageStart, "not a harness plugin"},
		{"garbage", "\x7fELF garbage, not a program", toolbox.StageStart, "exec format error"},
		{"crash at start", "#!/bin/sh\necho dying >&2\nexit 3\n", toolbox.StageStart, "exited before its plugin handshake"},
		{"empty", "", toolbox.StageCopy, "empty"},
	}
	for i, b := range broken {
		tmp := filepath.Join(dir, ".new")
		if err := os.WriteFile(tmp, []byte(b.content), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "versioned")); err != nil {
			t.Fatal(err)
		}
		r := rls.waitCount(t, i+1)
		t.Logf("%s: stage %s: %s", b.name, r.Stage, r.Err)
		if r.Stage != b.stage || !strings.Contains(r.Err, b.err) || r.Change != toolbox.ChangeReplaced || r.FromSHA != v1.SHA256 {
			t.Errorf("%s: reload = %+v, want a failure in stage %s saying %q", b.name, r, b.stage, b.err)
		}
		if res := checkVersion(t, tb, "v1"); *res.Plugin != *v1 {
			t.Errorf("%s: served by %+v, want the old %+v", b.name, res.Plugin, v1)
		}
		info := pluginInfo(t, tb, "versioned")
		if info.Status != toolbox.StatusRunning || info.SHA256 != v1.SHA256 || info.LastReload == nil || info.LastReload.Err != r.Err {
			t.Errorf("%s: Plugins()[versioned] = %+v", b.name, info)
		}
	}
	if len(tb.Failures()) != 0 {
		t.Errorf("failures: %v", tb.Failures())
	}
	// A good version after the broken ones is taken.
	install(t, "versioned-v2", dir, "versioned")
	waitVersion(t, tb, "v2")
}

func TestReloadRemoveAndAdd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	install(t, "todo", dir, "todo")
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	v1 := checkVersion(t, tb, "v1").Plugin

	// Removed: the tools are withdrawn, the process stopped.
	if err := os.Remove(filepath.Join(dir, "versioned")); err != nil {
		t.Fatal(err)
	}
	r := rls.waitCount(t, 1)
	if r.Change != toolbox.ChangeRemoved || r.Err != "" || r.FromSHA != v1.SHA256 || r.ToSHA != "" {
		t.Errorf("removal = %+v", r)
	}
	if names := toolNames(tb.Tools()); !slices.Equal(names, []string{"todo_write"}) {
		t.Errorf("tools after the removal: %v", names)
	}
	if res := call(tb, "version", `{}`); res.Content != `Error: unknown tool "version"` {
		t.Errorf("call after the removal = %+v", res)
	}
	waitFor(t, "the removed plugin to stop", func() bool { return !alive(v1.PID) })
	for _, p := range tb.Plugins() {
		if p.Name == "versioned" {
			t.Errorf("Plugins lists the removed plugin: %+v", p)
		}
	}

	// Created again: back, with the new bytes.
	install(t, "versioned-v2", dir, "versioned")
	waitVersion(t, tb, "v2")
	if r := rls.waitCount(t, 2); r.Change != toolbox.ChangeAdded || r.Err != "" || r.FromSHA != "" {
		t.Errorf("re-creation = %+v", r)
	}

	// A new plugin file: its tools are added, in discovery order.
	install(t, "crashy", dir, "crashy")
	waitFor(t, "crashy's tools", func() bool { return slices.Contains(toolNames(tb.Tools()), "ok") })
	if res := call(tb, "ok", `{}`); res.IsError || res.Plugin.Name != "crashy" {
		t.Errorf("call to the added plugin = %+v", res)
	}
	var files []string
	for _, p := range tb.Plugins() {
		files = append(files, filepath.Base(p.Path))
	}
	if want := []string{"crashy", "todo", "versioned"}; !slices.Equal(files, want) {
		t.Errorf("Plugins in order %v, want %v", files, want)
	}
}

func TestReloadIgnoresEditorFilesAndSameBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	v1 := checkVersion(t, tb, "v1").Plugin

	for _, name := range []string{".versioned.swp", "versioned~", "versioned.tmp", "versioned-go-tmp-umask", ".hidden"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho x\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The same bytes again, renamed over (a no-op `go build`), then
	// touched.
	install(t, "versioned-v1", dir, "versioned")
	now := time.Now()
	if err := os.Chtimes(filepath.Join(dir, "versioned"), now, now); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * cfg.Debounce)
	if n := rls.count(); n != 0 {
		t.Errorf("%d reloads, want none: %+v", n, rls.all())
	}
	if len(tb.Failures()) != 0 {
		t.Errorf("failures: %v", tb.Failures())
	}
	if res := checkVersion(t, tb, "v1"); *res.Plugin != *v1 {
		t.Errorf("served by %+v, want the same process %+v", res.Plugin, v1)
	}
	if info := pluginInfo(t, tb, "versioned"); info.LastReload != nil {
		t.Errorf("last reload %+v, want none", info.LastReload)
	}
}

func TestReloadRefusesADuplicateTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "todo", dir, "todo")
	install(t, "versioned-v1", dir, "versioned")
	cfg, rls := watchConfig(t, dir)
	tb := open(t, cfg)
	checkVersion(t, tb, "v1")

	// The new version offers todo_write, the todo plugin's tool.
	install(t, "versioned-clash", dir, "versioned")
	r := rls.waitCount(t, 1)
	t.Logf("clash: %s", r.Err)
	if r.Stage != toolbox.StageDescribe || !strings.Contains(r.Err, `tool "todo_write" is already offered by `+filepath.Join(dir, "todo")) {
		t.Errorf("reload = %+v", r)
	}
	checkVersion(t, tb, "v1")
	if res := call(tb, "todo_write", todoArgs); res.IsError || res.Plugin.Name != "todo" {
		t.Errorf("todo_write = %+v", res)
	}
	exe := filepath.Join(cfg.CacheDir, sha256File(t, filepath.Join(bin, "versioned-clash")))
	waitFor(t, "the refused process to stop", func() bool { return len(runningFrom(exe)) == 0 })

	// A new file that clashes is a failure, as at Open.
	install(t, "dup", dir, "zdup")
	r = rls.waitCount(t, 2)
	if r.Change != toolbox.ChangeAdded || r.Stage != toolbox.StageDescribe {
		t.Errorf("new clashing file: reload = %+v", r)
	}
	fails := tb.Failures()
	if len(fails) != 1 || fails[0].Path != filepath.Join(dir, "zdup") || !strings.Contains(fails[0].Error(), "already offered") {
		t.Errorf("failures = %v", fails)
	}
	if info := tb.Plugins(); info[len(info)-1].Status != toolbox.StatusFailed || info[len(info)-1].LastReload == nil {
		t.Errorf("Plugins() = %+v", info)
	}
	// Removing it removes the failure.
	if err := os.Remove(filepath.Join(dir, "zdup")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the failure to go", func() bool { return len(tb.Failures()) == 0 })
}

func TestReloadWatchesADirCreatedLater(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "plugins")
	cfg, _ := watchConfig(t, dir)
	tb := open(t, cfg)
	if len(tb.Tools()) != 0 {
		t.Fatalf("tools: %v", toolNames(tb.Tools()))
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	install(t, "versioned-v1", dir, "versioned")
	waitVersion(t, tb, "v1")

	// The dir removed: its plugins go; created again: awaited and watched.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the tools to go", func() bool { return len(tb.Tools()) == 0 })
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	install(t, "versioned-v2", dir, "versioned")
	waitVersion(t, tb, "v2")
}

func TestCloseDuringAReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cfg, _ := watchConfig(t, dir)
	cfg.Debounce = time.Millisecond
	tb, err := toolbox.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	install(t, "versioned-v2", dir, "versioned")
	time.Sleep(10 * time.Millisecond)
	if err := tb.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, v := range []string{"versioned-v1", "versioned-v2"} {
		exe := filepath.Join(cfg.CacheDir, sha256File(t, filepath.Join(bin, v)))
		if pids := runningFrom(exe); len(pids) != 0 {
			t.Errorf("%s processes %v alive after Close", v, pids)
		}
	}
}

// TestReloadUnderLoad swaps v1 and v2 100 times (20 with -short) while 4
// goroutines call the plugin back to back: no call may fail.
func TestReloadUnderLoad(t *testing.T) {
	t.Parallel()
	n := 100
	if testing.Short() {
		n = 20
	}
	dir := t.TempDir()
	install(t, "versioned-v1", dir, "versioned")
	cfg, rls := watchConfig(t, dir)
	cfg.Debounce = 20 * time.Millisecond
	tb := open(t, cfg)
	checkVersion(t, tb, "v1")

	stats := load(tb, 4)
	begin := time.Now()
	for i := range n {
		next := "v2"
		if i%2 == 1 {
			next = "v1"
		}
		install(t, "versioned-"+next, dir, "versioned")
		rls.waitCount(t, i+1)
	}
	calls, failed, versions := stats.stop()
	t.Logf("%d reloads in %v; %d calls, %d failed, served by %v", n, time.Since(begin), calls, len(failed), versions)
	if len(failed) != 0 {
		t.Errorf("%d of %d calls failed; first: %+v", len(failed), calls, failed[0])
	}
	for _, r := range rls.all() {
		if r.Err != "" || r.Change != toolbox.ChangeReplaced {
			t.Errorf("reload %+v", r)
		}
	}
	if versions["v1"] == 0 || versions["v2"] == 0 {
		t.Errorf("served by %v, want both versions", versions)
	}
	if n := len(runningFrom(filepath.Join(cfg.CacheDir, sha256File(t, filepath.Join(bin, "versioned-v1"))))) +
		len(runningFrom(filepath.Join(cfg.CacheDir, sha256File(t, filepath.Join(bin, "versioned-v2"))))); n != 1 {
		t.Errorf("%d plugin processes running, want 1", n)
	}
}

// loadStats is a load of callers on tool version.
type loadStats struct {
	stopc  chan struct{}
	wg     sync.WaitGroup
	calls  atomic.Int64
	mu     sync.Mutex
	failed []tool.Result
	served map[string]int
}

// load starts n goroutines calling tool version back to back.
func load(tb *toolbox.Toolbox, n int) *loadStats {
	s := &loadStats{stopc: make(chan struct{}), served: map[string]int{}}
	for g := range n {
		s.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-s.stopc:
					return
				default:
				}
				res := tb.Call(context.Background(), tool.Call{
					SessionID: "s1", Caller: string(pluginapi.CallerAgent), CallID: fmt.Sprintf("c%d-%d", g, i),
					Name: "version", Args: `{}`,
				})
				s.calls.Add(1)
				s.mu.Lock()
				if res.IsError || (res.Content != "v1" && res.Content != "v2") {
					s.failed = append(s.failed, res)
				} else {
					s.served[res.Content]++
				}
				s.mu.Unlock()
			}
		})
	}
	return s
}

func (s *loadStats) stop() (calls int64, failed []tool.Result, served map[string]int) {
	close(s.stopc)
	s.wg.Wait()
	return s.calls.Load(), s.failed, s.served
}
