package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/keeper"
	"github.com/harness-dev/harness/host/session/natsstore/natstest"
	"github.com/harness-dev/harness/host/settings/paths"
	"github.com/harness-dev/harness/internal/logtest"
)

// harness runs the command in process with the given environment and
// returns its exit code, stdout and stderr.
func harness(t *testing.T, envs map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := envs[k]; return v, ok }
	code := run(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb}, lookup)
	return code, out.String(), errb.String()
}

// testTemp is the folder that holds what the tests build once per run
// (the plugins, the installed layout, the kit's plugins); TestMain makes
// it the temp dir ($TMPDIR) of the tests and removes it when they end.
var testTemp string

// systemTemp is the temp dir the tests were started with, for what
// another user must reach (testTemp is private to this user).
var systemTemp = os.TempDir()

func TestMain(m *testing.M) {
	// the test binary is the keeper of the plugins, harness-llm and MCP
	// servers the tests start in this process, as harness is of its own
	// (host/keeper)
	// the test binary runs harness with user namespaces refused for the
	// escape suite (sandbox_escape_linux_test.go)
	if code, ok := escapeNoUserNSHelper(); ok {
		os.Exit(code)
	}
	if code, ok := keeper.Main(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(runTests(m))
}

// runTests runs the tests with testTemp set and removes it afterwards; it
// returns the exit code, so that the removal runs before os.Exit.
func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "harness-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmd/harness tests:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	testTemp = dir
	// Everything else the tests and the processes they start put in the
	// temp dir (go-plugin's sockets, the Node client's folders) goes
	// there too, and so is removed with it.
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintln(os.Stderr, "cmd/harness tests:", err)
		return 2
	}
	// HARNESS_TEST_STORE=nats runs the harness processes the tests start
	// with their environment on a shared store: an embedded NATS server
	// (CI's JetStream row).
	if os.Getenv("HARNESS_TEST_STORE") == "nats" {
		srv, err := natstest.StartProcess(natstest.Config{Dir: filepath.Join(dir, "nats")})
		if err != nil {
			fmt.Fprintln(os.Stderr, "cmd/harness tests:", err)
			return 2
		}
		defer srv.Stop()
		os.Setenv("HARNESS_STORE", srv.URL())
	}
	return m.Run()
}

// testTempDir makes a new folder under testTemp, for a build shared by
// the tests of this run.
func testTempDir(pattern string) (string, error) {
	return os.MkdirTemp(testTemp, pattern)
}

// staticBuild is `go build args...` as the README builds: static binaries
// (CGO_ENABLED=0).
func staticBuild(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	return cmd
}

// builtPlugins builds the real plugin binaries once per test run.
var builtPlugins struct {
	once sync.Once
	dir  string
	err  error
}

// testPlugins returns a folder holding the real plugins, built from
// ./plugins/... — the load path users have.
func testPlugins(t testing.TB) string {
	t.Helper()
	builtPlugins.once.Do(func() {
		// Next to this test binary, where an installed harness has its
		// plugins: harness run in process (harness()) takes them for its
		// built-ins, as a user's harness does the plugins it ships with.
		dirs, err := paths.PluginDirs("")
		if err == nil {
			err = os.Mkdir(dirs[0], 0o700)
		}
		if err != nil {
			builtPlugins.err = fmt.Errorf("make the test's plugin dir: %w", err)
			return
		}
		dir := dirs[0]
		out, err := staticBuild("-o", dir+"/", "../../plugins/...").CombinedOutput()
		if err != nil {
			builtPlugins.err = fmt.Errorf("go build plugins: %v\n%s", err, out)
			return
		}
		builtPlugins.dir = dir
		// A harness binary run from elsewhere takes them for third
		// parties': trusted with what they declare, as their user would.
		builtPlugins.err = trustPlugins(dir, realPlugins...)
	})
	if builtPlugins.err != nil {
		t.Fatal(builtPlugins.err)
	}
	return builtPlugins.dir
}

