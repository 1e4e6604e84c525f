//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
)

var builtMCPServer struct {
	once sync.Once
	bin  string
	err  error
}

// mcpServerBin builds host/mcpclient/testdata/mcptest, an MCP server on the
// official Go SDK, once per run.
func mcpServerBin(t *testing.T) string {
	t.Helper()
	builtMCPServer.once.Do(func() {
		dir, err := testTempDir("harness-mcptest-")
		if err != nil {
			builtMCPServer.err = err
			return
		}
		builtMCPServer.bin = filepath.Join(dir, "mcptest")
		if out, err := staticBuild("-o", builtMCPServer.bin, "../../host/mcpclient/testdata/mcptest").CombinedOutput(); err != nil {
			builtMCPServer.err = fmt.Errorf("go build mcptest: %v\n%s", err, out)
		}
	})
	if builtMCPServer.err != nil {
		t.Fatal(builtMCPServer.err)
	}
	return builtMCPServer.bin
}

// writeMCPConfig writes $XDG_CONFIG_HOME/harness/mcp.json in a new config
// folder and returns the folder.
func writeMCPConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "harness", "mcp.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestACPEditorMCP is the editor's view (the official ACP TypeScript SDK,
// every message validated against the schema): see testdata/acpclient/mcp.mjs.
func TestACPEditorMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	t.Parallel()
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	runScenario(t, node, bin, pluginDir, editorScenario{name: "mcp"}, "MCPTEST_BIN="+mcpServerBin(t))
}

// TestMCPRunSecretsStayOut runs `harness run` with the user's mcp.json
// giving the server a secret (written as ${VAR}, expanded from harness's
// environment): the server gets it, harness's own secrets do not reach the
// server, and neither value is in stdout, stderr (debug log) or the
// session file. The tool/call names the server.
func TestMCPRunSecretsStayOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin, pluginDir := buildHarness(t)
	u := strconv.FormatInt(time.Now().UnixNano(), 36)
	serverSecret, hostSecret := "mcp-server-secret-"+u, "sk-host-only-"+u
	cfg := writeMCPConfig(t, map[string]any{"test": map[string]any{
		"command": mcpServerBin(t), "args": []string{"-tag", "secrets-" + u},
		"env": map[string]string{"MCPTEST_TOKEN": "${MCP_SECRET_SOURCE}"},
	}})
	call := func(id, tool, args string) string {
		return fmt.Sprintf(`{"toolCalls":[{"id":%q,"name":%q,"args":%s}]}`, id, tool, args)
	}
	script := writeScript(t,
		call("c1", "mcp__test__hasenv", `{"name":"MCPTEST_TOKEN"}`),
		call("c2", "mcp__test__hasenv", `{"name":"OPENAI_API_KEY"}`),
		call("c3", "mcp__test__echo", `{"text":"done"}`),
		`{"text":"checked","expect":{"lastRole":"tool","lastContains":"echo: done"}}`)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	cmd := exec.Command(bin, "run", "--yes", "--provider", "script", "--script", script, "--state-dir", state,
		"--plugin-dir", pluginDir, "--permissions", filepath.Join(dir, "no-rules.json"), "--log-level", "debug", "check the env")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_CONFIG_HOME="+cfg, "MCP_SECRET_SOURCE="+serverSecret, "OPENAI_API_KEY="+hostSecret)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("harness run: %v\nstderr:\n%s", err, stderr.String())
	}
	evs, logPath := logtest.ReadLog(t, state)
	results := map[string]string{}
	var served map[string]any
	for _, e := range evs {
		d, _ := e["data"].(map[string]any)
		if e["type"] == "tool/result" {
			results[d["callId"].(string)], _ = d["content"].(string)
		}
		if e["type"] == "tool/call" && d["callId"] == "c3" {
			served, _ = d["mcp"].(map[string]any)
		}
	}
	if want := fmt.Sprintf("MCPTEST_TOKEN is set (%d bytes)", len(serverSecret)); results["c1"] != want {
		t.Errorf("the server's env: %q, want %q", results["c1"], want)
	}
	if results["c2"] != "OPENAI_API_KEY is unset" {
		t.Errorf("harness's own key reached the server: %q", results["c2"])
	}
	if served["name"] != "test" || served["serverName"] != "mcptest" || served["command"] != mcpServerBin(t) {
		t.Errorf("tool/call c3 names %v, want the MCP server", served)
	}
	file, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for what, b := range map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes(), "the session file": file} {
		for _, s := range []string{serverSecret, hostSecret} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds a secret", what)
			}
		}
	}
	if !strings.Contains(stderr.String(), "mcptest up") {
		t.Errorf("the server's stderr is not in harness's log:\n%s", stderr.String())
	}
}

