package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness-dev/harness/internal/logtest"
)

// counted is an HTTP server on a loopback address of the machine that
// answers "hello from <addr>" and counts its connections.
type counted struct {
	port  int
	conns atomic.Int64
}

func serveCounted(t *testing.T, addr string) *counted {
	t.Helper()
	ln, err := net.Listen("tcp4", addr+":0")
	if err != nil {
		t.Fatal(err)
	}
	c := &counted{port: ln.Addr().(*net.TCPAddr).Port}
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, "hello from %s\n", addr) }),
		ConnState:         func(_ net.Conn, s http.ConnState) { c.conns.Add(map[bool]int64{true: 1}[s == http.StateNew]) },
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return c
}

// TestRunSandboxAllowList runs the installed harness with the script
// provider calling the real bash plugin, the network an allow-list of
// 127.0.0.2 (by flag, and as an array in the config file): curl reaches
// a listener the test runs on 127.0.0.2 through harness's proxy (the
// variables the command gets, and a CONNECT tunnel); curl to a listener
// on 127.0.0.1 — not on the list, and outside the command's own loopback
// — is refused by the proxy, the result says so and how to ask, and the
// listener sees no connection; curl without the proxy reaches nothing.
// The header, the sandbox/policy event and the tool/call record the list.
func TestRunSandboxAllowList(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox is enforced on Linux only")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine (plugins/bash's and sandbox/netproxy's tests cover the proxy)")
	}
	t.Parallel()
	bin := installedHarness(t)
	for _, how := range []string{"flag", "config file"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			allowed, direct, host := serveCounted(t, "127.0.0.2"), serveCounted(t, "127.0.0.2"), serveCounted(t, "127.0.0.1")
			state, cwd, xdg := t.TempDir(), t.TempDir(), t.TempDir()
			var args []string
			if how == "flag" {
				args = []string{"--sandbox-network", "127.0.0.2"}
			} else {
				if err := os.MkdirAll(filepath.Join(xdg, "harness"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(xdg, "harness", "config.toml"), []byte("sandbox-network = [\"127.0.0.2\"]\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			calls := map[string]string{
				"env":     fmt.Sprintf("curl -sS http://127.0.0.2:%d/", allowed.port),
				"connect": fmt.Sprintf("curl -sS --proxytunnel http://127.0.0.2:%d/", allowed.port),
				"refused": fmt.Sprintf("curl -sS --noproxy '' http://127.0.0.1:%d/", host.port),
				"direct":  fmt.Sprintf("curl -sS --noproxy '*' http://127.0.0.2:%d/", direct.port),
			}
			var tc []string
			for id, line := range calls {
				b, _ := json.Marshal(map[string]any{"id": id, "name": "bash", "args": map[string]string{"command": line, "description": id}})
				tc = append(tc, string(b))
			}
			script := writeScript(t, `{"toolCalls":[`+strings.Join(tc, ",")+`]}`, `{"text":"done"}`)
			cmd := exec.Command(bin, append(append([]string{"run", "--provider", "script", "--script", script, "--yes"}, args...), "fetch")...)
			cmd.Dir = cwd
			cmd.Env = append(installedEnv(state), "XDG_CONFIG_HOME="+xdg)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			if header, _, _ := strings.Cut(string(out), "\n"); !strings.Contains(header, "sandbox workspace-write, network allow-list 127.0.0.2") {
				t.Errorf("header %q does not name the allow-list", header)
			}
			evs, _ := logtest.ReadLog(t, state)
			results, policy, callSandbox := map[string]string{}, "", ""
			for _, e := range evs {
				d, _ := e["data"].(map[string]any)
				switch e["type"] {
				case "tool/result":
					results[d["callId"].(string)] = d["content"].(string)
				case "sandbox/policy":
					policy = d["network"].(string)
				case "tool/call":
					b, _ := json.Marshal(d["sandbox"])
					callSandbox = string(b)
				}
			}
			if policy != "127.0.0.2" || !strings.Contains(callSandbox, `"network":"127.0.0.2"`) {
				t.Errorf("sandbox/policy network %q, tool/call sandbox %s; want the list", policy, callSandbox)
			}
			for _, id := range []string{"env", "connect"} {
				if !strings.Contains(results[id], "hello from 127.0.0.2") {
					t.Errorf("%s: %q did not reach the allowed listener:\n%s", id, calls[id], results[id])
				}
			}
			want := "[the sandbox's network proxy refused 127.0.0.1:" + strconv.Itoa(host.port) + ": not on the network allow-list (127.0.0.2). " +
				"Only the user can allow another host: the sandbox-network setting"
			if !strings.Contains(results["refused"], want) {
				t.Errorf("the refused call's result lacks %q:\n%s", want, results["refused"])
			}
			if strings.Contains(results["direct"], "hello") || !strings.Contains(results["direct"], "the network only to 127.0.0.2 through the proxy") {
				t.Errorf("without the proxy: %s", results["direct"])
			}
			if allowed.conns.Load() == 0 || host.conns.Load() != 0 || direct.conns.Load() != 0 {
				t.Errorf("connections: allowed %d (want some), 127.0.0.1 %d, direct %d (want none)", allowed.conns.Load(), host.conns.Load(), direct.conns.Load())
			}
		})
	}
}