// trustPlugins runs `harness plugins trust` in process for each plugin
// file name of dir, as a user trusting them with what they declare does:
// outside the folder next to harness, plugins that declare more than the
// default are not started until then.
func trustPlugins(dir string, names ...string) error {
	for _, name := range names {
		var errb bytes.Buffer
		if code := run(context.Background(), []string{"plugins", "trust", "--plugin-dir", dir, name},
			stdio{in: strings.NewReader(""), out: io.Discard, err: &errb}, func(string) (string, bool) { return "", false }); code != 0 {
			return fmt.Errorf("harness plugins trust %s: %s", name, errb.String())
		}
	}
	return nil
}

// realPlugins are the plugins of ./plugins, which a harness started with
// the installed layout runs.
var realPlugins = []string{"bash", "fs", "subagent", "todo"}

// builtInstall is the README's install, built once per test run.
var builtInstall struct {
	once sync.Once
	bin  string
	err  error
}

// installedHarness builds the README's install into a temp dir —
// bin/harness, bin/harness-llm (the SDK providers) and the plugins in
// bin/plugins/, static — and
// returns bin/harness. Started without --plugin-dir or $HARNESS_PLUGIN_DIR
// (see installedEnv), it runs the real plugins as a user's does.
func installedHarness(t testing.TB) string {
	t.Helper()
	builtInstall.once.Do(func() {
		dir, err := testTempDir("harness-install-")
		if err != nil {
			builtInstall.err = err
			return
		}
		bin := filepath.Join(dir, "bin")
		for _, args := range [][]string{{"-o", bin + "/", "../../cmd/..."}, {"-o", bin + "/plugins/", "../../plugins/..."}} {
			if out, err := staticBuild(args...).CombinedOutput(); err != nil {
				builtInstall.err = fmt.Errorf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
				return
			}
		}
		for _, p := range realPlugins {
			if _, err := os.Stat(filepath.Join(bin, "plugins", p)); err != nil {
				builtInstall.err = fmt.Errorf("the install lacks the %s plugin: %w", p, err)
				return
			}
		}
		builtInstall.bin = filepath.Join(bin, "harness")
	})
	if builtInstall.err != nil {
		t.Fatal(builtInstall.err)
	}
	return builtInstall.bin
}

// installedEnv is the environment of an installed harness: this process's
// without the HARNESS_ settings (so that it finds the plugins next to
// itself), with the state dir state.
func installedEnv(state string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HARNESS_") {
			env = append(env, kv)
		}
	}
	return append(env, "HARNESS_STATE_DIR="+state, "NO_COLOR=1")
}

