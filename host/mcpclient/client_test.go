package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/host/tool"
	"github.com/harness-dev/harness/internal/logtest"
	"github.com/harness-dev/harness/pluginapi/pluginhost"
)

var built struct {
	once sync.Once
	bin  string
	err  error
}

// testServer returns testdata/mcptest built once per run.
func testServer(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcptest-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "mcptest")
		cmd := exec.Command("go", "build", "-o", built.bin, "./testdata/mcptest")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build mcptest: %v\n%s", err, b)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// started waits for set's first starts and lists its tools.
func started(t *testing.T, set *Set) []ServerTool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := set.Wait(ctx); err != nil {
		t.Fatalf("the servers' first start did not end: %v", err)
	}
	return set.Tools()
}

func toolNames(tools []ServerTool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Spec.Name)
	}
	return out
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pidAlive reports whether pid is a live process (not a zombie).
func pidAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) < 3 || f[2] != "Z"
}

func TestStdioServer(t *testing.T) {
	bin := testServer(t)
	var logBuf logtest.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &logBuf, Level: hclog.Debug})
	const secret = "s3cr3t-value-only-for-the-server"
	t.Setenv("HARNESS_TEST_HOST_SECRET", "host-secret-never-passed")
	set := Start([]ServerConfig{{Name: "test", Command: bin, Env: []EnvVar{{"MCPTEST_TOKEN", secret}}, Source: "test"}},
		Options{Logger: log, Environ: os.Environ(), Cwd: t.TempDir(), ClientVersion: "v0"})
	defer set.Close()

	tools := started(t, set)
	names := toolNames(tools)
	for _, want := range []string{"mcp__test__echo", "mcp__test__fail", "mcp__test__image", "mcp__test__add_tool", "mcp__test__crash"} {
		if !has(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if has(names, "mcp__test__badschema") {
		t.Errorf("the tool with a bad schema was offered: %v", names)
	}
	if !strings.Contains(logBuf.String(), "badschema") || !strings.Contains(logBuf.String(), "MCP server test") {
		t.Errorf("no warning naming the server and the skipped tool:\n%s", logBuf.String())
	}
	prov := tools[0].Server
	if prov.Name != "test" || prov.Command != bin || prov.ServerName != "mcptest" || prov.ServerVersion != "1.2.3" || prov.PID == 0 {
		t.Errorf("provenance = %+v", prov)
	}
	var echo, peek ServerTool
	for _, tl := range tools {
		switch tl.Spec.Name {
		case "mcp__test__echo":
			echo = tl
		case "mcp__test__peek":
			peek = tl
		}
	}
	if !strings.Contains(string(echo.Spec.Parameters), `"text"`) {
		t.Errorf("echo's schema = %s", echo.Spec.Parameters)
	}
	// the server's title and readOnlyHint reach the host; a tool without
	// them has none
	if echo.Tool != "echo" || echo.Title != "" || echo.ReadOnly || peek.Tool != "peek" || peek.Title != "Peek at a text" || !peek.ReadOnly {
		t.Errorf("echo = %q %q read-only %v, peek = %q %q read-only %v; want echo untitled and not read-only, peek titled and read-only",
			echo.Tool, echo.Title, echo.ReadOnly, peek.Tool, peek.Title, peek.ReadOnly)
	}

	ctx := context.Background()
	calls := []struct {
		tool, args, want string
		isError          bool
	}{
		{"mcp__test__echo", `{"text":"hi"}`, "echo: hi", false},
		{"mcp__test__fail", `{}`, "it failed on purpose", true},
		{"mcp__test__image", ``, "here is a picture\n[image: image/png, 18 bytes]", false},
		{"mcp__test__hasenv", `{"name":"MCPTEST_TOKEN"}`, fmt.Sprintf("MCPTEST_TOKEN is set (%d bytes)", len(secret)), false},
		{"mcp__test__hasenv", `{"name":"HARNESS_TEST_HOST_SECRET"}`, "HARNESS_TEST_HOST_SECRET is unset", false},
		{"mcp__nope__echo", `{}`, "no MCP tool mcp__nope__echo in this session", true},
	}
	for _, c := range calls {
		r := set.Call(ctx, c.tool, json.RawMessage(c.args))
		if r.Content != c.want || r.IsError != c.isError {
			t.Errorf("%s(%s) = %q, isError %v; want %q, %v", c.tool, c.args, r.Content, r.IsError, c.want, c.isError)
		}
	}

	// An image comes as a block too, with its bytes; text alone as none.
	img := set.Call(ctx, "mcp__test__image", nil)
	if len(img.Blocks) != 2 || img.Blocks[0].Text != "here is a picture" || img.Blocks[1].Kind != tool.BlockImage ||
		img.Blocks[1].MIMEType != "image/png" || len(img.Blocks[1].Data) != 18 {
		t.Errorf("image blocks = %+v, want the text and the 18-byte PNG", img.Blocks)
	}
	if r := set.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":"hi"}`)); r.Blocks != nil {
		t.Errorf("a text result has blocks %+v", r.Blocks)
	}

	// tools/list_changed: the new tool is there for the next list.
	if r := set.Call(ctx, "mcp__test__add_tool", nil); r.IsError {
		t.Fatalf("add_tool: %s", r.Content)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !has(toolNames(set.Tools()), "mcp__test__late") {
		if time.Now().After(deadline) {
			t.Fatalf("after tools/list_changed the tools are %v", toolNames(set.Tools()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := set.Call(ctx, "mcp__test__late", nil); r.Content != "late tool ran" {
		t.Errorf("late = %+v", r)
	}

	// A server that dies mid-call: an error result with its last stderr
	// lines; the next call starts it again.
	r := set.Call(ctx, "mcp__test__crash", nil)
	if !r.IsError || !strings.Contains(r.Content, "crashing on purpose") || !strings.Contains(r.Content, "MCP server test") {
		t.Errorf("crash = %+v", r)
	}
	if pidAlive(prov.PID) {
		t.Errorf("the crashed server %d is still there", prov.PID)
	}
	if r := set.Call(ctx, "mcp__test__echo", json.RawMessage(`{"text":"again"}`)); r.Content != "echo: again" {
		t.Errorf("echo after the crash = %+v", r)
	}
	newPID := set.Tools()[0].Server.PID
	if newPID == prov.PID || newPID == 0 {
		t.Errorf("restarted server pid %d, was %d", newPID, prov.PID)
	}

	set.Close()
	if pidAlive(newPID) {
		t.Errorf("server %d still alive after Close", newPID)
	}
	if strings.Contains(logBuf.String(), secret) {
		t.Errorf("the log holds the server's secret:\n%s", logBuf.String())
	}
	if !strings.Contains(logBuf.String(), "mcptest up") {
		t.Errorf("the server's stderr is not in the log:\n%s", logBuf.String())
	}
}

// TestHungCall: a call the server never answers ends after CallTimeout as
// an error result with the server's last stderr lines; the server is
// stopped and started again for the next call, and a cancelled call
// returns as cancelled, not timed out. (No timings asserted: the results
// say which way each call ended.)
func TestHungCall(t *testing.T) {
	bin := testServer(t)
	set := Start([]ServerConfig{{Name: "test", Command: bin}}, Options{Environ: os.Environ(), CallTimeout: 3 * time.Second})
	defer set.Close()
	pid := started(t, set)[0].Server.PID
	r := set.Call(context.Background(), "mcp__test__hang", nil)
	if !r.IsError || !strings.Contains(r.Content, "did not answer within 3s") || !strings.Contains(r.Content, "hanging on purpose") {
		t.Errorf("hang = %+v", r)
	}
	for deadline := time.Now().Add(10 * time.Second); pidAlive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the hung server %d is still running 10 s after its call timed out", pid)
		}
	}
	if r := set.Call(context.Background(), "mcp__test__echo", json.RawMessage(`{"text":"back"}`)); r.Content != "echo: back" {
		t.Errorf("echo after the hang = %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if r := set.Call(ctx, "mcp__test__hang", nil); !r.IsError || r.Content != "cancelled" {
		t.Errorf("cancelled hang = %+v", r)
	}
}

func TestStartFailures(t *testing.T) {
	bin := testServer(t)
	cases := []struct {
		name    string
		cfg     ServerConfig
		want    []string
		confine func(ServerConfig, string) (pluginhost.Supervisor, error)
	}{
		{"sandbox without a confiner", ServerConfig{Name: "boxed", Command: bin, Sandbox: SandboxWorkspaceWrite},
			[]string{"MCP server boxed", "not started", "sandbox workspace-write: this host cannot confine MCP servers", "never run without one"}, nil},
		{"sandbox cannot be had", ServerConfig{Name: "boxed", Command: bin, Sandbox: SandboxReadOnly},
			[]string{"MCP server boxed", "not started", "sandbox read-only: this kernel has no Landlock"},
			func(ServerConfig, string) (pluginhost.Supervisor, error) {
				return nil, errors.New("this kernel has no Landlock")
			}},
		{"missing command", ServerConfig{Name: "gone", Command: "/nonexistent/mcp-server", Env: []EnvVar{{"TOKEN", "tok-1234567"}}},
			[]string{"MCP server gone", "not started", "start /nonexistent/mcp-server", "installed"}, nil},
		{"not an MCP server", ServerConfig{Name: "cat", Command: "sh", Args: []string{"-c", "echo oops tok-1234567 >&2; echo nonsense; sleep 30"}, Env: []EnvVar{{"TOKEN", "tok-1234567"}}},
			[]string{"MCP server cat", "not started", "initialize", "oops [redacted]"}, nil},
		{"bad name", ServerConfig{Name: "a b", Command: bin}, []string{`MCP server name "a b"`}, nil},
		{"never answers initialize", ServerConfig{Name: "mute", Command: "sleep", Args: []string{"30"}},
			[]string{"MCP server mute", "not started", "initialize", "no answer within 2s"}, nil},
		{"http refused", ServerConfig{Name: "web", Type: HTTP, URL: "http://user:pw@127.0.0.1:1/mcp?key=tok-1234567", Headers: []EnvVar{{"Authorization", "Bearer tok-1234567"}}},
			[]string{"MCP server web", "not started", "initialize"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logBuf logtest.Buffer
			log := hclog.New(&hclog.LoggerOptions{Output: &logBuf})
			start := time.Now()
			set := Start([]ServerConfig{c.cfg}, Options{Logger: log, Environ: os.Environ(), StartTimeout: 2 * time.Second, Confine: c.confine,
				Backoff: time.Hour}) // no restart: one start, one line
			if tools := started(t, set); len(tools) != 0 {
				t.Errorf("tools = %v", toolNames(tools))
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("a failing server took %s", d)
			}
			set.Close()
			out := logBuf.String()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("log lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "tok-1234567") || strings.Contains(out, ":pw@") {
				t.Errorf("the log holds a secret:\n%s", out)
			}
			if n := strings.Count(out, "not started"); n > 1 {
				t.Errorf("%d warnings, want one line:\n%s", n, out)
			}
		})
	}
}

// TestHTTPServer reaches the test server over streamable HTTP and over
// the older HTTP+SSE transport, with a header.
func TestHTTPServer(t *testing.T) {
	for _, typ := range []string{HTTP, SSE} {
		t.Run(typ, func(t *testing.T) { testRemote(t, typ) })
	}
}

func testRemote(t *testing.T, typ string) {
	bin := testServer(t)
	cmd := exec.Command(bin, "-"+typ, "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("read the server's URL: %v", err)
	}
	url := strings.TrimSpace(line)
	set := Start([]ServerConfig{{Name: "web", Type: typ, URL: url, Headers: []EnvVar{{"X-Test", "yes"}}}},
		Options{Environ: os.Environ()})
	defer set.Close()
	tools := started(t, set)
	if !has(toolNames(tools), "mcp__web__echo") {
		t.Fatalf("tools = %v", toolNames(tools))
	}
	if p := tools[0].Server; p.URL != url || p.ServerName != "mcptest" || p.Command != "" {
		t.Errorf("provenance = %+v", p)
	}
	if r := set.Call(context.Background(), "mcp__web__echo", json.RawMessage(`{"text":"over http"}`)); r.Content != "echo: over http" || r.IsError {
		t.Errorf("echo = %+v", r)
	}
	// tools/list_changed reaches the client over this transport too
	if r := set.Call(context.Background(), "mcp__web__add_tool", nil); r.IsError {
		t.Fatalf("add_tool = %+v", r)
	}
	if !has(toolNames(set.Tools()), "mcp__web__late") {
		t.Errorf("after add_tool: %v", toolNames(set.Tools()))
	}
}

func TestParseFile(t *testing.T) {
	env := map[string]string{"GH": "ghp_x", "HOST": "example.com"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name, text string
		want       []ServerConfig
		err        string
	}{
		{"claude shape", `{"mcpServers":{
			"gh":{"command":"npx","args":["-y","server-github"],"env":{"GITHUB_TOKEN":"${GH}"}},
			"docs":{"type":"http","url":"https://${HOST}/mcp","headers":{"Authorization":"Bearer ${GH}"}},
			"old":{"type":"sse","url":"https://x/sse"},
			"bare":{"url":"https://y/mcp"},
			"def":{"command":"${NOPE:-srv}"}}}`,
			[]ServerConfig{
				{Name: "bare", Type: HTTP, URL: "https://y/mcp", Source: "f"},
				{Name: "def", Command: "srv", Source: "f"},
				{Name: "docs", Type: HTTP, URL: "https://example.com/mcp", Headers: []EnvVar{{"Authorization", "Bearer ghp_x"}}, Source: "f"},
				{Name: "gh", Command: "npx", Args: []string{"-y", "server-github"}, Env: []EnvVar{{"GITHUB_TOKEN", "ghp_x"}}, Source: "f"},
				{Name: "old", Type: SSE, URL: "https://x/sse", Source: "f"},
			}, ""},
		{"empty", `{}`, nil, ""},
		{"not json", `{"mcpServers":`, nil, "read f"},
		{"bad entries kept apart", `{"mcpServers":{"ok":{"command":"a"},"x":{},"y":{"type":"ws","url":"ws://q"}}}`,
			[]ServerConfig{{Name: "ok", Command: "a", Source: "f"}}, "no command"},
		{"sandbox keys", `{"mcpServers":{"a":{"command":"x","sandbox":"workspace-write","network":"on"},"b":{"command":"x","sandbox":"read-only"},"c":{"command":"x","sandbox":"off","network":"off"}}}`,
			[]ServerConfig{{Name: "a", Command: "x", Sandbox: SandboxWorkspaceWrite, Network: NetworkOn, Source: "f"},
				{Name: "b", Command: "x", Sandbox: SandboxReadOnly, Source: "f"},
				{Name: "c", Command: "x", Sandbox: SandboxOff, Network: NetworkOff, Source: "f"}}, ""},
		{"bad sandbox", `{"mcpServers":{"a":{"command":"x","sandbox":"workspace"}}}`, nil, `f: MCP server a: sandbox "workspace" is not`},
		{"bad network", `{"mcpServers":{"a":{"command":"x","sandbox":"read-only","network":"maybe"}}}`, nil, `f: MCP server a: network "maybe" is not "off" or "on"`},
		{"network without sandbox", `{"mcpServers":{"a":{"command":"x","network":"on"}}}`, nil, `f: MCP server a: network "on" has no effect without a sandbox`},
		{"sandboxed http", `{"mcpServers":{"w":{"type":"http","url":"https://h/mcp","sandbox":"read-only"}}}`, nil, "f: MCP server w: sandbox and network apply to stdio servers only"},
		{"start timeout", `{"mcpServers":{"a":{"command":"x","startTimeout":90},"w":{"url":"https://h/mcp","startTimeout":0.5}}}`,
			[]ServerConfig{{Name: "a", Command: "x", StartTimeout: 90 * time.Second, Source: "f"},
				{Name: "w", Type: HTTP, URL: "https://h/mcp", StartTimeout: 500 * time.Millisecond, Source: "f"}}, ""},
		{"bad start timeout", `{"mcpServers":{"a":{"command":"x","startTimeout":0},"b":{"command":"x","startTimeout":7200}}}`, nil,
			"f: MCP server a: startTimeout 0 is not a number of seconds above 0 and at most 3600"},
		{"start timeout not a number", `{"mcpServers":{"a":{"command":"x","startTimeout":"60s"}}}`, nil, "read f"},
		{"http with network", `{"mcpServers":{"w":{"url":"https://h/mcp","network":"off"}}}`, nil, "f: MCP server w: sandbox and network apply to stdio servers only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseFile([]byte(c.text), "f", getenv)
			if (err != nil) != (c.err != "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err = %v, want %q", err, c.err)
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(c.want)
			if string(gb) != string(wb) {
				t.Errorf("got  %s\nwant %s", gb, wb)
			}
		})
	}
}

func TestMergeAndFiles(t *testing.T) {
	a := []ServerConfig{{Name: "x", Command: "1"}, {Name: "y", Command: "2"}}
	b := []ServerConfig{{Name: "x", Command: "3"}}
	got := Merge(a, b)
	if len(got) != 2 || got[0].Command != "3" || got[1].Command != "2" {
		t.Errorf("Merge = %+v", got)
	}
	if got, err := LoadFile(filepath.Join(t.TempDir(), "none.json"), nil); got != nil || err != nil {
		t.Errorf("LoadFile(missing) = %v, %v", got, err)
	}
	// Servers another user could have added are commands harness would
	// run: a file writable by group or others is refused.
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers":{"x":{"command":"evil-cmd"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadFile(path, nil); len(got) != 1 || err != nil {
		t.Errorf("LoadFile(0600) = %v, %v", got, err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadFile(path, nil); got != nil || err == nil || !strings.HasPrefix(err.Error(), "MCP servers file "+path+" is writable by group or others (mode 0666") ||
		strings.Contains(err.Error(), "evil-cmd") {
		t.Errorf("LoadFile(0666) = %v, %v; want a refusal naming the file", got, err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@h/mcp?key=1#f": "https://h/mcp",
		"http://h:8080/sse":         "http://h:8080/sse",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","env":{"K":"${V:-d}"}}}}`))
	f.Add([]byte(`{"mcpServers":{"b":{"type":"http","url":"http://h/${X"}}}`))
	f.Add([]byte(`{"mcpServers":{"c":{"command":"x","sandbox":"workspace-write","network":"on"}}}`))
	f.Add([]byte(`{"mcpServers":{"d":{"url":"http://h","sandbox":"off"}}}`))
	f.Add([]byte(`{"mcpServers":{"e":{"command":"x","startTimeout":1e308}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _ := ParseFile(b, "f", func(string) string { return "v" })
		for _, c := range got {
			if err := c.check(); err != nil {
				t.Errorf("ParseFile returned a server that fails its check: %v", err)
			}
			if c.StartTimeout < 0 || c.StartTimeout > maxStartTimeout {
				t.Errorf("ParseFile returned %s with startTimeout %s", c.Name, c.StartTimeout)
			}
			if c.Sandbox != "" && c.transport() != Stdio || c.Network == NetworkOn && !c.Sandboxed() {
				t.Errorf("ParseFile returned %s with sandbox %q, network %q", c.transport(), c.Sandbox, c.Network)
			}
		}
	})
}
