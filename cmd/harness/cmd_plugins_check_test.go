//go:build unix

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/plugincheck"
	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/pluginapi"
)

// repoRoot is the module root, seen from cmd/harness.
const repoRoot = "../.."

// Where the third-party kit lives.
const (
	pluginDoc     = repoRoot + "/docs/plugins.md"
	jsonqExample  = repoRoot + "/examples/plugins/jsonq"
	digestExample = repoRoot + "/examples/plugins/node-digest"
)

// builtOnce caches a binary built once per test process.
type builtOnce struct {
	once sync.Once
	path string
	err  error
}

// Binaries shared by the tests of this file.
var (
	builtV2     builtOnce
	builtTest   builtOnce
	builtJSONQ  builtOnce
	builtDigest builtOnce
)

// get builds with build on first use and returns the binary.
func (b *builtOnce) get(t testing.TB, build func() (string, error)) string {
	t.Helper()
	b.once.Do(func() { b.path, b.err = build() })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// goBuild runs go build -o <a temp dir>/ in dir for pkg and returns the
// binary named name. The go command keeps the user's GOPROXY and
// GOMODCACHE, so that it works on an empty module cache too; the temp dir
// is removed when the tests end (TestMain).
func goBuild(dir, pkg, name string, env ...string) (string, error) {
	return goBuildEnv(dir, pkg, name, append(os.Environ(), append([]string{"GOWORK=off"}, env...)...))
}

// goBuildEnv is goBuild with the go command's whole environment.
func goBuildEnv(dir, pkg, name string, env []string) (string, error) {
	out, err := testTempDir("harness-kit-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", out+string(filepath.Separator), pkg)
	cmd.Dir = dir
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s in %s: %v\n%s", pkg, dir, err, b)
	}
	return filepath.Join(out, name), nil
}

// v2Plugin is pluginapi's test plugin that speaks plugin protocol 2 only.
func v2Plugin(t *testing.T) string {
	return builtV2.get(t, func() (string, error) {
		return goBuild(repoRoot+"/pluginapi", "./testdata/v2plugin", "v2plugin")
	})
}

// jsonqPlugin builds examples/plugins/jsonq as a third party does: a
// copy outside the repository, in its own module, requiring the tagged SDK
// (served by sdkProxy, see TestThirdPartyPath) with no replace directive.
func jsonqPlugin(t *testing.T) string {
	version := requiredSDK(t, jsonqExample)
	env := kitEnv(t, version)
	mod := copyOutside(t, jsonqExample)
	return builtJSONQ.get(t, func() (string, error) {
		dl := exec.Command("go", "mod", "download", sdkModule)
		dl.Dir, dl.Env = mod, env
		if out, err := dl.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go mod download %s: %v\n%s", sdkModule, err, out)
		}
		return goBuildEnv(mod, ".", "jsonq", env)
	})
}

// digestPlugin installs the Node example's packages (npm ci, on first use
// and when its package-lock.json changes) and bundles it into one
// executable file. It needs Node ≥ 20 and npm, as the ACP editor tests do.
func digestPlugin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs npm and Node")
	}
	node := nodeTool(t, "the Node plugin tests (examples/plugins/node-digest)")
	return builtDigest.get(t, func() (string, error) {
		if err := npmCI(digestExample); err != nil {
			return "", err
		}
		dir, err := testTempDir("harness-node-plugin-")
		if err != nil {
			return "", err
		}
		out := filepath.Join(dir, "digest")
		cmd := exec.Command(node, "build.mjs", out)
		cmd.Dir = digestExample
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("bundle the Node plugin (node build.mjs): %v\n%s", err, b)
		}
		return out, nil
	})
}

// nodeTool returns the node binary, failing the test without Node ≥ 20
// and npm — what names the tests that need them; they are part of the
// suite (go test -short leaves them out).
func nodeTool(t *testing.T, what string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found in PATH: %s need Node.js ≥ 20 and npm; install them (e.g. apt-get install nodejs npm) or run go test -short", what)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	major := 0
	if m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(bytes.TrimSpace(out)); m != nil {
		major, _ = strconv.Atoi(string(m[1]))
	}
	if major < 20 {
		t.Fatalf("node %s is too old: %s need Node.js ≥ 20", bytes.TrimSpace(out), what)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatalf("npm not found in PATH: %s install their packages with npm ci", what)
	}
	return node
}