func writeScript(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunScript(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state") // harness creates it
	script := writeScript(t,
		`{"reasoning":"thinking hard","text":"Hello from the script.","expect":{"lastRole":"user","lastContains":"say hello"}}`,
		`{"text":"Second answer.","expect":{"lastRole":"user","lastContains":"again"}}`,
	)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script}
	code, out, errOut := harness(t, env, "run", "say hello")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "Hello from the script.") || !strings.Contains(out, "thinking hard") {
		t.Errorf("stdout lacks the streamed answer:\n%s", out)
	}
	evs, path := logtest.ReadLog(t, state)
	// The session's permission mode and model first: the log alone tells
	// them.
	want := []string{"session", "permission/mode", "sandbox/policy", "config/option", "turn/start", "user/message", "step/start", "assistant/message", "step/end", "turn/end"}
	if got := logtest.Types(evs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("log types = %v, want %v", got, want)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("session file mode = %v (%v), want 0600", st.Mode().Perm(), err)
	}
	for _, dir := range []string{state, filepath.Join(state, "sessions")} {
		if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v), want 0700", dir, st.Mode().Perm(), err)
		}
	}

	// Continue the same session: the script's second line expects the new
	// prompt last; a fresh process would restart the script, so use a new
	// one-line script.
	id := evs[0]["id"].(string)
	env["HARNESS_SCRIPT"] = writeScript(t, `{"text":"Second answer.","expect":{"lastRole":"user","lastContains":"again"}}`)
	code, out, errOut = harness(t, env, "run", "--session", id, "say it again")
	if code != 0 {
		t.Fatalf("second turn: exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "Second answer.") {
		t.Errorf("second turn stdout:\n%s", out)
	}
	evs, _ = logtest.ReadLog(t, state)
	if last := evs[len(evs)-1]; last["type"] != "turn/end" || last["data"].(map[string]any)["turn"] != float64(2) {
		t.Errorf("last event = %v, want turn/end of turn 2", last)
	}

	code, out, _ = harness(t, env, "sessions")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "say hello") {
		t.Errorf("sessions: exit %d\n%s", code, out)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		env      map[string]string
		args     []string
		wantCode int
		wantErr  string
		oneLine  bool // a usage error that is one line too
	}{
		"missing deepseek key": {
			args: []string{"run", "hi"}, wantCode: exitFailed,
			wantErr: "set DEEPSEEK_API_KEY",
		},
		"missing key mentions local servers": {
			args: []string{"run", "hi"}, wantCode: exitFailed,
			wantErr: "--provider openai --base-url",
		},
		"openai needs a model for a local server": {
			env:  map[string]string{"HARNESS_PROVIDER": "openai", "HARNESS_BASE_URL": "http://127.0.0.1:1/v1"},
			args: []string{"run", "hi"}, wantCode: exitFailed, wantErr: "needs a model",
		},
		"script needs a file": {
			args: []string{"run", "--provider", "script", "hi"}, wantCode: exitFailed, wantErr: "--script FILE",
		},
		"unknown provider": {
			args: []string{"run", "--provider", "nope", "hi"}, wantCode: exitUsage, wantErr: `unknown provider "nope"`,
		},
		"no prompt": {
			args: []string{"run"}, wantCode: exitUsage, wantErr: "no prompt",
		},
		"unknown session": {
			env:  map[string]string{"HARNESS_PROVIDER": "script"},
			args: []string{"run", "--session", "nope", "hi"}, wantCode: exitFailed, wantErr: `no session "nope"`,
		},
		"unknown command": {
			args: []string{"frobnicate"}, wantCode: exitUsage, wantErr: `unknown command "frobnicate"`,
		},
		"bad max steps": {
			env:  map[string]string{"HARNESS_MAX_STEPS": "lots"},
			args: []string{"run", "hi"}, wantCode: exitUsage, wantErr: `HARNESS_MAX_STEPS: "lots" is not a whole number`,
		},
		"bad max steps flag": {
			args: []string{"run", "--max-steps", "lots", "hi"}, wantCode: exitUsage, oneLine: true,
			wantErr: `harness: --max-steps: "lots" is not a whole number; see the flags with harness run -h`,
		},
		"bad plugin idle flag": {
			args: []string{"run", "--plugin-idle", "xx", "hi"}, wantCode: exitUsage, oneLine: true,
			wantErr: `harness: --plugin-idle: "xx" is not a duration such as 90s or 10m; see the flags with harness run -h`,
		},
		"unknown flag": {
			args: []string{"sessions", "--nope"}, wantCode: exitUsage, oneLine: true,
			wantErr: `harness: unknown flag --nope; see the flags with harness sessions -h`,
		},
		"flag without its value": {
			args: []string{"run", "--max-steps"}, wantCode: exitUsage, oneLine: true,
			wantErr: `harness: --max-steps needs a value; see the flags with harness run -h`,
		},
		"bad bool flag": {
			args: []string{"plugins", "check", "--yes=maybe", "x"}, wantCode: exitUsage, oneLine: true,
			wantErr: `--yes: "maybe" is not true or false; see the flags with harness plugins check -h`,
		},
		"bad log level names its source": {
			env:  map[string]string{"HARNESS_LOG_LEVEL": "loud"},
			args: []string{"run", "hi"}, wantCode: exitUsage, wantErr: `HARNESS_LOG_LEVEL: unknown log level "loud"`,
		},
		"bad sandbox names its source": {
			env:  map[string]string{"HARNESS_SANDBOX": "bogus"},
			args: []string{"run", "hi"}, wantCode: exitUsage, oneLine: true,
			wantErr: `harness: HARNESS_SANDBOX: unknown sandbox mode "bogus" (want workspace-write, read-only or off)`,
		},
		"bad sandbox network flag": {
			args: []string{"run", "--sandbox-network", "maybe", "hi"}, wantCode: exitUsage, oneLine: true,
			wantErr: `harness: --sandbox-network: network allow-list: "maybe": not off, on, or a host with a domain`,
		},
		"bad log level flag names its source": {
			args: []string{"plugins", "check", "--log-level", "loud", "x"}, wantCode: exitUsage, wantErr: `--log-level: unknown log level "loud"`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"HARNESS_STATE_DIR": t.TempDir()}
			for k, v := range tc.env {
				env[k] = v
			}
			if env["HARNESS_PROVIDER"] == "script" && tc.wantErr != "--script FILE" {
				env["HARNESS_SCRIPT"] = writeScript(t, `{"text":"unused"}`)
			}
			code, _, errOut := harness(t, env, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, errOut)
			}
			if !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errOut)
			}
			if strings.HasSuffix(strings.TrimSpace(errOut), ": usage") {
				t.Errorf("the error ends in the internal marker \": usage\":\n%s", errOut)
			}
			if lines := strings.Count(strings.TrimSpace(errOut), "\n"); (tc.wantCode == exitFailed || tc.oneLine) && lines > 0 {
				t.Errorf("error is %d lines, want one:\n%s", lines+1, errOut)
			}
		})
	}
}

