//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// binary is the plugin built by TestMain, for the tests and benchmarks
// that launch it as the host does.
var binary string

func TestMain(m *testing.M) {
	if isInit(os.Args) { // the in-process plugins re-execute the test binary
		os.Exit(runInit(os.Args))
	}
	if plugin := os.Getenv(envRefuseNamespaces); plugin != "" { // sandbox_test.go
		os.Exit(refuseNamespaces(plugin))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "bash-plugin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if prebuilt := os.Getenv("BASH_PLUGIN_TEST_BINARY"); prebuilt != "" {
		// A plugin built beforehand, to run the tests as a user without a
		// Go toolchain: go test -c, then run the test binary as that user.
		binary = prebuilt
		return m.Run()
	}
	binary = filepath.Join(dir, "bash")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build the plugin: %v\n", err)
		return 1
	}
	return m.Run()
}

// env is a plain environment for plugins served in process.
func env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8"}
}

// fixture is a plugin served in process with a state dir, and a session
// cwd.
type fixture struct {
	c     *pluginhost.Client
	state string
	cwd   string
}

func serve(t testing.TB, environ ...string) fixture {
	t.Helper()
	if environ == nil {
		environ = env()
	}
	f := fixture{state: t.TempDir(), cwd: t.TempDir()}
	f.c = plugintest.Start(t, newPlugin(environ, t.TempDir()).plugin(), plugintest.WithStateDir(f.state))
	return f
}

// call is one call; zero fields get defaults.
type call struct {
	tool    string // default bash
	args    map[string]any
	session string // default s1; "-" for none
	id      string // call id, default c-<test name>
	// sandbox is the host's sandbox for the call; nil: none sent.
	sandbox *pluginapi.CallSandbox
}

func (f fixture) req(t testing.TB, c call) pluginapi.CallRequest {
	if c.tool == "" {
		c.tool = toolBash
	}
	if c.tool == toolBash && c.args["description"] == nil {
		c.args["description"] = "run a test command"
	}
	req := pluginapi.CallRequest{
		Tool: c.tool, Args: plugintest.Args(t, c.args), Caller: pluginapi.CallerAgent,
		SessionID: c.session, Turn: 1, CallID: c.id, Cwd: f.cwd, Sandbox: c.sandbox,
	}
	switch c.session {
	case "":
		req.SessionID = "s1"
	case "-":
		req.SessionID, req.Caller = "", pluginapi.CallerNone
	}
	if req.CallID == "" {
		req.CallID = "c-" + strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
	}
	return req
}

func (f fixture) exec(t testing.TB, c call) pluginapi.Result {
	t.Helper()
	res, err := f.c.Execute(t.Context(), f.req(t, c), nil)
	if err != nil {
		t.Fatalf("execute %s: %v", c.tool, err)
	}
	return res
}

// sh runs a command line in the foreground.
func (f fixture) sh(t testing.TB, line string) pluginapi.Result {
	t.Helper()
	return f.exec(t, call{args: map[string]any{"command": line}})
}

var taskRE = regexp.MustCompile(`task (bash_\d+) \(process group (\d+)\)`)

// groupGone waits up to d for the group to have no live process.
func groupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// mustGone fails the test if the group outlives d, and kills it.
func mustGone(t testing.TB, pgid int, d time.Duration) {
	t.Helper()
	if !groupGone(pgid, d) {
		_ = signalGroup(pgid, 9)
		t.Errorf("process group %d survived", pgid)
	}
}

var sleeps atomic.Int64

// sleepArg is a sleep duration in seconds, past 5000, that no other
// process on the machine uses: the tests find their sleeps by argv (the
// pids inside a command's namespace mean nothing outside it).
func sleepArg() string {
	return fmt.Sprintf("%d.%d", 5000+sleeps.Add(1), os.Getpid())
}

// sleepers lists the live processes running `sleep arg` for any of args.
func sleepers(args ...string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue // gone, or a zombie
		}
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if len(argv) == 2 && filepath.Base(argv[0]) == "sleep" && slices.Contains(args, argv[1]) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitSleepers waits up to d for exactly want sleeps of args to run
// (want < 0: at least one).
func waitSleepers(t testing.TB, d time.Duration, want int, args ...string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		n := len(sleepers(args...))
		if n == want || want < 0 && n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes run sleep %v, want %d", n, args, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sleepersGone fails the test if a sleep of args outlives d, and kills
// it.
func sleepersGone(t testing.TB, d time.Duration, args ...string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		pids := sleepers(args...)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("%d processes running sleep %v survived", len(pids), args)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// within runs fn and fails the test if it takes longer than d.
//
// The bound is d plus hangSlack: what the tests rule out is waiting for
// what must not be waited for — the sleepers run for over an hour, the
// default timeout is 2 min — and d alone would flake on a loaded machine.
// How fast it really is, is the benchmarks' job.
func within(t testing.TB, d time.Duration, what string, fn func()) time.Duration {
	t.Helper()
	start := time.Now()
	fn()
	took := time.Since(start)
	if took > d+hangSlack {
		t.Errorf("%s took %v, want at most %v (+%v for a loaded machine)", what, took, d, hangSlack)
	}
	return took
}

// hangSlack is what within allows beyond its bound.
const hangSlack = 30 * time.Second

// launch starts the built plugin as the host does, with extra
// environment, configured with a state dir.
func launch(t testing.TB, extraEnv ...string) (*pluginhost.Client, string) {
	t.Helper()
	c, err := pluginhost.Launch(context.Background(), pluginhost.LaunchConfig{Path: binary, Env: extraEnv})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	state := t.TempDir()
	if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test", StateDir: state}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	return c, state
}
