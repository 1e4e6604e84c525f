package toolbox_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

// bin is the dir holding the plugin binaries TestMain built: the real
// plugins (todo, …) and the test plugins of testdata/.
var bin string

func TestMain(m *testing.M) {
	// the test binary is the keeper of the plugins the tests start, as
	// harness is of its own (host/keeper; testConfig's Supervisor)
	if code, ok := keeper.Main(os.Args); ok {
		os.Exit(code)
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolbox tests:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "toolbox-plugins-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	// Only the real plugins the tests use: another plugin being written
	// must not break these tests.
	pkgs := []string{"./plugins/todo"}
	fixtures, err := os.ReadDir("testdata")
	if err != nil {
		return 0, err
	}
	for _, e := range fixtures {
		if e.IsDir() {
			pkgs = append(pkgs, "./host/toolbox/testdata/"+e.Name())
		}
	}
	cmd := exec.Command("go", append([]string{"build", "-o", dir + "/"}, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build plugins: %v\n%s", err, out)
	}
	// proto2 speaks plugin protocol 2 only: pluginapi's test plugin for it.
	// pluginapi is its own module: build it from its folder.
	cmd = exec.Command("go", "build", "-o", filepath.Join(dir, "proto2"), "./testdata/v2plugin")
	cmd.Dir = filepath.Join(root, "pluginapi")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build proto2: %v\n%s", err, out)
	}
	// previewcount counts the Preview RPCs it gets (pluginapi's test
	// plugin, built in its module); previewcount-4 speaks minor 4.
	for name, x := range map[string]string{"previewcount": "", "previewcount-4": "-X main.minor=4"} {
		cmd = exec.Command("go", "build", "-ldflags", x, "-o", filepath.Join(dir, name), "./testdata/previewcount")
		cmd.Dir = filepath.Join(root, "pluginapi")
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("build %s: %v\n%s", name, err, out)
		}
	}
	if err := buildVariants(root, dir); err != nil {
		return 0, err
	}
	bin = dir
	return m.Run(), nil
}

// variants are builds of testdata/versioned for the reload tests: name →
// -X settings.
var variants = map[string]string{
	"versioned-v1":    "-X main.version=v1",
	"versioned-v2":    "-X main.version=v2",
	"versioned-clash": "-X main.version=clash -X main.tool=todo_write", // todo's tool
	"versioned-cwd":   "-X main.version=cwd -X main.write=cwd",         // writes its cwd
}

// buildVariants builds the variants of testdata/versioned into dir,
// concurrently (only the link differs).
func buildVariants(root, dir string) error {
	errs := make(chan error, len(variants))
	for name, x := range variants {
		go func() {
			cmd := exec.Command("go", "build", "-ldflags", x, "-o", filepath.Join(dir, name), "./host/toolbox/testdata/versioned")
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("build %s: %v\n%s", name, err, out)
			}
			errs <- err
		}()
	}
	var all []error
	for range variants {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a module")
	}
	return filepath.Dir(gomod), nil
}

// pluginDir returns a new dir holding the named built plugins (hard links,
// so never write to them; see copyPlugin).
func pluginDir(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.Link(filepath.Join(bin, n), filepath.Join(dir, n)); err != nil {
			copyPlugin(t, n, filepath.Join(dir, n))
		}
	}
	return dir
}

// copyPlugin copies the built plugin name to dst.
func copyPlugin(t testing.TB, name, dst string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(bin, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// logBuffer collects a toolbox's log; it is printed when the test fails.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// testConfig is a toolbox config for tests: a private cache, a log kept
// for failures, quick restarts.
func testConfig(t testing.TB, dirs ...string) toolbox.Config {
	t.Helper()
	logs := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("toolbox log:\n%s", logs)
		}
	})
	return toolbox.Config{
		Dirs:           dirs,
		CacheDir:       filepath.Join(t.TempDir(), "state", "plugins", "cache"),
		Logger:         hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug}),
		HostVersion:    "test",
		RestartBackoff: 5 * time.Millisecond,
		Supervisor:     supervise,
	}
}

// supervise is the supervisor harness runs plugins under (confine.Supervise):
// every test here runs its plugins under host/keeper.
func supervise(cmd *exec.Cmd) (pluginhost.Supervised, error) { return keeper.Wrap(cmd) }

func open(t testing.TB, cfg toolbox.Config) *toolbox.Toolbox {
	t.Helper()
	tb, err := toolbox.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return tb
}

