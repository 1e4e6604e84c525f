//go:build unix

package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/subagent"
	"github.com/harness-dev/harness/internal/logtest"
)

var builtMCP struct {
	once sync.Once
	bin  string
	err  error
}

// mcpTestServer returns host/mcpclient/testdata/mcptest (an MCP server
// built from the official Go SDK) built once per run.
func mcpTestServer(t testing.TB) string {
	t.Helper()
	builtMCP.once.Do(func() {
		builtMCP.bin = filepath.Join(testTemp, "mcptest")
		if b, err := goBuild("-o", builtMCP.bin, "../host/mcpclient/testdata/mcptest").CombinedOutput(); err != nil {
			builtMCP.err = fmt.Errorf("go build mcptest: %v\n%s", err, b)
		}
	})
	if builtMCP.err != nil {
		t.Fatal(builtMCP.err)
	}
	return builtMCP.bin
}

// recordingAsker allows every call and records what it was asked about.
type recordingAsker struct {
	mu    sync.Mutex
	tools []string
}

func (a *recordingAsker) Ask(_ context.Context, req permission.Request) (event.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tools = append(a.tools, req.Tool)
	return event.AllowOnce, nil
}

// TestMCPToolsInTheLoop runs the real loop with the script provider
// against a real MCP server: the model calls mcp__test__echo, the server
// gets the arguments, the result reaches the model, the call was asked
// about (ask mode), its tool/call names the server; add_tool makes the
// server send tools/list_changed and the new tool is called in the next
// step; isError stays an error result; closing the session stops the
// server; the server's secret never reaches the log or the session file.
func TestMCPToolsInTheLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	const secret = "mcp-only-secret-4711"
	lines := []string{
		`{"toolCalls":[{"id":"c1","name":"mcp__test__echo","args":{"text":"hello mcp"}}],"expect":{"toolsInclude":["mcp__test__echo"]}}`,
		`{"toolCalls":[{"id":"c2","name":"mcp__test__add_tool","args":{}}],"expect":{"lastRole":"tool","lastContains":"echo: hello mcp"}}`,
		`{"toolCalls":[{"id":"c3","name":"mcp__test__late","args":{}},{"id":"c4","name":"mcp__test__fail","args":{}}],"expect":{"toolsInclude":["mcp__test__late"]}}`,
		`{"text":"done","expect":{"lastRole":"tool"}}`,
	}
	sc, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	var logBuf logtest.Buffer
	h, err := engine.New(engine.Config{StateDir: state, Model: sc, ModelName: "script", MaxSteps: 10,
		Policy: permission.Policy{Mode: permission.ModeAsk},
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin, Env: []engine.MCPEnvVar{{Name: "MCPTEST_TOKEN", Value: secret}}, Source: "the test"}})
	tools := h.MCPTools(s.ID())
	if len(tools) == 0 {
		t.Fatalf("no MCP tools; log:\n%s", logBuf.String())
	}
	pid := tools[0].Server.PID
	asker := &recordingAsker{}
	out := h.Run(context.Background(), s, nil, event.Text("use the MCP server"), nil, asker)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v\n%s", out.Reason, out.Err, logBuf.String())
	}
	if len(asker.tools) == 0 || asker.tools[0] != "mcp__test__echo" {
		t.Errorf("asked about %v, want mcp__test__echo first (MCP tools need permission)", asker.tools)
	}

	evs, logPath := logtest.ReadLog(t, state)
	results := map[string]map[string]any{}
	var echoCall map[string]any
	for _, e := range evs {
		d, _ := e["data"].(map[string]any)
		switch e["type"] {
		case "tool/call":
			if d["callId"] == "c1" {
				echoCall = d
			}
		case "tool/result":
			results[d["callId"].(string)] = d
		}
	}
	mcp, _ := echoCall["mcp"].(map[string]any)
	if mcp["name"] != "test" || mcp["command"] != bin || mcp["serverName"] != "mcptest" || mcp["serverVersion"] != "1.2.3" {
		t.Errorf("tool/call c1 = %v, want it to name the MCP server", echoCall)
	}
	for id, want := range map[string]string{"c1": "echo: hello mcp", "c2": "added", "c3": "late tool ran", "c4": "Error: it failed on purpose"} {
		if got, _ := results[id]["content"].(string); got != want {
			t.Errorf("result %s = %q, want %q", id, got, want)
		}
	}
	if results["c4"]["isError"] != true || results["c1"]["isError"] == true {
		t.Errorf("isError: c1 %v, c4 %v", results["c1"]["isError"], results["c4"]["isError"])
	}

	if err := h.CloseSession(s); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the MCP server %d outlived its session", pid)
	}
	b, _ := os.ReadFile(logPath)
	if strings.Contains(logBuf.String(), secret) || strings.Contains(string(b), secret) {
		t.Errorf("the server's secret is in the log or the session file")
	}
}