// npmCI runs npm ci in dir unless its node_modules matches its
// package-lock.json, under a file lock shared with other test processes.
func npmCI(dir string) error {
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("lock the npm install of %s: %w", dir, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock the npm install of %s: %w", dir, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	lockfile, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(lockfile)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", ".harness-installed")
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s (needs the npm registry): %v\n%s", dir, err, out)
	}
	return os.WriteFile(stamp, []byte(want), 0o600)
}

// pluginDirWith returns a fresh plugin dir holding copies of the binaries.
func pluginDirWith(t *testing.T, bins ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plugins")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, b := range bins {
		copyFile(t, b, filepath.Join(dir, filepath.Base(b)))
		// Installed by a user who trusts it with what it declares; one
		// that cannot be described (another protocol, a broken binary: what
		// some of these tests are about) is left untrusted, and fails as
		// it would anyway.
		_ = trustPlugins(dir, filepath.Base(b))
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// wantChecksPass fails unless `harness plugins check path` passed every
// check, each reported on one PASS line.
func wantChecksPass(t *testing.T, path, plugin string) {
	t.Helper()
	code, out, errOut := harness(t, map[string]string{}, "plugins", "check", path)
	if code != exitOK {
		t.Fatalf("harness plugins check %s: exit %d\n%s\n%s", path, code, out, errOut)
	}
	for _, check := range []string{"launch", "describe", "registration", "configure", "schemas", "unknown_argument", "unknown_tool", "cancelled", "shutdown"} {
		if !regexp.MustCompile(`(?m)^PASS  ` + check + ` `).MatchString(out) {
			t.Errorf("no PASS line for %s:\n%s", check, out)
		}
	}
	if !strings.Contains(out, "ok: "+plugin+" passed 9 checks") {
		t.Errorf("no summary line for %s:\n%s", plugin, out)
	}
}

// sessionTurn runs one turn of a new session whose cwd is cwd, with the
// plugins of pluginDir and a script model, and returns the session's
// events.
func sessionTurn(t *testing.T, pluginDir, cwd string, script ...string) []map[string]any {
	t.Helper()
	state := t.TempDir()
	id := storedSession(t, state, cwd)
	env := map[string]string{
		"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": pluginDir,
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": writeScript(t, script...),
	}
	code, out, errOut := harness(t, env, "run", "--session", id, "use the tool")
	if code != exitOK {
		t.Fatalf("harness run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	evs, _ := logtest.ReadLog(t, state)
	return evs
}

// toolCall returns the data of the session's only tool/call and
// tool/result events.
func toolCall(t *testing.T, evs []map[string]any) (call, result map[string]any) {
	t.Helper()
	for _, e := range evs {
		switch e["type"] {
		case "tool/call":
			call = e["data"].(map[string]any)
		case "tool/result":
			result = e["data"].(map[string]any)
		}
	}
	if call == nil || result == nil {
		t.Fatalf("no tool/call and tool/result in %v", logtest.Types(evs))
	}
	return call, result
}

// servedBy fails unless the tool/call names the plugin that served it.
func servedBy(t *testing.T, call map[string]any, name, bin string) {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	p, _ := call["plugin"].(map[string]any)
	if p["name"] != name || p["sha256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("tool/call plugin = %v, want %s with the binary's sha256", p, name)
	}
}

// TestPluginsCheck runs `harness plugins check` on plugins that pass and
// on files that are not plugins, or not plugins of this protocol.
func TestPluginsCheck(t *testing.T) {
	t.Parallel()
	plugins := testPlugins(t)
	notPlugin := filepath.Join(t.TempDir(), "hello")
	if err := os.WriteFile(notPlugin, []byte("#!/bin/sh\necho hello\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(notExec, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		"the real plugins pass": {
			args: []string{filepath.Join(plugins, "todo"), filepath.Join(plugins, "bash")},
			wantOut: []string{"ok: todo 1.0.0 passed 9 checks", "ok: bash 1.0.0 passed 9 checks",
				"PASS  describe ", "todo 1.0.0, protocol 1.5, tools: todo_write; events: todo/write; capabilities: default"},
		},
		"another protocol version names both": {
			args: []string{v2Plugin(t)}, wantCode: exitFailed,
			wantOut: []string{"FAIL  launch ", "plugin v2plugin speaks plugin protocol 2; this harness speaks 1",
				"FAILED: v2plugin did not start, so nothing else was checked"},
			wantErr: "v2plugin does not pass the plugin checks",
		},
		"not a plugin": {
			args: []string{notPlugin}, wantCode: exitFailed,
			wantOut: []string{`hello is not a harness plugin: it printed "hello" instead of the plugin handshake`},
		},
		"missing": {
			args: []string{notPlugin + "-nope"}, wantCode: exitFailed,
			wantOut: []string{"cannot run " + notPlugin + "-nope: no such file or directory"},
		},
		"not executable": {
			args: []string{notExec}, wantCode: exitFailed,
			wantOut: []string{"is not executable (chmod +x it"},
		},
		"one of several fails": {
			args: []string{filepath.Join(plugins, "todo"), notPlugin}, wantCode: exitFailed,
			wantOut: []string{"ok: todo 1.0.0 passed"},
			wantErr: "1 of 2 plugins do not pass the plugin checks: " + notPlugin,
		},
		"no path": {
			args: nil, wantCode: exitUsage, wantErr: "no plugin to check",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := harness(t, map[string]string{}, append([]string{"plugins", "check"}, tc.args...)...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, out, errOut)
			}
			for _, want := range tc.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errOut)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if line != "" && !regexp.MustCompile(`^(PASS|FAIL|SKIP|    ) |^(checking|ok:|FAILED:|its last stderr lines:|  )`).MatchString(line) {
					t.Errorf("stray report line %q", line)
				}
			}
		})
	}
}

