package acpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// TestMCPCallTitleAndProgress: an MCP call shows in the editor by its
// title ("server: title") with the raw name the model called in _meta
// (harness.tool, harness.mcpServer), on its tool_call and on the
// permission request about it; its progress reaches the editor as
// tool_call_update content before the call ends.
func TestMCPCallTitleAndProgress(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		n := s.begin(prompt)
		s.add(event.StepStart{Turn: n, Step: 1}, event.ToolCall{Turn: n, Step: 1, CallID: "m1", Name: "mcp__test__echo",
			Args: `{"text":"hi"}`, MCP: &event.MCPServer{Name: "test", ServerName: "mcptest"}, Title: "test: Echo"})
		d, err := live.(Asker).AskPermission(ctx, "m1", "mcp__test__echo", "", "mcp__test__echo")
		if err != nil || d != event.AllowOnce {
			return "", fmt.Errorf("asked: %s, %v", d, err)
		}
		live.(interface{ ToolProgress(_, _, _ string) }).ToolProgress(s.id, "m1", "step 1 (1/2)\n")
		s.add(event.ToolResult{Turn: n, Step: 1, CallID: "m1", Content: "echo: hi"}, event.StepEnd{Turn: n, Step: 1},
			event.TurnEnd{Turn: n, Reason: event.ReasonCompleted})
		return event.ReasonCompleted, nil
	}), Options{})
	id := c.newSession()
	from := c.len()
	pid := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	i := c.wait(from, "a permission request", func(m wireMsg) bool { return m.Method == "session/request_permission" })
	ask := c.at(i)
	var req struct {
		ToolCall struct {
			Title string
			Meta  map[string]map[string]string `json:"_meta"`
		}
	}
	if err := json.Unmarshal(ask.Params, &req); err != nil {
		t.Fatal(err)
	}
	if req.ToolCall.Title != "test: Echo" || req.ToolCall.Meta["harness"]["tool"] != "mcp__test__echo" || req.ToolCall.Meta["harness"]["mcpServer"] != "test" {
		t.Errorf("permission request = %s, want the title test: Echo and _meta naming mcp__test__echo of server test", ask.Params)
	}
	c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`, ask.ID))
	m, end := c.response(pid)
	if stopReason(t, m) != "end_turn" {
		t.Fatalf("prompt answered %s", m.raw)
	}
	var seen []string
	for _, u := range c.updates(id, from, end) {
		switch u.kind() {
		case "tool_call":
			var tc struct {
				Title string
				Meta  map[string]map[string]string `json:"_meta"`
			}
			json.Unmarshal(mustJSON(u.Update), &tc)
			if tc.Title != "test: Echo" || tc.Meta["harness"]["tool"] != "mcp__test__echo" {
				t.Errorf("tool_call = %s, want the title and the raw name in _meta", mustJSON(u.Update))
			}
			seen = append(seen, "tool_call")
		case "tool_call_update":
			switch raw := string(mustJSON(u.Update)); {
			case strings.Contains(raw, "step 1 (1/2)"):
				seen = append(seen, "progress")
			case strings.Contains(raw, `"completed"`):
				seen = append(seen, "completed")
			}
		}
	}
	if got := strings.Join(seen, " "); got != "tool_call progress completed" {
		t.Errorf("updates %q, want the tool_call, its progress, then its completion", got)
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