// TestHelpPrintsFlags: -h and --help print the command's flags, exit 0.
func TestHelpPrintsFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"run", "-h"}, {"run", "--help"}, {"sessions", "-h"}, {"plugins", "check", "--help"}} {
		code, _, errOut := harness(t, map[string]string{"HARNESS_STATE_DIR": t.TempDir()}, args...)
		if code != exitOK || !strings.Contains(errOut, "Usage: harness "+args[0]) || !strings.Contains(errOut, "-state-dir") {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, errOut)
		}
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	code, out, errOut := harness(t, map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t)}, "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"Show me how you work", "[~] Look at the working directory", "[x] Summarize",
		"→ echo \"bash runs in", "TERM=dumb", "→ Subagent: ", "[explain the session log] ",
		"Updated todo list: 0 pending, 0 in progress, 3 completed.", "session log", "jq"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	evs, _ := logtest.ReadLog(t, state)
	all := strings.Join(logtest.Types(evs), " ")
	if n := strings.Count(all, "turn/end"); n != 2 {
		t.Errorf("demo logged %d turns, want 2", n)
	}
	if n := strings.Count(all, "todo/write"); n != 4 {
		t.Errorf("demo logged %d todo/write events, want 4", n)
	}
	if sessions, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl")); len(sessions) != 2 {
		t.Errorf("demo left %d session logs, want the session and its subagent's", len(sessions))
	}
}

