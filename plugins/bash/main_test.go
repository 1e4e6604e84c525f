//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// binary is the plugin built by TestMain, for the tests and benchmarks
// that launch it as the host does.
var binary string

func TestMain(m *testing.M) {
	if isInit(os.Args) { // the in-process plugins re-execute the test binary
		os.Exit(runInit(os.Args))
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
	c     *pluginapi.Client
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
		SessionID: c.session, Turn: 1, CallID: c.id, Cwd: f.cwd,
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

var (
	pgidRE = regexp.MustCompile(`pgid=(\d+)`)
	taskRE = regexp.MustCompile(`task (bash_\d+) \(process group (\d+)\)`)
)

// pgidIn finds "pgid=N" (echo pgid=$$) in a result.
func pgidIn(t testing.TB, s string) int {
	t.Helper()
	m := pgidRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no pgid= in %q", s)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

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

// within runs fn and fails the test if it takes longer than d.
func within(t testing.TB, d time.Duration, what string, fn func()) time.Duration {
	t.Helper()
	start := time.Now()
	fn()
	took := time.Since(start)
	if took > d {
		t.Errorf("%s took %v, want at most %v", what, took, d)
	}
	return took
}

// launch starts the built plugin as the host does, with extra
// environment, configured with a state dir.
func launch(t testing.TB, extraEnv ...string) (*pluginapi.Client, string) {
	t.Helper()
	c, err := pluginapi.Launch(context.Background(), pluginapi.LaunchConfig{Path: binary, Env: extraEnv})
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