// TestPluginsCheckCatchesBreakage runs the checks on pluginapi's test
// plugin, whose exit tool kills the process mid-check: the failing check
// says why, the later ones are skipped, and the plugin's last words are
// shown.
func TestPluginsCheckCatchesBreakage(t *testing.T) {
	t.Parallel()
	bin := builtTest.get(t, func() (string, error) {
		return goBuild(repoRoot+"/pluginapi", "./testdata/testplugin", "testplugin")
	})
	code, out, _ := harness(t, map[string]string{}, "plugins", "check", bin)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d:\n%s", code, exitFailed, out)
	}
	for _, want := range []string{
		"PASS  unknown_argument ",
		"FAIL  cancelled ",
		"tool exit, cancelled 20ms into the call: want a Result after Cancel, got execute exit: plugin testplugin",
		"exited (exit status 3): disk on fire",
		"SKIP  shutdown               -  the plugin had exited already",
		"FAILED: testplugin 0.0.1 failed 1 of 8 checks",
		"its last stderr lines:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestPluginsListVersionMismatch: a plugin of another protocol version in
// a plugin dir is listed as failed, naming both versions.
func TestPluginsListVersionMismatch(t *testing.T) {
	t.Parallel()
	dir := pluginDirWith(t, v2Plugin(t), filepath.Join(testPlugins(t), "todo"))
	code, out, errOut := harness(t, map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_PLUGIN_DIR": dir, "HARNESS_LOG_LEVEL": "off"}, "plugins")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if want := filepath.Join(dir, "v2plugin") + ": speaks plugin protocol 2; this harness speaks 1"; !strings.Contains(out, want) {
		t.Errorf("harness plugins lacks %q:\n%s", want, out)
	}
	if !regexp.MustCompile(`(?m)^todo +1\.0\.0 .* (running|not started) `).MatchString(out) {
		t.Errorf("the todo plugin does not run next to it:\n%s", out)
	}
}

// TestExamplePlugin builds examples/plugins/jsonq in its own module, as a
// third party's plugin, checks it, and has a session call it.
func TestExamplePlugin(t *testing.T) {
	t.Parallel()
	bin := jsonqPlugin(t)
	wantChecksPass(t, bin, "jsonq 0.1.0")

	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "package.json"), []byte(`{"dependencies":{"react":"19.1.0"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	evs := sessionTurn(t, pluginDirWith(t, bin), cwd,
		`{"toolCalls":[{"id":"q1","name":"json_query","args":{"file":"package.json","path":".dependencies.react"}}]}`,
		`{"text":"React 19.1.0.","expect":{"lastRole":"tool","lastContains":"\"19.1.0\""}}`)
	call, result := toolCall(t, evs)
	if result["content"] != `"19.1.0"` || result["isError"] == true {
		t.Errorf("tool/result = %v", result)
	}
	servedBy(t, call, "jsonq", bin)
}

// TestNodePlugin bundles the Node.js example, checks it with the same
// conformance suite as Go plugins, and has a session call it.
func TestNodePlugin(t *testing.T) {
	t.Parallel()
	bin := digestPlugin(t)
	wantChecksPass(t, bin, "digest 0.1.0")

	evs := sessionTurn(t, pluginDirWith(t, bin), t.TempDir(),
		`{"toolCalls":[{"id":"d1","name":"digest","args":{"text":"hello"}}]}`,
		`{"text":"Done.","expect":{"lastRole":"tool","lastContains":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}}`)
	call, result := toolCall(t, evs)
	if want := "sha256 of 5 bytes (UTF-8), hex: 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"; result["content"] != want {
		t.Errorf("tool/result content %q, want %q", result["content"], want)
	}
	servedBy(t, call, "digest", bin)
}

// TestNodePluginProcess checks the Node plugin's process contract where
// the checks cannot see it: it refuses to run by hand, prints exactly the
// handshake line with a socket in $PLUGIN_UNIX_SOCKET_DIR, and exits when
// its stdin closes (the host died).
func TestNodePluginProcess(t *testing.T) {
	t.Parallel()
	bin := digestPlugin(t)
	out, err := exec.Command(bin).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "digest is a harness plugin") {
		t.Errorf("run by hand: %v\n%s", err, out)
	}

	sockets := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), pluginapi.MagicCookieKey+"="+pluginapi.MagicCookieValue,
		"PLUGIN_PROTOCOL_VERSIONS=1", "PLUGIN_UNIX_SOCKET_DIR="+sockets, pluginapi.EnvExitOnStdinEOF+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no handshake line: %v", err)
	}
	m := regexp.MustCompile(`^1\|1\|unix\|(` + regexp.QuoteMeta(sockets) + `/[^|]+)\|grpc\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("handshake line %q, want 1|1|unix|%s/…|grpc", line, sockets)
	}
	if st, err := os.Stat(m[1]); err != nil || st.Mode()&os.ModeSocket == 0 {
		t.Errorf("%s is not a socket: %v", m[1], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stdin.Close()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after stdin closed: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the plugin did not exit when its stdin closed")
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the socket is left behind: %v", err)
	}
}

// TestNodePluginFromSource checks the unbundled script in its source
// folder (node_modules next to it), as a developer runs it.
func TestNodePluginFromSource(t *testing.T) {
	t.Parallel()
	digestPlugin(t) // installs the packages
	wantChecksPass(t, filepath.Join(digestExample, "plugin.cjs"), "digest 0.1.0")
}

// TestPluginsCheckReattach starts a plugin by hand in debug mode, as under
// a debugger, and checks it through $HARNESS_REATTACH_PLUGINS.
func TestPluginsCheckReattach(t *testing.T) {
	t.Parallel()
	value, proc := startDebugPlugin(t, jsonqPlugin(t))
	env := map[string]string{pluginapi.EnvReattach: value}
	code, out, errOut := harness(t, env, "plugins", "check", "--reattach")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"checking jsonq in debug mode (pid " + strconv.Itoa(proc.Pid), "PASS  attach ",
		"PASS  cancelled ", "SKIP  shutdown ", "ok: jsonq 0.1.0 passed 8 checks"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if err := proc.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the check stopped the attached plugin: %v", err)
	}
}