// TestSessionsPricedByTheirLog: harness sessions prices each session by
// the model its log says it used, not the provider configured now: the
// demo's and a script run's sessions have no price under the default
// provider (DeepSeek) either; a session that ran on deepseek-chat has
// DeepSeek's under --provider script; an old log that names no model has
// none.
func TestSessionsPricedByTheirLog(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t)}
	if code, out, errOut := harness(t, env, "demo"); code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	run := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PROVIDER": "script",
		"HARNESS_SCRIPT": writeScript(t, `{"text":"ok","usage":{"input":1000000,"output":10}}`)}
	if code, _, errOut := harness(t, run, "run", "scripted run"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	// Logs written by hand: one on deepseek-chat, one from before sessions
	// recorded their model.
	logs := map[string]string{
		"20260101T000000-deepseek": `{"seq":0,"time":"2026-01-01T00:00:01Z","type":"config/option","data":{"id":"model","value":"deepseek-chat","provider":"deepseek","by":"host"}}`,
		"20260101T000000-oldlog":   `{"seq":0,"time":"2026-01-01T00:00:01Z","type":"permission/mode","data":{"mode":"ask","by":"host"}}`,
	}
	for id, first := range logs {
		prompt := strings.TrimPrefix(id, "20260101T000000-") + " prompt"
		lines := []string{
			`{"type":"session","version":1,"id":"` + id + `","createdAt":"2026-01-01T00:00:00Z","cwd":"/"}`, first,
			`{"seq":1,"time":"2026-01-01T00:00:02Z","type":"turn/start","data":{"turn":1}}`,
			`{"seq":2,"time":"2026-01-01T00:00:02Z","type":"user/message","data":{"content":[{"type":"text","text":"` + prompt + `"}]}}`,
			`{"seq":3,"time":"2026-01-01T00:00:03Z","type":"turn/end","data":{"turn":1,"reason":"completed","usage":{"inputTokens":1000000,"outputTokens":10}}}`,
		}
		if err := os.WriteFile(filepath.Join(state, "sessions", id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"sessions"}, {"sessions", "--provider", "script"}} {
		code, out, errOut := harness(t, map[string]string{"HARNESS_STATE_DIR": state}, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		for prompt, priced := range map[string]bool{"Show me how you work": false, "In two sentences": false,
			"scripted run": false, "deepseek prompt": true, "oldlog prompt": false} {
			i := strings.Index(out, prompt)
			if i < 0 {
				t.Errorf("%v lacks the session of %q:\n%s", args, prompt, out)
				continue
			}
			line := out[strings.LastIndex(out[:i], "\n")+1 : i]
			if strings.Contains(line, "$") != priced {
				t.Errorf("%v: the session of %q is priced %v, want %v:\n%s", args, prompt, !priced, priced, line)
			}
		}
	}
}

func TestDemoWithoutPluginsFails(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_PLUGIN_DIR": t.TempDir()}
	code, _, errOut := harness(t, env, "demo")
	if code != exitFailed || !strings.Contains(errOut, "the demo needs the todo_write tool") || !strings.Contains(errOut, "go build -o bin/plugins/ ./plugins/...") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestInterrupt runs the real binary, presses Ctrl-C while the model
// streams, and checks the turn is logged as cancelled with exit status 130.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin := harnessBin(t)
	state := t.TempDir()
	script := writeScript(t, `{"text":"I am about to think for a long time","hang":true}`)
	cmd := exec.Command(bin, "run", "--provider", "script", "--script", script, "--state-dir", state, "wait for it")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the model's first words are on screen, then press Ctrl-C.
	r := bufio.NewReader(stdout)
	got := make(chan string, 1)
	go func() {
		var b strings.Builder
		for {
			c, err := r.ReadByte()
			if err != nil {
				got <- b.String()
				return
			}
			b.WriteByte(c)
			if strings.Contains(b.String(), "long time") {
				got <- b.String()
				return
			}
		}
	}()
	select {
	case s := <-got:
		if !strings.Contains(s, "long time") {
			t.Fatalf("harness stopped before streaming: %q; stderr:\n%s", s, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no output from harness")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitCancelled {
		t.Fatalf("wait: %v, want exit %d; stderr:\n%s", err, exitCancelled, stderr.String())
	}
	evs, _ := logtest.ReadLog(t, state)
	last := evs[len(evs)-1]
	if last["type"] != "turn/end" || last["data"].(map[string]any)["reason"] != "cancelled" {
		t.Errorf("last event = %v, want turn/end cancelled", last)
	}
}
