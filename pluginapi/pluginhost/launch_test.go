package pluginhost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/pluginapi"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
	"github.com/harness-dev/harness/pluginapi/plugintest"
)

// launch starts a plugin binary and closes it when the test ends.
func launch(t testing.TB, name string, mod ...func(*pluginhost.LaunchConfig)) *pluginhost.Client {
	t.Helper()
	cfg := pluginhost.LaunchConfig{Path: bin(name), Name: name, Logger: testLogger(t)}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := pluginhost.Launch(t.Context(), cfg)
	if err != nil {
		t.Fatalf("launch %s: %v", name, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testLogger(t testing.TB) hclog.Logger {
	if !testing.Verbose() {
		return hclog.NewNullLogger()
	}
	w := &logWriter{t: t}
	t.Cleanup(func() { w.done.Store(true) })
	return hclog.New(&hclog.LoggerOptions{Level: hclog.Debug, Output: w})
}

func call(tool, args string) pluginapi.CallRequest {
	return pluginapi.CallRequest{Tool: tool, Args: json.RawMessage(args), Caller: pluginapi.CallerAgent, SessionID: "s1", Turn: 1, CallID: "call-" + tool}
}

// TestLaunchTodo takes the real todo plugin through its whole life:
// launch, describe, configure, execute, close.
func TestLaunchTodo(t *testing.T) {
	t.Parallel()
	c := launch(t, "todo")
	pid := c.PID()
	if pid <= 0 {
		t.Fatalf("PID %d", pid)
	}
	d, err := c.Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "todo" || d.Version != "1.0.0" || len(d.Tools) != 1 || d.Tools[0].Name != "todo_write" || d.ProtocolMinor != pluginapi.ProtocolMinor {
		t.Errorf("Describe = %+v", d)
	}
	if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test", LogLevel: "debug", Host: &plugintest.FakeHost{}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Execute(t.Context(), call("todo_write", `{"todos":[{"content":"a","status":"in_progress"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Content != "Updated todo list: 0 pending, 1 in progress, 0 completed." || len(res.Events) != 1 || res.Events[0].Type != "todo/write" {
		t.Errorf("Execute = %+v", res)
	}

	// The runner's promises, seen from outside.
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		t.Errorf("process group %d (%v), want its own, %d", pgid, err, pid)
	}
	socketDir := ""
	if env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil {
		vars := strings.Split(string(env), "\x00")
		for _, kv := range vars {
			if v, ok := strings.CutPrefix(kv, "PLUGIN_UNIX_SOCKET_DIR="); ok {
				socketDir = v
			}
		}
		if !slices.Contains(vars, pluginapi.EnvExitOnStdinEOF+"=1") {
			t.Errorf("no %s=1 in the plugin's environment", pluginapi.EnvExitOnStdinEOF)
		}
		if socketDir == "" {
			t.Error("no PLUGIN_UNIX_SOCKET_DIR in the plugin's environment")
		} else if fi, err := os.Stat(socketDir); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm() != 0o700 {
			t.Errorf("socket folder %s is %v, want 0700", socketDir, fi.Mode().Perm())
		}
		for fd, want := range map[string]string{"0": "pipe:", "1": "pipe:", "2": "pipe:"} {
			link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd)
			if err != nil || !strings.HasPrefix(link, want) {
				t.Errorf("plugin fd %s is %q (%v), want a pipe", fd, link, err)
			}
		}
	}

	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	select {
	case <-c.Exited():
	default:
		t.Error("Exited not closed after Close")
	}
	if socketDir != "" {
		if _, err := os.Stat(socketDir); !os.IsNotExist(err) {
			t.Errorf("socket folder %s still there after Close (%v)", socketDir, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Execute(t.Context(), call("todo_write", `{"todos":[]}`), nil); err == nil {
		t.Error("Execute after Close succeeded")
	}
}

func TestConformanceLaunched(t *testing.T) {
	t.Parallel()
	plugintest.Conformance(t, launch(t, "todo"))
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plug")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLaunchErrors(t *testing.T) {
	t.Parallel()
	notExec := filepath.Join(t.TempDir(), "text")
	if err := os.WriteFile(notExec, []byte("just text\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		timeout time.Duration
		kind    pluginhost.StartErrorKind
		msg     string
	}{
		{name: "prints garbage", path: writeScript(t, "echo hi"), kind: pluginhost.StartNotPlugin,
			msg: `x is not a harness plugin: it printed "hi" instead of the plugin handshake`},
		{name: "not executable format", path: notExec, kind: pluginhost.StartNotPlugin,
			msg: `x is not a harness plugin: the system cannot execute it (exec format error)`},
		{name: "exits silently", path: writeScript(t, "echo 'cannot load libfoo.so' >&2; exit 4"), kind: pluginhost.StartExited,
			msg: `plugin x exited before its handshake (exit status 4): cannot load libfoo.so`},
		{name: "another program's plugin", path: writeScript(t, "echo 'This binary is a plugin. These are not meant to be executed directly.' >&2; exit 1"), kind: pluginhost.StartNotPlugin,
			msg: `x is not a harness plugin: it is a go-plugin plugin of another program (it wants another magic cookie)`},
		{name: "protocol 2", path: bin("v2plugin"), kind: pluginhost.StartVersion,
			msg: `plugin x speaks plugin protocol 2; this harness speaks 1`},
		{name: "hangs", path: writeScript(t, "exec sleep 30"), timeout: 300 * time.Millisecond, kind: pluginhost.StartTimeout,
			msg: `plugin x did not complete its handshake within 300ms`},
		{name: "missing", path: filepath.Join(t.TempDir(), "nope"), kind: pluginhost.StartSpawn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			c, err := pluginhost.Launch(t.Context(), pluginhost.LaunchConfig{Path: tt.path, Name: "x", StartTimeout: tt.timeout, Logger: testLogger(t)})
			if err == nil {
				c.Close()
				t.Fatal("Launch succeeded")
			}
			var se *pluginhost.StartError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v, want *StartError", err, err)
			}
			if se.Kind != tt.kind {
				t.Errorf("kind %s, want %s (%v)", se.Kind, tt.kind, err)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("message\n got %s\nwant %s", err, tt.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message has several lines: %q", err)
			}
			if tt.kind == pluginhost.StartVersion && (len(se.PluginVersions) != 1 || se.PluginVersions[0] != 2) {
				t.Errorf("PluginVersions %v, want [2]", se.PluginVersions)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Launch took %v", d)
			}
		})
	}
}

func TestLaunchCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := pluginhost.Launch(ctx, pluginhost.LaunchConfig{Path: writeScript(t, "exec sleep 30")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the context's", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Launch took %v after its context ended", d)
	}
}

// TestPanicSurvives: a handler's panic is an error Result and the process
// goes on serving.
func TestPanicSurvives(t *testing.T) {
	t.Parallel()
	c := launch(t, "testplugin")
	pid := c.PID()
	res, err := c.Execute(t.Context(), call("panic", `{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Content != "Error: tool panic panicked: boom" {
		t.Errorf("got %+v", res)
	}
	res, err = c.Execute(t.Context(), call("echo", `{"text":"again"}`), nil)
	if err != nil || res.IsError || res.Content != `{"text":"again"}` {
		t.Errorf("second call: %+v, %v", res, err)
	}
	if c.PID() != pid {
		t.Errorf("pid changed")
	}
	if tail := strings.Join(c.StderrTail(), "\n"); !strings.Contains(tail, "tool panicked") || !strings.Contains(tail, "goroutine") {
		t.Errorf("the panic and its stack are not in the plugin's log:\n%s", tail)
	}
}

// TestExitMidCall: a plugin that dies during a call gives an ExitError
// naming its last words, then every later call fails at once.
func TestExitMidCall(t *testing.T) {
	t.Parallel()
	c := launch(t, "testplugin")
	_, err := c.Execute(t.Context(), call("exit", `{}`), nil)
	var ee *pluginhost.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err %T %v, want *ExitError", err, err)
	}
	if !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "exit status 3") || ee.PID != c.PID() {
		t.Errorf("err %q, want the exit status and the last stderr line", err)
	}
	select {
	case <-c.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("Exited not closed")
	}
	// A call on a dead plugin fails at once with its exit, rather than
	// waiting on a connection (2 s: a bound for a loaded machine, far
	// under any transport timeout).
	start := time.Now()
	if _, err := c.Execute(t.Context(), call("echo", `{}`), nil); !errors.As(err, &ee) || time.Since(start) > 2*time.Second {
		t.Errorf("call on a dead plugin: %v after %v", err, time.Since(start))
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close of a dead plugin: %v", err)
	}
}

// TestCloseStubborn: a plugin that leaves a child holding its pipes (which
// blocks go-plugin's Kill) is killed with its whole group within
// StopTimeout.
func TestCloseStubborn(t *testing.T) {
	t.Parallel()
	const stop = 300 * time.Millisecond
	c := launch(t, "testplugin", func(cfg *pluginhost.LaunchConfig) {
		cfg.StopTimeout = stop
		cfg.Env = append(cfg.Env, "TESTPLUGIN_IGNORE_TERM=1")
	})
	pid := c.PID()
	res, err := c.Execute(t.Context(), call("spawn", `{}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("spawn: %+v, %v", res, err)
	}
	child, _ := strconv.Atoi(res.Content)
	start := time.Now()
	_ = c.Close()
	if d := time.Since(start); d > stop+time.Second {
		t.Errorf("Close took %v, want at most %v", d, stop+time.Second)
	}
	if !groupGone(pid) {
		t.Errorf("process group %d (with child %d) still there", pid, child)
	}
}

func TestHostServicesLaunched(t *testing.T) {
	t.Parallel()
	c := launch(t, "testplugin")
	host := &plugintest.FakeHost{Todos: []pluginapi.Todo{{Content: "a", Status: "pending"}}, Cwd: "/work"}
	if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{Host: host}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Execute(t.Context(), call("state", `{}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("%+v, %v", res, err)
	}
	if want := `{"Todos":[{"content":"a","status":"pending"}],"Cwd":"/work"}`; res.Content != want {
		t.Errorf("got %s, want %s", res.Content, want)
	}
}

// TestCancel: Cancel(call id) and the caller's context both stop a running
// call promptly, and the plugin goes on.
func TestCancel(t *testing.T) {
	t.Parallel()
	c := launch(t, "testplugin")
	progress := make(chan string, 10)
	done := make(chan pluginapi.Result, 1)
	go func() {
		res, err := c.Execute(t.Context(), call("sleep", `{}`), func(s string) { progress <- s })
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	if p := <-progress; p != "sleeping" {
		t.Errorf("progress %q", p)
	}
	if err := c.Cancel(t.Context(), "call-sleep"); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Content != "cancelled" {
			t.Errorf("got %+v", res)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Cancel did not stop the call")
	}

	// (A cancel, not a deadline: with a deadline the plugin learns it too
	// and may answer first, which is a fine outcome but not this test's.)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Execute(ctx, call("sleep", `{}`), nil)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("err %v after %v, want the context's, promptly", err, time.Since(start))
	}
	if _, err := c.Describe(t.Context()); err != nil {
		t.Errorf("plugin gone after a cancelled call: %v", err)
	}
}

// TestExitOnStdinEOF: a plugin exits when the host's end of its stdin pipe
// closes, as when the host dies.
func TestExitOnStdinEOF(t *testing.T) {
	t.Parallel()
	c := launch(t, "todo")
	// Close the host's end of stdin only: the plugin exiting on its own
	// shows that its watchdog works.
	closeStdin(t, c)
	select {
	case <-c.Exited():
	case <-time.After(3 * time.Second):
		t.Fatal("the plugin did not exit when its stdin closed")
	}
}

func TestDescribeFlag(t *testing.T) {
	t.Parallel()
	out, err := execOutput(bin("todo"), pluginapi.DescribeFlag)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Name  string
		Tools []struct {
			Name       string
			Parameters json.RawMessage
		}
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d.Name != "todo" || len(d.Tools) != 1 || d.Tools[0].Name != "todo_write" || pluginapi.CheckSchema(d.Tools[0].Parameters) != nil {
		t.Errorf("got %s", out)
	}
}

// TestHostDeath: when the host is SIGKILLed, its plugins die too (Pdeathsig
// on Linux, EOF on the stdin pipe, the parent watch).
func TestHostDeath(t *testing.T) {
	t.Parallel()
	host, pid := startHost(t, "PLUGINAPI_TEST_HOST="+bin("todo"))
	if !groupLive(pid) {
		t.Fatal("the plugin is not running")
	}
	killHost(t, host)
	if !groupGone(pid) {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		t.Fatalf("plugin %d outlived its host", pid)
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogsForwarded: the plugin's log lines reach the host's logger, named
// after the plugin, at their level; the level the host asks for applies.
func TestLogsForwarded(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Name: "harness", Level: hclog.Info, Output: &buf, JSONFormat: true})
	c := launch(t, "testplugin", func(cfg *pluginhost.LaunchConfig) { cfg.Logger = logger })
	if _, err := c.Execute(t.Context(), call("panic", `{}`), nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	var found bool
	for _, line := range strings.Split(buf.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if m["@message"] == "tool panicked" {
			found = true
			if m["@module"] != "testplugin.panic" || m["@level"] != "error" || m["call_id"] != "call-panic" {
				t.Errorf("forwarded as %s", line)
			}
		}
		if m["@level"] == "debug" || m["@level"] == "trace" {
			t.Errorf("a line below the host's level: %s", line)
		}
	}
	if !found {
		t.Errorf("the plugin's log line is not in the host's log:\n%s", buf.String())
	}
}

// TestHooksLaunched: a launched plugin sees the state dir the host gave,
// hears SessionClosed, and runs OnExit when the host closes it or goes
// away (stdin EOF).
func TestHooksLaunched(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"close", "stdin"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			hooks := filepath.Join(t.TempDir(), "hooks")
			c := launch(t, "testplugin", func(cfg *pluginhost.LaunchConfig) {
				cfg.Env = append(cfg.Env, "TESTPLUGIN_HOOKS_FILE="+hooks)
			})
			state := t.TempDir()
			if err := c.Configure(t.Context(), pluginapi.ConfigureRequest{HostVersion: "test", StateDir: state}); err != nil {
				t.Fatal(err)
			}
			res, err := c.Execute(t.Context(), call("dirs", `{}`), nil)
			if want := state + "|" + filepath.Join(state, "sessions", "s1"); err != nil || res.Content != want {
				t.Errorf("dirs = %+v, %v; want %q", res, err, want)
			}
			if err := c.SessionClosed(t.Context(), "s1"); err != nil {
				t.Errorf("SessionClosed: %v", err)
			}
			switch how {
			case "close":
				_ = c.Close()
			case "stdin":
				closeStdin(t, c)
			}
			select {
			case <-c.Exited():
			case <-time.After(3 * time.Second):
				t.Fatal("the plugin did not exit")
			}
			b, _ := os.ReadFile(hooks)
			if got, want := string(b), "session closed s1\nexit\n"; got != want {
				t.Errorf("hooks saw %q, want %q", got, want)
			}
		})
	}
}