func call(tb *toolbox.Toolbox, name, args string) tool.Result {
	return tb.Call(context.Background(), tool.Call{
		SessionID: "s1",
		Caller:    string(pluginapi.CallerAgent),
		Turn:      1,
		CallID:    "call-" + name,
		Name:      name,
		Args:      args,
		Cwd:       "/src",
	})
}

const todoArgs = `{"todos":[{"content":"write tests","status":"in_progress"},{"content":"  ship  ","status":"pending"}]}`

func toolNamed(t testing.TB, tb *toolbox.Toolbox, name string) tool.Tool {
	t.Helper()
	for _, tl := range tb.Tools() {
		if tl.Spec.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s in %v", name, toolNames(tb.Tools()))
	return tool.Tool{}
}

func toolNames(tools []tool.Tool) []string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Spec.Name)
	}
	return names
}

func pluginInfo(t testing.TB, tb *toolbox.Toolbox, name string) toolbox.PluginInfo {
	t.Helper()
	for _, p := range tb.Plugins() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no plugin %s in %+v", name, tb.Plugins())
	return toolbox.PluginInfo{}
}

// waitFor polls cond for up to 5 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// alive reports whether a process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// runningFrom returns the pids of live processes whose executable is exe.
func runningFrom(exe string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil && target == exe && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func sha256File(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestDiscoveryReportsWhatIsNotAPlugin(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "todo", "proto2")
	write := func(name, content string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("hello.sh", "#!/bin/sh\necho hello world\n", 0o755)
	write("notes.txt", "just some text\n", 0o755)
	write("README", "not executable\n", 0o644)
	write("todo~", "an editor backup\n", 0o755)
	write(".hidden", "#!/bin/sh\necho hidden\n", 0o755)
	cfg := testConfig(t, dir, filepath.Join(dir, "missing"))
	tb := open(t, cfg)

	want := map[string]string{ // file → what its one-line reason says
		"hello.sh":  "not a harness plugin",
		"notes.txt": "exec format error",
		"proto2":    "speaks plugin protocol 2; this harness speaks 1",
	}
	got := map[string]string{}
	for _, f := range tb.Failures() {
		msg := f.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("failure of %s is not one line: %q", f.Path, msg)
		}
		if !strings.HasPrefix(msg, f.Path+": ") {
			t.Errorf("failure %q does not start with its file", msg)
		}
		got[filepath.Base(f.Path)] = msg
		t.Logf("failure: %s", msg)
	}
	if len(got) != len(want) {
		t.Errorf("failures: %v, want one for each of %v", got, slices.Sorted(mapsKeys(want)))
	}
	for name, sub := range want {
		if !strings.Contains(got[name], sub) {
			t.Errorf("failure of %s = %q, want it to say %q", name, got[name], sub)
		}
	}
	var statuses []string
	for _, p := range tb.Plugins() {
		statuses = append(statuses, filepath.Base(p.Path)+"="+string(p.Status))
	}
	slices.Sort(statuses)
	if diff := cmp.Diff([]string{"hello.sh=failed", "notes.txt=failed", "proto2=failed", "todo=running"}, statuses); diff != "" {
		t.Errorf("Plugins statuses (-want +got):\n%s", diff)
	}
	// The toolbox works.
	if res := call(tb, "todo_write", todoArgs); res.IsError {
		t.Fatalf("todo_write: %+v", res)
	}
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestToolsListsTodoWrite(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, "todo")
	tb := open(t, testConfig(t, dir))
	tools := tb.Tools()
	if !slices.IsSortedFunc(tools, func(a, b tool.Tool) int { return strings.Compare(a.Spec.Name, b.Spec.Name) }) {
		t.Errorf("Tools not sorted: %v", toolNames(tools))
	}
	tw := toolNamed(t, tb, "todo_write")
	if tw.Plugin.Name != "todo" || tw.Plugin.Version == "" {
		t.Errorf("todo_write plugin ref = %+v", tw.Plugin)
	}
	if want := sha256File(t, filepath.Join(dir, "todo")); tw.Plugin.SHA256 != want {
		t.Errorf("todo_write sha256 = %s, want %s", tw.Plugin.SHA256, want)
	}
	if !alive(tw.Plugin.PID) {
		t.Errorf("todo_write pid %d is not a live process", tw.Plugin.PID)
	}
	if tw.Spec.Description == "" || !json.Valid(tw.Spec.Parameters) {
		t.Errorf("todo_write spec = %+v", tw.Spec)
	}
	// The caller owns the slice.
	tools[0].Spec.Name = "changed"
	if tb.Tools()[0].Spec.Name == "changed" {
		t.Errorf("Tools returned the snapshot's own slice")
	}
	info := pluginInfo(t, tb, "todo")
	if info.Status != toolbox.StatusRunning || info.PID != tw.Plugin.PID || info.SHA256 != tw.Plugin.SHA256 ||
		!slices.Contains(info.Tools, "todo_write") || info.Path != filepath.Join(dir, "todo") {
		t.Errorf("Plugins()[todo] = %+v", info)
	}
}

func TestTodoWriteThroughThePlugin(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "todo")))
	res := call(tb, "todo_write", todoArgs)
	if res.IsError || res.Content != "Updated todo list: 1 pending, 1 in progress, 0 completed." {
		t.Fatalf("todo_write = %+v", res)
	}
	if len(res.Events) != 1 || res.Events[0].Type != "todo/write" {
		t.Fatalf("events = %+v, want one todo/write", res.Events)
	}
	var data struct {
		Todos []pluginapi.Todo `json:"todos"`
	}
	if err := json.Unmarshal(res.Events[0].Data, &data); err != nil {
		t.Fatal(err)
	}
	want := []pluginapi.Todo{{Content: "write tests", Status: "in_progress"}, {Content: "ship", Status: "pending"}}
	if diff := cmp.Diff(want, data.Todos); diff != "" {
		t.Errorf("todo/write todos (-want +got):\n%s", diff)
	}
	if ref := toolNamed(t, tb, "todo_write").Plugin; res.Plugin == nil || *res.Plugin != *ref {
		t.Errorf("result plugin = %+v, want %+v", res.Plugin, ref)
	}

	// A failure the model can act on is an error result without events.
	res = call(tb, "todo_write", `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`)
	if !res.IsError || !strings.HasPrefix(res.Content, "Error: ") || len(res.Events) != 0 {
		t.Errorf("two in progress = %+v", res)
	}
}

