//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
)

// acpClientDir is the Node ACP test client (testdata/acpclient at the root
// of the module).
const acpClientDir = "../../testdata/acpclient"

// editorScenario is one script of the Node client.
type editorScenario struct {
	name string
	args []string
	// needs names the plugins the scenario calls; the test fails without
	// them.
	needs []string
	// setup, when set, prepares the scenario: it returns the plugin dir to
	// use and extra environment for the client.
	setup func(t *testing.T, pluginDir string) (string, []string)
}

// TestACPEditor drives `harness acp` as an editor would, with the official
// ACP TypeScript SDK (testdata/acpclient, @agentclientprotocol/sdk 2.4.0):
// each scenario validates every message on the wire against the ACP v1
// schema and checks stdout and stderr. It needs Node ≥ 20 and npm, and
// installs the client's packages on first use (npm ci).
func TestACPEditor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs Node")
	}
	node := nodeClient(t)
	bin, pluginDir := buildHarness(t)
	scenarios := []editorScenario{
		{name: "handshake"},
		{name: "stream"},
		{name: "toolcall"},
		{name: "load"},
		{name: "models"},
		{name: "notfound"},
		{name: "cancel"},
		{name: "badinput"},
		{name: "eof"},
		{name: "multi"},
		{name: "sessions"},
		{name: "plan", needs: []string{"todo"}},
		{name: "load", args: []string{"--tools"}, needs: []string{"todo"}},
		{name: "cancel", args: []string{"--tool"}, needs: []string{"bash"}},
		{name: "permission", needs: []string{"bash"}},
		{name: "sandbox", needs: []string{"bash"}},
		{name: "subagent", needs: []string{"subagent", "todo"}},
		{name: "reload", needs: []string{"todo"}, setup: reloadSetup},
		{name: "compaction", needs: []string{"todo"}},
		{name: "commands"},
		{name: "mirror"},
		{name: "images"},
		{name: "nokey"},
		{name: "fork"},
		{name: "terminal", needs: []string{"bash"}},
		{name: "broken"},
	}
	for _, sc := range scenarios {
		name := strings.Join(append([]string{sc.name}, sc.args...), " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, p := range sc.needs {
				if _, err := os.Stat(filepath.Join(pluginDir, p)); err != nil {
					t.Fatalf("needs the %s plugin (plugins/%s), which go build ./plugins/... did not make: %v", p, p, err)
				}
			}
			dir, env := pluginDir, []string(nil)
			if sc.setup != nil {
				dir, env = sc.setup(t, pluginDir)
			}
			runScenario(t, node, bin, dir, sc, env...)
		})
	}
}

