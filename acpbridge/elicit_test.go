package acpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// TestElicit: an MCP server's question goes to a client that advertised
// elicitation.form as elicitation/create scoped to the session and the
// tool call, and its answer comes back; a client without the capability
// is not asked: the question is declined.
func TestElicit(t *testing.T) {
	t.Parallel()
	turn := func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		n := s.begin(prompt)
		a, err := live.(Elicitor).Elicit(ctx, "call_7", Elicitation{Message: "Color?", Schema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}}}`)})
		text := fmt.Sprintf("%s %v %v", a.Action, a.Content, err)
		live.TextDelta(s.id, text)
		s.add(event.AssistantMessage{Turn: n, Step: 1, Text: text}, event.TurnEnd{Turn: n, Reason: event.ReasonCompleted})
		return event.ReasonCompleted, nil
	}
	tests := map[string]struct {
		caps   map[string]any
		answer string // the client's result, "" when it must not be asked
		want   string
	}{
		"asked":      {map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, `{"action":"accept","content":{"color":"teal"}}`, "accept map[color:teal] <nil>"},
		"cancelled":  {map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, `{"action":"cancel"}`, "cancel map[] <nil>"},
		"odd action": {map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, `{"action":"maybe"}`, ` map[] ask the editor an MCP server's question: it answered the unknown action "maybe"`},
		"no form":    {map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}, "", "decline map[] <nil>"},
		"none":       {map[string]any{}, "", "decline map[] <nil>"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := serve(t, newFakeAgent(turn), Options{})
			c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": tc.caps}, nil)
			var r struct{ SessionID string }
			c.call("session/new", map[string]any{"cwd": "/work", "mcpServers": []any{}}, &r)
			from := c.len()
			pid := c.send("session/prompt", map[string]any{"sessionId": r.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
			if tc.answer != "" {
				i := c.wait(from, "elicitation/create", func(m wireMsg) bool { return m.Method == "elicitation/create" })
				m := c.at(i)
				var p map[string]any
				json.Unmarshal(m.Params, &p)
				if p["mode"] != "form" || p["sessionId"] != r.SessionID || p["toolCallId"] != "call_7" || p["message"] != "Color?" || p["requestedSchema"] == nil {
					t.Errorf("elicitation/create params = %s", m.Params)
				}
				c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, tc.answer))
			}
			m, i := c.response(pid)
			if stopReason(t, m) != "end_turn" {
				t.Fatalf("prompt answered %s", m.raw)
			}
			var text strings.Builder
			for _, u := range c.updates(r.SessionID, from, i) {
				if u.kind() == "agent_message_chunk" {
					text.WriteString(u.text())
				}
			}
			if text.String() != tc.want {
				t.Errorf("the turn got %q, want %q", text.String(), tc.want)
			}
			if tc.answer == "" {
				for j := from; j < i; j++ {
					if c.at(j).Method == "elicitation/create" {
						t.Errorf("a client without elicitation.form was asked: %s", c.at(j).raw)
					}
				}
			}
		})
	}
}