func TestCallRefusals(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "todo", "badevent")))
	tests := map[string]struct {
		tool, args string
		want       string // the whole content
		plugin     string // the result's plugin name; "" for none
	}{
		"unknown tool":       {tool: "nope", args: `{}`, want: `Error: unknown tool "nope"`},
		"args array":         {tool: "todo_write", args: `[1]`, want: "Error: invalid arguments: want a JSON object, got an array", plugin: "todo"},
		"args broken":        {tool: "todo_write", args: `{"todos":`, want: "Error: invalid arguments: not valid JSON", plugin: "todo"},
		"undeclared event":   {tool: "undeclared", args: `{}`, want: `Error: plugin badevent proposed an undeclared event type "other/thing"`, plugin: "badevent"},
		"event data array":   {tool: "array", args: `{}`, want: `Error: plugin badevent proposed a "badevent/ok" event whose data is not a JSON object`, plugin: "badevent"},
		"declared event ok!": {tool: "good", args: ``, want: "good", plugin: "badevent"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := call(tb, tt.tool, tt.args)
			if res.Content != tt.want {
				t.Errorf("content = %q, want %q", res.Content, tt.want)
			}
			if ok := tt.want == "good"; res.IsError == ok || (len(res.Events) == 1) != ok {
				t.Errorf("isError = %v, %d events", res.IsError, len(res.Events))
			}
			if got := pluginName(res); got != tt.plugin {
				t.Errorf("result plugin = %q, want %q", got, tt.plugin)
			}
		})
	}
}

func pluginName(r tool.Result) string {
	if r.Plugin == nil {
		return ""
	}
	return r.Plugin.Name
}