// runScenario runs node <scenario>.mjs <bin> in a fresh directory with a
// fresh state dir and fails with its output unless it passes.
func runScenario(t *testing.T, node, bin, pluginDir string, sc editorScenario, env ...string) {
	dir, err := filepath.Abs(acpClientDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{filepath.Join(dir, sc.name+".mjs"), bin}, sc.args...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = t.TempDir() // the sessions' cwd
	cmd.Env = append(os.Environ(),
		"HARNESS_STATE_DIR="+t.TempDir(),
		"HARNESS_PLUGIN_DIR="+pluginDir,
		"HARNESS_LOG_LEVEL=info",
		"HARNESS_PERMISSIONS_FILE="+filepath.Join(t.TempDir(), "no-rules.json"), // not the user's rules
		"XDG_CONFIG_HOME="+t.TempDir(),                                          // not the user's config file
		"ACPCLIENT_TIMEOUT_MS=60000",
	)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if !bytes.Contains(out, []byte("PASS "+sc.name)) {
		t.Fatalf("node %s did not report PASS:\n%s", strings.Join(args, " "), out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// buildHarness returns the harness binary and the folder of the real
// plugins, each built once per run (harnessBin, testPlugins): the tests
// that run it share them, and none writes next to it.
func buildHarness(t testing.TB) (bin, pluginDir string) {
	t.Helper()
	return harnessBin(t), testPlugins(t)
}

// nodeClient makes sure Node ≥ 20 and the client's packages are there
// (npm ci when package-lock.json changed since the last install) and
// returns the node binary. A missing Node fails the test: the editor tests
// are part of the suite.
func nodeClient(t *testing.T) string {
	t.Helper()
	node := nodeTool(t, "the ACP editor tests (testdata/acpclient)")
	if err := npmCI(acpClientDir); err != nil {
		t.Fatal(err)
	}
	return node
}

// TestACPInProcess serves ACP in process, over pipes, with the script
// provider: the wiring of the command, without Node.
func TestACPInProcess(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	script := writeScript(t, `{"reasoning":"Hm.","text":"Hello from ACP.","expect":{"lastRole":"user","lastContains":"hello"}}`)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script, "HARNESS_LOG_LEVEL": "debug"}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		done <- run(context.Background(), []string{"acp"}, stdio{in: inR, out: outW, err: &stderr}, lookup)
		outW.Close()
	}()
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		buf := make([]byte, 0, 1<<16)
		tmp := make([]byte, 4096)
		for {
			n, err := outR.Read(tmp)
			buf = append(buf, tmp[:n]...)
			for {
				i := bytes.IndexByte(buf, '\n')
				if i < 0 {
					break
				}
				lines <- string(buf[:i])
				buf = buf[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	send := func(s string) {
		if _, err := inW.WriteString(s + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	// readUntil returns the lines up to the one containing want.
	readUntil := func(want string) []string {
		var got []string
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout ended before %s; got %q\nstderr:\n%s", want, got, stderr.String())
				}
				got = append(got, l)
				if strings.Contains(l, want) {
					return got
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s within 10 s; got %q", want, got)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	readUntil(`"id":1`)
	cwd := t.TempDir()
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, cwd))
	sid := regexp.MustCompile(`"sessionId":"([^"]+)"`).FindStringSubmatch(strings.Join(readUntil(`"id":2`), "\n"))
	if sid == nil {
		t.Fatal("no sessionId")
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"say hello"}]}}`, sid[1]))
	got := readUntil(`"id":3`)
	all := strings.Join(got, "\n")
	for _, want := range []string{`"sessionUpdate":"agent_thought_chunk"`, `"text":"Hello `, `"stopReason":"end_turn"`} {
		if !strings.Contains(all, want) {
			t.Errorf("prompt output lacks %s:\n%s", want, all)
		}
	}
	inW.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit code %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("harness acp did not return after stdin closed")
	}
	for l := range lines {
		got = append(got, l)
	}
	for _, l := range got {
		if !strings.HasPrefix(l, `{"jsonrpc":"2.0",`) {
			t.Errorf("stdout line is not JSON-RPC: %q", l)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if l != "" && !strings.HasPrefix(l, `{"@level":`) {
			t.Errorf("stderr line is not a JSON log record: %q", l)
		}
	}
	evs, _ := logtest.ReadLog(t, state)
	if last := evs[len(evs)-1]; last["type"] != "turn/end" {
		t.Errorf("last logged event %v, want turn/end", last)
	}
}

// reloadSetup builds the hot-reload test plugin twice (v1 and v2) and
// returns a plugin dir holding the todo plugin and v1; the client replaces
// it with the v2 binary named by ACPCLIENT_V2 during the session.
func reloadSetup(t *testing.T, pluginDir string) (string, []string) {
	t.Helper()
	dir, build := t.TempDir(), t.TempDir()
	for _, v := range []string{"v1", "v2"} {
		cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+v, "-o", filepath.Join(build, v), "./host/toolbox/testdata/versioned")
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build versioned %s: %v\n%s", v, err, out)
		}
	}
	for src, dst := range map[string]string{filepath.Join(pluginDir, "todo"): "todo", filepath.Join(build, "v1"): "versioned"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, []string{"ACPCLIENT_V2=" + filepath.Join(build, "v2"), "ACPCLIENT_PLUGIN=" + filepath.Join(dir, "versioned")}
}
