//go:build unix

package engine_test

import (
	"context"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/internal/logtest"
)

// toolsSeen is a model that records the tool names of each request.
type toolsSeen struct {
	agent.Model
	mu    sync.Mutex
	names [][]string
}

// Stream implements agent.Model.
func (m *toolsSeen) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	m.mu.Lock()
	m.names = append(m.names, names)
	m.mu.Unlock()
	return m.Model.Stream(ctx, req)
}

// TestStepMergesPluginsAndMCP: one step's tools are the plugins' and the
// session's MCP servers' together, and when a plugin offers a tool of an
// MCP tool's name (testdata/shadow's mcp__test__echo) the plugin's wins:
// the model is offered the name once, the call runs on the plugin, and
// its tool/call names the plugin, not the server; the server's other
// tools stay in the list.
func TestStepMergesPluginsAndMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server and a plugin")
	}
	t.Parallel()
	bin := mcpTestServer(t)
	plugins := t.TempDir()
	if b, err := goBuild("-o", filepath.Join(plugins, "shadow"), "./testdata/shadow").CombinedOutput(); err != nil {
		t.Fatalf("go build shadow: %v\n%s", err, b)
	}
	sc, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"e","name":"mcp__test__echo","args":{"text":"x"}},{"id":"p","name":"mcp__test__peek","args":{"text":"y"}}]}`,
		`{"text":"done","expect":{"lastRole":"tool"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	model := &toolsSeen{Model: sc}
	state := t.TempDir()
	h, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{plugins}, Model: model, ModelName: "script",
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

	model.mu.Lock()
	first := model.names[0]
	model.mu.Unlock()
	if n := strings.Count(strings.Join(first, " ")+" ", "mcp__test__echo "); n != 1 || !slices.Contains(first, "mcp__test__peek") {
		t.Errorf("the first step offered %v, want mcp__test__echo once (the plugin's) and the server's mcp__test__peek", first)
	}
	evs, _ := logtest.ReadLog(t, state)
	calls, results := map[string]map[string]any{}, map[string]map[string]any{}
	for _, e := range evs {
		d, _ := e["data"].(map[string]any)
		switch e["type"] {
		case "tool/call":
			calls[d["callId"].(string)] = d
		case "tool/result":
			results[d["callId"].(string)] = d
		}
	}
	if p, _ := calls["e"]["plugin"].(map[string]any); p["name"] != "shadow" || calls["e"]["mcp"] != nil {
		t.Errorf("tool/call e = %v, want the shadow plugin's", calls["e"])
	}
	if got := results["e"]["content"]; got != "the plugin's echo" {
		t.Errorf("result e = %v, want the plugin's answer", got)
	}
	if m, _ := calls["p"]["mcp"].(map[string]any); m["name"] != "test" || calls["p"]["plugin"] != nil {
		t.Errorf("tool/call p = %v, want the MCP server's", calls["p"])
	}
	if results["p"]["isError"] == true {
		t.Errorf("result p = %v, want the server's answer", results["p"])
	}
}