func TestCrashMidCall(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "crashy")))
	pid := toolNamed(t, tb, "crash").Plugin.PID
	res := call(tb, "crash", `{}`)
	const want = "Error: plugin crashy crashed during the call: "
	t.Logf("crash result: %s", res.Content)
	if !res.IsError || !strings.HasPrefix(res.Content, want) || !strings.Contains(res.Content, "crashy: out of cheese, exiting") {
		t.Fatalf("crash = %q, want %q + the stderr line", res.Content, want)
	}
	if len(res.Content) > 600 {
		t.Errorf("crash result is %d bytes long", len(res.Content))
	}
	if res.Plugin == nil || res.Plugin.PID != pid {
		t.Errorf("crash result plugin = %+v, want pid %d", res.Plugin, pid)
	}
	if info := pluginInfo(t, tb, "crashy"); info.Status != toolbox.StatusStopped || !strings.Contains(info.Err, "out of cheese") {
		t.Errorf("after the crash, Plugins()[crashy] = %+v", info)
	}

	// The next call restarts it.
	res = call(tb, "ok", `{}`)
	if res.IsError || !strings.HasPrefix(res.Content, "ok from ") {
		t.Fatalf("ok after crash = %+v", res)
	}
	newPID := toolNamed(t, tb, "ok").Plugin.PID
	if newPID == pid || res.Plugin.PID != newPID || res.Content != "ok from "+strconv.Itoa(newPID) {
		t.Errorf("after restart: pid %d (was %d), result %+v", newPID, pid, res)
	}
	if info := pluginInfo(t, tb, "crashy"); info.Status != toolbox.StatusRunning || info.PID != newPID {
		t.Errorf("after the restart, Plugins()[crashy] = %+v", info)
	}
}

func TestPanicIsAnErrorResult(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "panicky")))
	pid := toolNamed(t, tb, "panic").Plugin.PID
	for range 2 {
		res := call(tb, "panic", `{}`)
		if !res.IsError || !strings.Contains(res.Content, "panicked") || !strings.Contains(res.Content, "boom in "+strconv.Itoa(pid)) {
			t.Fatalf("panic = %+v", res)
		}
	}
	if info := pluginInfo(t, tb, "panicky"); info.Status != toolbox.StatusRunning || info.PID != pid {
		t.Errorf("after panics, Plugins()[panicky] = %+v (pid was %d)", info, pid)
	}
}

func TestKilledBetweenCalls(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "todo")))
	pid := toolNamed(t, tb, "todo_write").Plugin.PID
	if res := call(tb, "todo_write", todoArgs); res.IsError {
		t.Fatalf("first call: %+v", res)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the toolbox to notice the exit", func() bool {
		return pluginInfo(t, tb, "todo").Status == toolbox.StatusStopped
	})
	res := call(tb, "todo_write", todoArgs)
	if res.IsError || len(res.Events) != 1 {
		t.Fatalf("call after kill = %+v", res)
	}
	if res.Plugin.PID == pid || res.Plugin.PID != toolNamed(t, tb, "todo_write").Plugin.PID {
		t.Errorf("served by pid %d; killed %d; listed %d", res.Plugin.PID, pid, toolNamed(t, tb, "todo_write").Plugin.PID)
	}
}

func TestConcurrentCallsShareOneRestart(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "crashy")))
	pid := toolNamed(t, tb, "ok").Plugin.PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the toolbox to notice the exit", func() bool {
		return pluginInfo(t, tb, "crashy").Status == toolbox.StatusStopped
	})
	results := make([]tool.Result, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i] = call(tb, "ok", `{}`) })
	}
	wg.Wait()
	pids := map[int]bool{}
	for _, r := range results {
		if r.IsError {
			t.Fatalf("call after kill = %+v", r)
		}
		pids[r.Plugin.PID] = true
	}
	if len(pids) != 1 || pids[pid] {
		t.Errorf("served by pids %v (killed %d), want one new process", pids, pid)
	}
}

func TestBreakerDisablesACrashLoop(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, pluginDir(t, "crashy"))
	cfg.RestartBackoff = time.Millisecond
	tb := open(t, cfg)
	for i := range 5 {
		res := call(tb, "crash", `{}`)
		if !strings.HasPrefix(res.Content, "Error: plugin crashy crashed during the call: ") {
			t.Fatalf("crash %d = %q", i+1, res.Content)
		}
	}
	const want = "Error: plugin crashy is disabled after 5 crashes in 60s; see the log (harness plugins)"
	for _, name := range []string{"ok", "crash"} {
		if res := call(tb, name, `{}`); res.Content != want || !res.IsError {
			t.Errorf("%s after 5 crashes = %q, want %q", name, res.Content, want)
		}
	}
	if info := pluginInfo(t, tb, "crashy"); info.Status != toolbox.StatusDisabled || info.PID != 0 {
		t.Errorf("Plugins()[crashy] = %+v, want disabled", info)
	}
	// Its tools stay listed, so a call says why it fails.
	if !slices.Contains(toolNames(tb.Tools()), "ok") {
		t.Errorf("tools of a disabled plugin vanished: %v", toolNames(tb.Tools()))
	}
}

