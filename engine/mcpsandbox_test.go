//go:build linux

package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/sandbox"
)

// TestMCPSandboxedServer runs the real loop with the script provider
// against real stdio MCP servers configured in the user's mcp.json with
// and without the sandbox key, each tool writing a file, reading one or
// connecting to a listener the test runs on 127.0.0.1. Sandboxed
// (workspace-write) a server writes in the session's folder and nowhere
// else, cannot read the credential store planted in HOME and reaches no
// network; with network "on" it connects; read-only it writes nothing in
// the folder; without the key every call succeeds (so each refusal is the
// sandbox's). What happened is checked on disk and in the results; the
// log and the listing say which servers are sandboxed.
func TestMCPSandboxedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	home, cwd, outside := t.TempDir(), t.TempDir(), t.TempDir()
	const key = "PLANTED-KEY-9931"
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	sshKey := filepath.Join(home, ".ssh", "id_ed25519")
	readme := filepath.Join(cwd, "README")
	// a git repository: its hooks are not the server's to write
	if err := os.MkdirAll(filepath.Join(cwd, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(cwd, ".git", "hooks", "pre-commit")
	root := os.Geteuid() == 0
	// the host's environment, where its API keys are
	hostEnv := fmt.Sprintf("/proc/%d/environ", os.Getpid())
	for path, text := range map[string]string{sshKey: key, readme: "project readme"} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	addr := ln.Addr().String()

	user := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(user, []byte(fmt.Sprintf(`{"mcpServers":{
		"ww":{"command":%[1]q,"sandbox":"workspace-write"},
		"wwnet":{"command":%[1]q,"sandbox":"workspace-write","network":"on"},
		"ro":{"command":%[1]q,"sandbox":"read-only","network":"off"},
		"open":{"command":%[1]q}}}`, bin)), 0o600); err != nil {
		t.Fatal(err)
	}
	type call struct {
		server, tool, arg string
		ok                bool
		made              string // a file the call makes, when it succeeds
		needs             string // why the row is skipped: "" runs it
	}
	asRoot := ""
	if !root {
		asRoot = "the protected paths are bound read-only in the keeper's mount namespace, which only root gets"
	}
	in := func(dir, name string) string { return filepath.Join(dir, name) }
	calls := []call{
		{"ww", "write", in(cwd, "ww.txt"), true, in(cwd, "ww.txt"), ""},
		{"ww", "write", in(outside, "ww.txt"), false, in(outside, "ww.txt"), ""},
		{"ww", "write", in(home, ".bashrc"), false, in(home, ".bashrc"), ""},
		{"ww", "write", hook, false, hook, asRoot},
		{"open", "write", hook + ".open", true, hook + ".open", ""},
		{"ww", "read", readme, true, "", ""},
		{"ww", "read", sshKey, false, "", ""},
		{"ww", "dial", addr, false, "", ""},
		{"ww", "read", hostEnv, false, "", ""},
		{"open", "read", hostEnv, true, "", ""},
		{"wwnet", "dial", addr, true, "", ""},
		{"wwnet", "write", in(outside, "wwnet.txt"), false, in(outside, "wwnet.txt"), ""},
		{"ro", "write", in(cwd, "ro.txt"), false, in(cwd, "ro.txt"), ""},
		{"ro", "read", readme, true, "", ""},
		{"ro", "read", sshKey, false, "", ""},
		{"ro", "dial", addr, false, "", ""},
		{"open", "write", in(cwd, "open.txt"), true, in(cwd, "open.txt"), ""},
		{"open", "write", in(outside, "open.txt"), true, in(outside, "open.txt"), ""},
		{"open", "read", sshKey, true, "", ""},
		{"open", "dial", addr, true, "", ""},
	}
	type toolCall struct {
		ID   string            `json:"id"`
		Name string            `json:"name"`
		Args map[string]string `json:"args"`
	}
	var step struct {
		ToolCalls []toolCall `json:"toolCalls"`
	}
	for i, c := range calls {
		arg := "path"
		if c.tool == "dial" {
			arg = "addr"
		}
		step.ToolCalls = append(step.ToolCalls, toolCall{ID: fmt.Sprint("c", i), Name: "mcp__" + c.server + "__" + c.tool, Args: map[string]string{arg: c.arg}})
	}
	first, _ := json.Marshal(step)
	sc, err := script.Load(strings.NewReader(string(first) + "\n" + `{"text":"done","expect":{"lastRole":"tool"}}`))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	var logBuf logtest.Buffer
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return os.Getenv(k)
	}
	h, err := engine.New(engine.Config{StateDir: state, Model: sc, ModelName: "script", MaxSteps: 5,
		MCPUserFile: user, Getenv: getenv, Policy: permission.Policy{Mode: permission.ModeAllowAll},
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.CreateSession(cwd)
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	h.ConnectMCP(s, nil)
	up := map[string]bool{}
	for _, tl := range h.MCPTools(s.ID()) {
		up[tl.Server.Name] = true
	}
	if sandbox.LandlockABI() == 0 {
		// No confinement here: the servers that asked for it are not
		// started, and the log says why.
		if up["ww"] || up["ro"] || !up["open"] || !strings.Contains(logBuf.String(), "no Landlock") {
			t.Fatalf("without Landlock: servers up %v, want only open; log:\n%s", up, logBuf.String())
		}
		return
	}
	if len(up) != 4 {
		t.Fatalf("servers up %v, want ww, wwnet, ro and open; log:\n%s", up, logBuf.String())
	}
	out := h.Run(context.Background(), s, nil, event.Text("try the sandbox"), nil, &recordingAsker{})
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v\n%s", out.Reason, out.Err, logBuf.String())
	}
	evs, _ := logtest.ReadLog(t, state)
	results := map[string]map[string]any{}
	for _, e := range evs {
		if d, _ := e["data"].(map[string]any); e["type"] == "tool/result" {
			results[d["callId"].(string)] = d
		}
	}
	for i, c := range calls {
		if c.needs != "" {
			t.Logf("skipped %s %s %s: %s", c.server, c.tool, c.arg, c.needs)
			continue
		}
		r := results[fmt.Sprint("c", i)]
		content, _ := r["content"].(string)
		isErr := r["isError"] == true
		name := fmt.Sprintf("%s %s %s", c.server, c.tool, c.arg)
		switch {
		case r == nil:
			t.Errorf("%s: no result", name)
		case c.ok && (isErr || !strings.HasPrefix(content, "ok ")):
			t.Errorf("%s: %q, want it to succeed", name, content)
		case !c.ok && !isErr:
			t.Errorf("%s: %q, want the sandbox to refuse it", name, content)
		}
		if c.server != "open" && strings.Contains(content, key) {
			t.Errorf("%s: the sandboxed server read the planted key: %q", name, content)
		}
		if c.made != "" {
			_, err := os.Stat(c.made)
			if made := err == nil; made != c.ok {
				t.Errorf("%s: %s exists: %v, want %v", name, c.made, made, c.ok)
			}
		}
	}
	if !strings.Contains(logBuf.String(), `sandbox="workspace-write, network off"`) || !strings.Contains(logBuf.String(), "sandbox=off") {
		t.Errorf("the log does not say which servers are sandboxed:\n%s", logBuf.String())
	}
	listed := map[string]string{}
	for _, si := range h.MCPServers(cwd) {
		listed[si.Name] = si.Status + " " + si.Sandbox
	}
	want := map[string]string{"ww": "up workspace-write, network off", "wwnet": "up workspace-write, network on",
		"ro": "up read-only, network off", "open": "up off"}
	if fmt.Sprint(listed) != fmt.Sprint(want) {
		t.Errorf("listing %v, want %v", listed, want)
	}
}

// BenchmarkMCPServerStart lists one stdio MCP server (start, initialize,
// tools/list, stop) unconfined and sandboxed: what the sandbox adds to a
// server's start (the read list, Landlock, seccomp, the mount namespace
// as root).
func BenchmarkMCPServerStart(b *testing.B) {
	bin := mcpTestServer(b)
	for _, sb := range []string{"off", "workspace-write"} {
		b.Run(sb, func(b *testing.B) {
			user := filepath.Join(b.TempDir(), "mcp.json")
			if err := os.WriteFile(user, []byte(fmt.Sprintf(`{"mcpServers":{"s":{"command":%q,"sandbox":%q}}}`, bin, sb)), 0o600); err != nil {
				b.Fatal(err)
			}
			h, err := engine.New(engine.Config{StateDir: b.TempDir(), MCPUserFile: user})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			cwd := b.TempDir()
			for b.Loop() {
				if l := h.MCPServers(cwd); len(l) != 1 || l[0].Status != "up" {
					b.Fatalf("listing %+v", l)
				}
			}
		})
	}
}