// docFiles returns the files the quick-start section of docs/plugins.md
// shows: each fenced block right after a line "`name`:".
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(pluginDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Write a plugin in 30 lines\n")
	if start < 0 {
		t.Fatal(`docs/plugins.md has no "## Write a plugin in 30 lines" section`)
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	files := map[string]string{}
	block := regexp.MustCompile("(?ms)^`([^`\n]+)`:\n\n```[a-z]*\n(.*?)^```\n")
	for _, m := range block.FindAllStringSubmatch(section, -1) {
		files[m[1]] = m[2]
	}
	return files
}

// TestPluginDoc follows docs/plugins.md's quick start literally in a temp
// dir outside this repository, as a third party on a fresh machine: the
// doc's shell commands, run as they stand (go mod init; go get of the
// tagged SDK, which the go command resolves through a module proxy built
// from this checkout — no replace directive; go test; go build into
// ~/harness-plugins; harness plugins check; harness run with the doc's
// script, which fails unless the tool answered as the doc says) and the
// doc's main.go, main_test.go and try.jsonl, written as they stand. ~ is
// a temp home; harness runs in this process.
func TestPluginDoc(t *testing.T) {
	t.Parallel()
	files := docFiles(t)
	for _, name := range []string{"main.go", "main_test.go", "try.jsonl"} {
		if files[name] == "" {
			t.Fatalf("docs/plugins.md's quick start shows no %s (found %v)", name, files)
		}
	}
	if n := strings.Count(files["main.go"], "\n"); n > 50 {
		t.Errorf("the doc's plugin is %d lines; the quick start promises about 30", n)
	}
	cmds := docCommands(t)
	if len(cmds) < 2 || !strings.HasPrefix(cmds[0], "go mod init ") || !strings.HasPrefix(cmds[1], "go get "+sdkModule+"@") {
		t.Fatalf("the quick start does not begin with go mod init and go get %s@VERSION: %q", sdkModule, cmds)
	}
	version := strings.TrimPrefix(cmds[1], "go get "+sdkModule+"@")
	if jsonq := requiredSDK(t, jsonqExample); jsonq != version {
		t.Errorf("the doc gets SDK %s, examples/plugins/jsonq requires %s: name one version", version, jsonq)
	}
	env := kitEnv(t, version)
	mod := filepath.Join(t.TempDir(), "wordcount")
	home := t.TempDir()
	if err := os.Mkdir(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	var ran []string
	for i, line := range cmds {
		if i == 2 {
			// The doc's files go in after go get, as a reader pastes them.
			for name, content := range files {
				if err := os.WriteFile(filepath.Join(mod, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		args := shellFields(line, home)
		switch args[0] {
		case "go":
			cmd := exec.Command("go", args[1:]...)
			cmd.Dir = mod
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("docs/plugins.md: %s: %v\n%s", line, err, out)
			}
		case "harness":
			// harness runs in this process, in mod (the script's path is
			// relative to it).
			for j, a := range args {
				if a == "try.jsonl" {
					args[j] = filepath.Join(mod, a)
				}
			}
			code, out, errOut := harness(t, map[string]string{"HARNESS_STATE_DIR": state}, args[1:]...)
			if code != exitOK {
				t.Fatalf("docs/plugins.md: %s: exit %d\nstdout:\n%s\nstderr:\n%s", line, code, out, errOut)
			}
			if args[1] == "run" && !strings.Contains(out, "Counted.") {
				t.Errorf("the run's answer is missing:\n%s", out)
			}
		default:
			t.Fatalf("docs/plugins.md's quick start runs %q, which this test does not know", line)
		}
		ran = append(ran, args[0]+" "+args[1])
	}
	want := []string{"go mod", "go get", "go test", "go build", "harness plugins", "harness run"}
	if !slices.Equal(ran, want) {
		t.Errorf("the quick start's commands are %q, this test checks %q", ran, want)
	}
	bin := filepath.Join(home, "harness-plugins", "wordcount")
	wantChecksPass(t, bin, "wordcount 0.1.0")
	evs, _ := logtest.ReadLog(t, state)
	call, result := toolCall(t, evs)
	if result["content"] != "5 words, 2 lines" {
		t.Errorf("tool/result = %v", result)
	}
	servedBy(t, call, "wordcount", bin)
}

// shellFields splits a command line of the doc as sh would for these
// simple lines: words, "double-quoted" words, ~ at a word's start as home.
func shellFields(line, home string) []string {
	var args []string
	for _, m := range regexp.MustCompile(`"([^"]*)"|(\S+)`).FindAllStringSubmatch(line, -1) {
		a := m[1]
		if m[2] != "" {
			a = m[2]
			if a == "~" || strings.HasPrefix(a, "~/") {
				a = home + a[1:]
			}
		}
		args = append(args, a)
	}
	return args
}

// docCommands returns the shell commands of the quick-start section of
// docs/plugins.md: the lines of its sh blocks.
func docCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(pluginDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Write a plugin in 30 lines\n")
	if start < 0 {
		t.Fatal(`docs/plugins.md has no "## Write a plugin in 30 lines" section`)
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var cmds []string
	for _, m := range regexp.MustCompile("(?ms)^```sh\n(.*?)^```\n").FindAllStringSubmatch(section, -1) {
		for _, line := range strings.Split(m[1], "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

func TestRegistrationProblems(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		d    pluginapi.Description
		want string // "" = no problem
	}{
		"fine":               {d: pluginapi.Description{Name: "x", EventTypes: []string{"x/done", "todo/write"}}},
		"space in the name":  {d: pluginapi.Description{Name: "my tool"}, want: `plugin name "my tool" has spaces or control characters`},
		"event without form": {d: pluginapi.Description{Name: "x", EventTypes: []string{"done"}}, want: `event type "done" is not of the form family/name`},
		"host's event type":  {d: pluginapi.Description{Name: "x", EventTypes: []string{"tool/result"}}, want: `event type "tool/result" belongs to the host`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, err := range plugincheck.RegistrationProblems(tc.d) {
				got = append(got, err.Error())
			}
			if all := strings.Join(got, "\n"); tc.want == "" && all != "" || !strings.Contains(all, tc.want) {
				t.Errorf("problems %q, want %q", all, tc.want)
			}
		})
	}
}