// TestMCPServersDieWithHost kills harness (acp: the editor's server; run:
// the user's) with SIGKILL — no cleanup runs — and with SIGTERM, and
// checks that no MCP server process is left 2 s after harness exited, nor
// what the user's server started: a sleep in its own session and one
// behind a double fork. The servers stay alive when their stdin ends
// (-linger), as careless ones do: only their keeper (host/keeper) ends
// them and what they left.
func TestMCPServersDieWithHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	bin, pluginDir := buildHarness(t)
	server := mcpServerBin(t)
	for k, tt := range []struct {
		cmd string
		sig syscall.Signal
	}{{"acp", syscall.SIGKILL}, {"run", syscall.SIGKILL}, {"acp", syscall.SIGTERM}, {"run", syscall.SIGTERM}} {
		t.Run(tt.cmd+" "+tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			tag := fmt.Sprintf("die-%d-%d", os.Getpid(), k)
			argv := server + " -linger -tag " + tag // a server that outlives its stdin
			dir := t.TempDir()
			script := writeScript(t, `{"text":"thinking for a long while","hang":true}`)
			sleeps := []string{fmt.Sprintf("sleep 3003.%d%d", os.Getpid(), k), fmt.Sprintf("sleep 3004.%d%d", os.Getpid(), k)}
			cfg := writeMCPConfig(t, map[string]any{"user": map[string]any{"command": "/bin/sh", "args": []string{"-c",
				fmt.Sprintf("(setsid %s &); (%s &); exec %s -linger -tag %s", sleeps[0], sleeps[1], server, tag)}}})
			args := []string{tt.cmd, "--yes", "--provider", "script", "--script", script, "--state-dir", filepath.Join(dir, "state"),
				"--plugin-dir", pluginDir, "--permissions", filepath.Join(dir, "no-rules.json")}
			if tt.cmd == "run" {
				args = append(args, "hold on")
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_CONFIG_HOME="+cfg)
			var stderr logtest.Buffer
			cmd.Stderr = &stderr
			t.Cleanup(func() {
				for pid := range processes(append([]string{argv}, sleeps...)) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			if tt.cmd == "acp" {
				d := startACPDriver(t, cmd)
				d.call(t, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[{"name":"editor","command":%q,"args":["-linger","-tag",%q],"env":[]}]}`,
					t.TempDir(), server, tag), true)
				go func() {
					for range d.lines {
					}
				}()
			} else if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			want := 1
			if tt.cmd == "acp" {
				want = 2 // the user's server and the editor's
			}
			deadline := time.Now().Add(30 * time.Second)
			for (len(processes([]string{argv})) < want || len(processes(sleeps)) < len(sleeps)) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if got := processes([]string{argv}); len(got) < want {
				t.Fatalf("%d of %d MCP servers started\nstderr:\n%s", len(got), want, stderr.String())
			}
			if got := processes(sleeps); len(got) < len(sleeps) {
				t.Fatalf("the user's server left %v, want both of %q", got, sleeps)
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("harness %s still running 20 s after %s\nstderr:\n%s", tt.cmd, tt.sig, stderr.String())
			}
			time.Sleep(2 * time.Second)
			for pid, argv := range processes(append([]string{argv}, sleeps...)) {
				t.Errorf("%d (%s) is alive 2 s after harness %s exited on %s", pid, argv, tt.cmd, tt.sig)
			}
		})
	}
}

// TestPluginsListsMCPServers: `harness plugins` lists the user's MCP
// servers (mcp.json) after the plugins: the test server up with its tools
// and what it calls itself, a server that cannot start as failed with the
// reason; no env or header value, argument or URL query is printed.
func TestPluginsListsMCPServers(t *testing.T) {
	t.Parallel()
	const secret = "plugins-listing-secret-2718"
	bin := mcpServerBin(t)
	cfg := writeMCPConfig(t, map[string]any{
		"test": map[string]any{"command": bin, "args": []string{"-tag", secret}, "env": map[string]string{"MCPTEST_TOKEN": secret}},
		"web":  map[string]any{"type": "http", "url": "http://127.0.0.1:1/mcp?key=" + secret, "headers": map[string]string{"X-Key": secret}},
	})
	dir := pluginDirWith(t, filepath.Join(testPlugins(t), "todo"))
	code, out, errOut := harness(t, map[string]string{"HARNESS_STATE_DIR": t.TempDir(), "HARNESS_PLUGIN_DIR": dir,
		"HARNESS_LOG_LEVEL": "warn", "XDG_CONFIG_HOME": cfg}, "plugins")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, re := range []string{
		`(?m)^todo +1\.0\.0 `,
		`(?m)^MCP SERVER +TRANSPORT +STATUS +SERVER +TOOLS +COMMAND/URL$`,
		`(?m)^test +stdio +up +mcptest 1\.2\.3 +\S*echo\S* +` + regexp.QuoteMeta(bin) + `$`,
		`(?m)^web +http +failed +- +- +http://127\.0\.0\.1:1/mcp$`,
		`(?m)^web: from \S+mcp\.json; MCP server web .*not started: .+$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("harness plugins lacks %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, secret) || strings.Contains(errOut, secret) {
		t.Errorf("harness plugins printed a server's secret:\n%s\n%s", out, errOut)
	}
}