// TestDuplicateToolRefused: two plugin files offering one tool name are
// both refused, whatever the dir order, so that a plugin in an earlier dir
// cannot take over another's tool (a third-party "bash" that needs no
// permission): each failure names the other file, the tool is not listed,
// and neither process runs on.
func TestDuplicateToolRefused(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"todo first", "dup first"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			todo, dup := pluginDir(t, "todo"), pluginDir(t, "dup")
			dirs := []string{todo, dup}
			if order == "dup first" {
				dirs = []string{dup, todo}
			}
			cfg := testConfig(t, dirs...)
			tb := open(t, cfg)
			fails := tb.Failures()
			if len(fails) != 2 {
				t.Fatalf("failures = %v, want both files", fails)
			}
			for _, f := range fails {
				msg := f.Error()
				for _, s := range []string{filepath.Join(dup, "dup"), filepath.Join(todo, "todo"), `"todo_write"`, "neither is used"} {
					if !strings.Contains(msg, s) {
						t.Errorf("failure %q does not name %s", msg, s)
					}
				}
			}
			if names := toolNames(tb.Tools()); slices.Contains(names, "todo_write") {
				t.Errorf("todo_write is listed (%v): a clash must leave it to neither", names)
			}
			for _, f := range []string{filepath.Join(dup, "dup"), filepath.Join(todo, "todo")} {
				exe := filepath.Join(cfg.CacheDir, sha256File(t, f))
				waitFor(t, "the refused plugins to stop", func() bool { return len(runningFrom(exe)) == 0 })
			}
		})
	}
}

