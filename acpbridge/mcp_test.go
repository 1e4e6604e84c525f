package acpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// mcpAgent is a fakeAgent that takes stdio and http MCP servers and
// records what it was handed.
type mcpAgent struct {
	*fakeAgent
	mu   sync.Mutex
	got  map[string][]MCPServer // by session id
	http bool
}

func (a *mcpAgent) MCPTransports() (bool, bool) { return a.http, false }

func (a *mcpAgent) ConnectMCP(_ context.Context, s Session, servers []MCPServer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got[s.ID()] = servers
}

// TestMCPServers: initialize advertises what the agent takes; session/new
// hands the agent the servers of advertised transports, values included,
// and drops the rest with a warning naming them, without logging a
// secret; an agent without MCPAgent advertises nothing.
func TestMCPServers(t *testing.T) {
	t.Parallel()
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	a := &mcpAgent{fakeAgent: newFakeAgent(chatTurn("", "hi")), got: map[string][]MCPServer{}, http: true}
	c := serve(t, a, Options{Logger: hclog.New(&hclog.LoggerOptions{Output: lockedBuf{&logBuf, &logMu}})})
	m, _ := c.response(c.send("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	if !strings.Contains(string(m.Result), `"mcpCapabilities":{"http":true}`) {
		t.Errorf("initialize = %s, want mcpCapabilities http only", m.Result)
	}
	var r struct{ SessionID string }
	c.call("session/new", map[string]any{"cwd": "/work", "mcpServers": []any{
		map[string]any{"name": "local", "command": "/bin/srv", "args": []string{"-v"}, "env": []any{map[string]any{"name": "TOKEN", "value": "secret-env-1"}}},
		map[string]any{"type": "http", "name": "web", "url": "https://h/mcp", "headers": []any{map[string]any{"name": "Authorization", "value": "Bearer secret-hdr-2"}}},
		map[string]any{"type": "sse", "name": "old", "url": "https://h/sse", "headers": []any{}},
	}}, &r)
	a.mu.Lock()
	got := a.got[r.SessionID]
	a.mu.Unlock()
	want := []MCPServer{
		{Name: "local", Type: "stdio", Command: "/bin/srv", Args: []string{"-v"}, Env: []NameValue{{"TOKEN", "secret-env-1"}}},
		{Name: "web", Type: "http", URL: "https://h/mcp", Headers: []NameValue{{"Authorization", "Bearer secret-hdr-2"}}},
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("ConnectMCP got %s\nwant %s", gb, wb)
	}
	logMu.Lock()
	out := logBuf.String()
	logMu.Unlock()
	if !strings.Contains(out, "MCP server ignored") || !strings.Contains(out, "old") {
		t.Errorf("no warning naming the sse server:\n%s", out)
	}
	if strings.Contains(out, "secret-") {
		t.Errorf("the log holds a secret:\n%s", out)
	}

	// Without MCPAgent: nothing advertised.
	c2 := serve(t, newFakeAgent(chatTurn("", "hi")), Options{})
	m, _ = c2.response(c2.send("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}))
	if !strings.Contains(string(m.Result), `"mcpCapabilities":{}`) {
		t.Errorf("initialize without MCPAgent = %s", m.Result)
	}
}

type lockedBuf struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestMCPServersOnLoad: session/load and session/resume hand their
// servers to the agent when they open the session; a session already
// open on the connection keeps the servers it has.
func TestMCPServersOnLoad(t *testing.T) {
	t.Parallel()
	a := &mcpAgent{fakeAgent: newFakeAgent(chatTurn("", "hi")), got: map[string][]MCPServer{}}
	c := serve(t, a, Options{})
	id := c.newSession()
	c.call("session/close", map[string]any{"sessionId": id}, nil)
	srv := func(name string) []any {
		return []any{map[string]any{"name": name, "command": "/bin/" + name, "args": []string{}, "env": []any{}}}
	}
	for _, step := range []struct {
		method, server, want string
	}{
		{"session/load", "loaded", "loaded"},
		{"session/resume", "again", "loaded"}, // already open: unchanged
	} {
		c.call(step.method, map[string]any{"sessionId": id, "cwd": "/work", "mcpServers": srv(step.server)}, nil)
		a.mu.Lock()
		got := a.got[id]
		a.mu.Unlock()
		if len(got) != 1 || got[0].Name != step.want || got[0].Command != "/bin/"+step.want {
			t.Errorf("after %s: ConnectMCP got %+v, want %s", step.method, got, step.want)
		}
	}
}
