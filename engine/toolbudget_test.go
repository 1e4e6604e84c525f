package engine_test

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
)

// recorder streams from a script, recording each request.
type recorder struct {
	m    *script.Provider
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recorder) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.m.Stream(ctx, req)
}

func (r *recorder) requests() []llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]llm.Request(nil), r.reqs...)
}

func toolNames(req llm.Request) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	return names
}

// mcpNames are the MCP tools req offers in full.
func mcpNames(req llm.Request) []string {
	var names []string
	for _, n := range toolNames(req) {
		if strings.HasPrefix(n, "mcp__") {
			names = append(names, n)
		}
	}
	return names
}

// TestToolBudget is the acceptance: a 32k window and an MCP
// server of 60 tools of about 1 KB of schema each, with the built-in
// plugins (their ~2,900 tokens of schemas are never deferred) and
// without. The first request's tools take at most 10 % of the window,
// tool_search in the place of the MCP tools, listing each by a line when
// that fits and by name when not; tool_search returns a deferred tool's
// schema (by a query, then by the name the listing shows) and the model
// calls that tool in the next step. A new runtime on the reopened session
// still sends the tool in full: what was loaded is read from the log.
func TestToolBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an MCP server")
	}
	t.Parallel()
	const window = 32768
	bin := mcpTestServer(t)
	cases := []struct {
		name    string
		plugins []string
		listed  string // how tool_search's description names gen_60
	}{
		{name: "built-in plugins", plugins: []string{pluginDir}, listed: ", gen_60, "},
		{name: "no plugins", listed: "- mcp__gen__gen_60: Generated tool number 60: answers with its arguments."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			runtime := func(lines ...string) (*engine.Runtime, *recorder) {
				sc, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
				if err != nil {
					t.Fatal(err)
				}
				rec := &recorder{m: sc}
				h, err := engine.New(engine.Config{StateDir: state, PluginDirs: c.plugins, Model: rec, ModelName: "script", ContextWindow: window, MaxSteps: 10})
				if err != nil {
					t.Fatal(err)
				}
				if err := h.StartTools(context.Background()); err != nil {
					t.Fatal(err)
				}
				return h, rec
			}
			servers := []engine.MCPServer{{Name: "gen", Command: bin, Args: []string{"-tools", "60"}, Source: "the test"}}

			h, rec := runtime(
				`{"toolCalls":[{"id":"e1","name":"mcp__gen__gen_05","args":{}}],"expect":{"toolsInclude":["tool_search"]}}`,
				`{"toolCalls":[{"id":"s1","name":"tool_search","args":{"query":"number 42"}}],"expect":{"lastContains":"Error: mcp__gen__gen_05 is not loaded: call tool_search with its name first"}}`,
				`{"toolCalls":[{"id":"s2","name":"tool_search","args":{"names":["gen_17"]}}],"expect":{"lastContains":"<tool name=\"mcp__gen__gen_42\">"}}`,
				`{"toolCalls":[{"id":"g1","name":"mcp__gen__gen_17","args":{"subject":"budget"}}],"expect":{"toolsInclude":["mcp__gen__gen_17","mcp__gen__gen_42"],"lastContains":"tool number 17"}}`,
				`{"text":"done","expect":{"lastContains":"gen_17 ran"}}`,
			)
			s, err := h.CreateSession(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			h.ConnectMCP(s, servers)
			if n := len(h.MCPTools(s.ID())); n < 60 {
				t.Fatalf("%d MCP tools, want the 60 generated and the server's own", n)
			}
			out := h.Run(context.Background(), s, nil, event.Text("use generated tool 17"), nil, &recordingAsker{})
			if out.Reason != event.ReasonCompleted {
				t.Fatalf("turn: %s %v", out.Reason, out.Err)
			}
			reqs := rec.requests()
			first := reqs[0]
			if n := llm.EstimateTools(first.Tools); n > window/10 {
				t.Errorf("the first request's tools take ~%d tokens, more than 10 %% of %d", n, window)
			}
			names := toolNames(first)
			if c.plugins != nil && !slices.Contains(names, "bash") {
				t.Errorf("the first request lacks the built-in tools: %v", names)
			}
			for _, n := range names {
				if strings.HasPrefix(n, "mcp__") {
					t.Errorf("the first request offers %s in full", n)
				}
			}
			search := first.Tools[len(first.Tools)-1]
			if search.Name != engine.ToolSearch || !strings.Contains(search.Description, c.listed) {
				t.Errorf("tool_search's description does not list the deferred tools as %q: %q", c.listed, search.Description)
			}
			if !strings.Contains(reqs[2].Messages[len(reqs[2].Messages)-1].Text, `"parameters":{"properties":{"detail"`) {
				t.Errorf("tool_search's result lacks the schema: %q", reqs[2].Messages[len(reqs[2].Messages)-1].Text)
			}
			loaded := mcpNames(reqs[len(reqs)-1])
			id := s.ID()
			if err := h.CloseSession(s); err != nil {
				t.Fatal(err)
			}
			h.Close()

			// A restart: the loaded tools come from the log.
			h, rec = runtime(`{"text":"still here","expect":{"toolsInclude":["mcp__gen__gen_17","mcp__gen__gen_42","tool_search"]}}`)
			defer h.Close()
			if s, err = h.OpenSession(id); err != nil {
				t.Fatal(err)
			}
			h.ConnectMCP(s, servers)
			if out := h.Run(context.Background(), s, nil, event.Text("again"), nil, &recordingAsker{}); out.Reason != event.ReasonCompleted {
				t.Fatalf("turn after the restart: %s %v", out.Reason, out.Err)
			}
			if got := mcpNames(rec.requests()[0]); !slices.Equal(got, loaded) || len(got) < 2 {
				t.Errorf("after the restart the request offers %v in full, want the loaded %v", got, loaded)
			}
			h.CloseSession(s)
		})
	}
}