func TestCancelDuringACall(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, pluginDir(t, "slow")))
	pid := toolNamed(t, tb, "sleep").Plugin.PID
	ctx, cancel := context.WithCancel(context.Background())
	progress := make(chan string, 10)
	done := make(chan tool.Result)
	go func() {
		done <- tb.Call(ctx, tool.Call{CallID: "c1", Name: "sleep", Args: `{}`, Progress: func(s string) { progress <- s }})
	}()
	select {
	case p := <-progress:
		if p != "sleeping" {
			t.Errorf("progress = %q", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no progress from the slow call")
	}
	begin := time.Now()
	cancel()
	select {
	case res := <-done:
		if !res.IsError || res.Content != "Error: cancelled" {
			t.Errorf("cancelled call = %+v", res)
		}
		if d := time.Since(begin); d > time.Second {
			t.Errorf("the cancelled call returned after %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	// A cancelled ctx before the call: no plugin is reached.
	if res := tb.Call(ctx, tool.Call{Name: "sleep", Args: `{}`}); res.Content != "Error: cancelled" {
		t.Errorf("call with a done ctx = %+v", res)
	}
	// Cancelling is not a crash.
	if info := pluginInfo(t, tb, "slow"); info.Status != toolbox.StatusRunning || info.PID != pid {
		t.Errorf("after cancel, Plugins()[slow] = %+v", info)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	t.Parallel()
	tb, err := toolbox.Open(context.Background(), testConfig(t, pluginDir(t, "todo", "crashy", "slow")))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range tb.Plugins() {
		if p.PID == 0 {
			t.Fatalf("plugin %s has no pid: %+v", p.Name, p)
		}
		pids = append(pids, p.PID)
	}
	// A call in flight when Close runs ends with an error result.
	done := make(chan tool.Result)
	go func() { done <- call(tb, "sleep", `{}`) }()
	time.Sleep(50 * time.Millisecond)
	if err := tb.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("plugin pid %d is alive after Close", pid)
		}
	}
	select {
	case res := <-done:
		if !res.IsError {
			t.Errorf("call in flight at Close = %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight did not return after Close")
	}
	if err := tb.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if res := call(tb, "todo_write", todoArgs); res.Content != "Error: the toolbox is closed" {
		t.Errorf("call after Close = %+v", res)
	}
}

func TestRunsTheCachedCopy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	orig := filepath.Join(dir, "todo")
	copyPlugin(t, "todo", orig)
	cfg := testConfig(t, dir)
	tb := open(t, cfg)
	ref := toolNamed(t, tb, "todo_write").Plugin
	exe, err := os.Readlink("/proc/" + strconv.Itoa(ref.PID) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cfg.CacheDir, ref.SHA256); exe != want {
		t.Errorf("plugin runs %s, want %s", exe, want)
	}
	// Overwrite the discovered file in place, as cp does (same inode,
	// O_TRUNC): no "text file busy", because that is not what runs.
	f, err := os.OpenFile(orig, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatalf("open the original for writing while the plugin runs: %v", err)
	}
	if _, err := f.WriteString("#!/bin/sh\necho replaced\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if res := call(tb, "todo_write", todoArgs); res.IsError {
		t.Fatalf("call after overwriting the original: %+v", res)
	}
	// A restart runs the cached copy, not the new bytes.
	if err := syscall.Kill(ref.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the toolbox to notice the exit", func() bool {
		return pluginInfo(t, tb, "todo").Status == toolbox.StatusStopped
	})
	if res := call(tb, "todo_write", todoArgs); res.IsError || res.Plugin.SHA256 != ref.SHA256 {
		t.Fatalf("call after restart: %+v", res)
	}
}

func TestOpenWithoutCacheDir(t *testing.T) {
	t.Parallel()
	if _, err := toolbox.Open(context.Background(), toolbox.Config{Dirs: []string{t.TempDir()}}); err == nil {
		t.Fatal("Open without a cache dir succeeded")
	}
}

func TestOpenEmpty(t *testing.T) {
	t.Parallel()
	tb := open(t, testConfig(t, filepath.Join(t.TempDir(), "none")))
	if len(tb.Tools()) != 0 || len(tb.Plugins()) != 0 || len(tb.Failures()) != 0 {
		t.Errorf("empty toolbox: %v %v %v", tb.Tools(), tb.Plugins(), tb.Failures())
	}
	if res := call(tb, "todo_write", `{}`); res.Content != `Error: unknown tool "todo_write"` {
		t.Errorf("call = %+v", res)
	}
}

func TestRestartPolicy(t *testing.T) {
	t.Parallel()
	t.Run("long backoff fails the call", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, pluginDir(t, "crashy"))
		cfg.RestartBackoff = 3 * time.Second
		cfg.MaxRestartWait = time.Millisecond
		tb := open(t, cfg)
		call(tb, "crash", `{}`)
		res := call(tb, "ok", `{}`)
		if want := "Error: plugin crashy is restarting after a crash; try again in 3s"; res.Content != want {
			t.Errorf("call during backoff = %q, want %q", res.Content, want)
		}
	})
	t.Run("short backoff waits", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, pluginDir(t, "crashy"))
		cfg.RestartBackoff = 300 * time.Millisecond
		tb := open(t, cfg)
		call(tb, "crash", `{}`)
		begin := time.Now()
		if res := call(tb, "ok", `{}`); res.IsError {
			t.Fatalf("call after the backoff = %+v", res)
		}
		if d := time.Since(begin); d < 250*time.Millisecond {
			t.Errorf("the restart came %v after the crash, before the backoff", d)
		}
	})
	t.Run("failed restart", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, pluginDir(t, "todo"))
		tb := open(t, cfg)
		ref := toolNamed(t, tb, "todo_write").Plugin
		if err := os.Remove(filepath.Join(cfg.CacheDir, ref.SHA256)); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(ref.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the toolbox to notice the exit", func() bool {
			return pluginInfo(t, tb, "todo").Status == toolbox.StatusStopped
		})
		res := call(tb, "todo_write", todoArgs)
		t.Logf("failed restart: %s", res.Content)
		if !res.IsError || !strings.HasPrefix(res.Content, "Error: plugin todo could not be restarted: ") {
			t.Errorf("call = %q", res.Content)
		}
		for range 10 {
			res = call(tb, "todo_write", todoArgs)
		}
		if want := "Error: plugin todo is disabled after 5 crashes in 60s; see the log (harness plugins)"; res.Content != want {
			t.Errorf("call after failed restarts = %q, want %q", res.Content, want)
		}
		if info := pluginInfo(t, tb, "todo"); info.Status != toolbox.StatusDisabled || !strings.Contains(info.Err, "could not be restarted") {
			t.Errorf("Plugins()[todo] = %+v", info)
		}
	})
	t.Run("close during a restart", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, pluginDir(t, "todo"))
		tb, err := toolbox.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		ref := toolNamed(t, tb, "todo_write").Plugin
		syscall.Kill(ref.PID, syscall.SIGKILL)
		done := make(chan struct{})
		go func() {
			defer close(done)
			call(tb, "todo_write", todoArgs)
		}()
		time.Sleep(10 * time.Millisecond)
		if err := tb.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		<-done
		if pids := runningFrom(filepath.Join(cfg.CacheDir, ref.SHA256)); len(pids) != 0 {
			t.Errorf("plugin processes %v alive after Close", pids)
		}
	})
}