// TestMCPDenyRule: a rule naming an MCP tool applies to it as to any tool.
func TestMCPDenyRule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	sc, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"c1","name":"mcp__test__echo","args":{"text":"x"}}]}`,
		`{"text":"done","expect":{"lastRole":"tool","lastContains":"deny"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	h, err := engine.New(engine.Config{StateDir: state, Model: sc, ModelName: "script",
		Policy: permission.Policy{Mode: permission.ModeAllowAll, Rules: []permission.Rule{{Tool: "mcp__test__echo", Action: permission.Deny}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin}})
	out := h.Run(context.Background(), s, nil, event.Text("go"), nil, nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", out.Reason, out.Err)
	}
}

// TestMCPProjectFileNeedsTrust: a project's .mcp.json runs commands from
// the repository, so its servers start only when the project is trusted
// (Config.MCPProject); otherwise one warning names them. The user's file
// always counts, a project server of the same name replaces the user's,
// and the front end's replaces both.
func TestMCPProjectFileNeedsTrust(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	write := func(path string, servers string) {
		if err := os.WriteFile(path, []byte(`{"mcpServers":{`+servers+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	user := filepath.Join(t.TempDir(), "mcp.json")
	write(user, fmt.Sprintf(`"mine":{"command":%q},"shared":{"command":"/nonexistent/user-version"}`, bin))
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprint("trusted=", trusted), func(t *testing.T) {
			cwd := t.TempDir()
			write(filepath.Join(cwd, ".mcp.json"), fmt.Sprintf(`"repo":{"command":%q,"args":["-tag","${TAG}"]},"shared":{"command":%q}`, bin, bin))
			var logBuf logtest.Buffer
			h, err := engine.New(engine.Config{StateDir: t.TempDir(), MCPUserFile: user, MCPProject: trusted,
				Getenv: func(string) string { return "x" }, Logger: hclog.New(&hclog.LoggerOptions{Output: &logBuf})})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			s, err := h.CreateSession(cwd)
			if err != nil {
				t.Fatal(err)
			}
			defer h.CloseSession(s)
			h.ConnectMCP(s, []engine.MCPServer{{Name: "editor", Command: bin}})
			servers := map[string]bool{}
			for _, tl := range h.MCPTools(s.ID()) {
				servers[tl.Server.Name] = true
			}
			want := map[string]bool{"mine": true, "editor": true}
			if trusted {
				want["repo"], want["shared"] = true, true
			}
			if fmt.Sprint(servers) != fmt.Sprint(want) {
				t.Errorf("servers %v, want %v\n%s", servers, want, logBuf.String())
			}
			warned := strings.Contains(logBuf.String(), "the project's MCP servers are not started") && strings.Contains(logBuf.String(), "repo, shared")
			if warned == trusted {
				t.Errorf("warned about the untrusted project: %v, want %v\n%s", warned, !trusted, logBuf.String())
			}
		})
	}
}

// TestMCPReadOnlyHint: a tool its server annotates readOnlyHint (peek) is
// of kind read and runs without asking in every mode, read-only
// included, as a plugin's read tools do; a tool without it (echo) is
// asked about in ask and accept-edits mode and refused in read-only mode.
// Rules still apply to a hinted tool. Both calls' tool/call events carry
// their title ("server: tool", the server's title when it gives one) and
// kind, as the editor shows them.
func TestMCPReadOnlyHint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	cases := []struct {
		mode  permission.Mode
		rules []permission.Rule
		asked string // the tools asked about, in order
		peek  string // the result of the peek call
		echo  string // the start of the echo call's result
	}{
		{mode: permission.ModeReadOnly, asked: "", peek: "peek: a", echo: "Error: the session is in read-only mode"},
		{mode: permission.ModeAsk, asked: "mcp__test__echo", peek: "peek: a", echo: "echo: b"},
		{mode: permission.ModeAcceptEdits, asked: "mcp__test__echo", peek: "peek: a", echo: "echo: b"},
		{mode: permission.ModeAllowAll, asked: "", peek: "peek: a", echo: "echo: b"},
		{mode: permission.ModeAsk, rules: []permission.Rule{{Tool: "mcp__test__*", Action: permission.Deny}},
			asked: "", peek: "Error: permission denied by the rule", echo: "Error: permission denied by the rule"},
		{mode: permission.ModeReadOnly, rules: []permission.Rule{{Tool: "mcp__test__peek", Action: permission.Ask}},
			asked: "mcp__test__peek", peek: "peek: a", echo: "Error: the session is in read-only mode"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/rules=%d", tc.mode, len(tc.rules)), func(t *testing.T) {
			t.Parallel()
			sc, err := script.Load(strings.NewReader(strings.Join([]string{
				`{"toolCalls":[{"id":"peek","name":"mcp__test__peek","args":{"text":"a"}},{"id":"echo","name":"mcp__test__echo","args":{"text":"b"}}]}`,
				`{"text":"done","expect":{"lastRole":"tool"}}`,
			}, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			state := t.TempDir()
			var logBuf logtest.Buffer
			h, err := engine.New(engine.Config{StateDir: state, Model: sc, ModelName: "script",
				Policy: permission.Policy{Mode: tc.mode, Rules: tc.rules},
				Logger: hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			s, err := h.CreateSession(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer h.CloseSession(s)
			h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin}})
			asker := &recordingAsker{}
			out := h.Run(context.Background(), s, nil, event.Text("go"), nil, asker)
			if out.Reason != event.ReasonCompleted {
				t.Fatalf("turn ended %s: %v\n%s", out.Reason, out.Err, logBuf.String())
			}
			if got := strings.Join(asker.tools, ","); got != tc.asked {
				t.Errorf("asked about %q, want %q", got, tc.asked)
			}
			evs, _ := logtest.ReadLog(t, state)
			calls, results := map[string]map[string]any{}, map[string]string{}
			for _, e := range evs {
				d, _ := e["data"].(map[string]any)
				switch e["type"] {
				case "tool/call":
					calls[d["callId"].(string)] = d
				case "tool/result":
					results[d["callId"].(string)], _ = d["content"].(string)
				}
			}
			if !strings.HasPrefix(results["peek"], tc.peek) || !strings.HasPrefix(results["echo"], tc.echo) {
				t.Errorf("results peek %q, echo %q; want %q…, %q…", results["peek"], results["echo"], tc.peek, tc.echo)
			}
			for id, want := range map[string][2]any{"peek": {"test: Peek at a text", "read"}, "echo": {"test: echo", nil}} {
				if calls[id]["title"] != want[0] || calls[id]["kind"] != want[1] {
					t.Errorf("tool/call %s: title %v, kind %v; want %v, %v", id, calls[id]["title"], calls[id]["kind"], want[0], want[1])
				}
			}
		})
	}
}

// TestMCPKeepsPluginPreviews: with MCP servers connected, a plugin's call
// still carries its plugin's preview on its tool/call (the diff of a
// write, shown before the user is asked), next to the MCP call's title.
func TestMCPKeepsPluginPreviews(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	sc, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"w","name":"write","args":{"file_path":"new.txt","content":"hi\n"}}]}`,
		`{"toolCalls":[{"id":"e","name":"mcp__test__echo","args":{"text":"x"}}],"expect":{"lastRole":"tool"}}`,
		`{"text":"done","expect":{"lastRole":"tool"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	h, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: sc, ModelName: "script",
		Policy: permission.Policy{Mode: permission.ModeAllowAll}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.StartTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin}})
	if out := h.Run(context.Background(), s, nil, event.Text("go"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v", out.Reason, out.Err)
	}
	evs, _ := logtest.ReadLog(t, state)
	calls := map[string]map[string]any{}
	for _, e := range evs {
		if d, _ := e["data"].(map[string]any); e["type"] == "tool/call" {
			calls[d["callId"].(string)] = d
		}
	}
	if diffs, _ := calls["w"]["diffs"].([]any); len(diffs) != 1 || !strings.HasPrefix(fmt.Sprint(calls["w"]["title"]), "Create") {
		t.Errorf("the write's tool/call = %v, want fs's preview (title and diff)", calls["w"])
	}
	if calls["e"]["title"] != "test: echo" {
		t.Errorf("the MCP call's title = %v, want test: echo", calls["e"]["title"])
	}
}

// TestMCPServersListing: MCPServers lists the servers of the user's file
// with their tools when they start, the reason when they do not, and an
// untrusted project's as not started; no env or header value, argument or
// URL query is in what it returns, and the servers it started are gone.
func TestMCPServersListing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	const secret = "listing-secret-8086"
	user := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(user, []byte(fmt.Sprintf(`{"mcpServers":{
		"test":{"command":%q,"args":["-tag",%q],"env":{"MCPTEST_TOKEN":%q}},
		"gone":{"command":"/nonexistent/mcp-server"},
		"web":{"type":"http","url":"http://127.0.0.1:1/mcp?key=%s","headers":{"Authorization":"Bearer %s"}}}}`, bin, secret, secret, secret, secret)), 0o600); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, ".mcp.json"), []byte(`{"mcpServers":{"repo":{"command":"./evil"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := engine.New(engine.Config{StateDir: t.TempDir(), MCPUserFile: user, MCPStartTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	list := h.MCPServers(cwd)
	got := map[string]string{}
	var pid int
	for _, s := range list {
		var tools []string
		for _, tl := range s.Tools {
			tools = append(tools, tl.Tool)
			pid = tl.Server.PID
		}
		got[s.Name] = fmt.Sprintf("%s %s %s %s%s", s.Transport, s.Status, s.Where, s.ServerName, strings.Join(tools, ","))
		if strings.Contains(fmt.Sprintf("%+v", s), secret) {
			t.Errorf("the listing of %s holds a secret: %+v", s.Name, s)
		}
		if s.Status != "up" && s.Err == "" {
			t.Errorf("%s is %s without saying why", s.Name, s.Status)
		}
	}
	for name, want := range map[string]string{
		"test": "stdio up " + bin + " mcptest",
		"gone": "stdio failed /nonexistent/mcp-server ",
		"web":  "http failed http://127.0.0.1:1/mcp ",
		"repo": "stdio not started ./evil ",
	} {
		if !strings.HasPrefix(got[name], want) {
			t.Errorf("%s: %q, want it to start with %q", name, got[name], want)
		}
	}
	if !strings.Contains(got["test"], "echo") || !strings.Contains(got["test"], "peek") || len(list) != 4 {
		t.Errorf("listing = %v, want 4 servers and test's tools", got)
	}
	if pid == 0 || syscall.Kill(pid, 0) == nil {
		t.Errorf("the listed server (pid %d) was not stopped after the listing", pid)
	}
}

// TestMCPSubagentGetsParentsServers: a subagent child uses its parent
// session's MCP servers — the same server process, the call titled and
// attributed in the child's log as in the parent's — and the child's end
// does not stop them (the parent's next call still works).
func TestMCPSubagentGetsParentsServers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	sc, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"p1","name":"subagent","args":{"description":"use mcp","prompt":"call echo"}}]}`,
		`{"toolCalls":[{"id":"k1","name":"mcp__test__echo","args":{"text":"from the child"}}],"expect":{"toolsInclude":["mcp__test__echo","mcp__test__peek"]}}`,
		`{"text":"child done","expect":{"lastRole":"tool","lastContains":"echo: from the child"}}`,
		`{"toolCalls":[{"id":"p2","name":"mcp__test__echo","args":{"text":"parent again"}}],"expect":{"lastRole":"tool","lastContains":"child done"}}`,
		`{"text":"done","expect":{"lastRole":"tool","lastContains":"echo: parent again"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	var logBuf logtest.Buffer
	h, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: sc, ModelName: "script", MaxSteps: 10,
		SubagentDepth: 1, SubagentBudget: subagent.Budget{Steps: 10, Wall: time.Minute}, Policy: permission.Policy{Mode: permission.ModeAllowAll},
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.StartTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := h.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseSession(s)
	h.ConnectMCP(s, []engine.MCPServer{{Name: "test", Command: bin}})
	pid := h.MCPTools(s.ID())[0].Server.PID
	if out := h.Run(context.Background(), s, nil, event.Text("delegate"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn ended %s: %v\n%s", out.Reason, out.Err, logBuf.String())
	}
	list, err := h.ListSessions()
	if err != nil {
		t.Fatal(err)
	}
	var child string
	for _, sm := range list {
		if sm.Parent == s.ID() {
			child = sm.ID
		}
	}
	if child == "" {
		t.Fatalf("no child session in %v", list)
	}
	evs := logtest.ReadJSONL(t, filepath.Join(state, "sessions", child+".jsonl"))
	var call map[string]any
	for _, e := range evs {
		if d, _ := e["data"].(map[string]any); e["type"] == "tool/call" && d["callId"] == "k1" {
			call = d
		}
	}
	mcp, _ := call["mcp"].(map[string]any)
	if call["title"] != "test: echo" || mcp["name"] != "test" || mcp["pid"] != float64(pid) {
		t.Errorf("the child's tool/call = %v, want it titled and served by the parent's server (pid %d)", call, pid)
	}
}
