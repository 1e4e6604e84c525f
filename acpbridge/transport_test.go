package acpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/host/event"
)

// TestCancelRequest: $/cancel_request naming a running session/prompt
// cancels its turn, which ends as session/cancel would: the prompt answers
// stopReason cancelled after the turn's last updates, and the session
// takes the next prompt.
func TestCancelRequest(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	c := serve(t, newFakeAgent(hangTurn(started)), Options{})
	id := c.newSession()
	pid := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	<-started
	c.notify("$/cancel_request", map[string]any{"requestId": pid})
	m, i := c.response(pid)
	if stopReason(t, m) != "cancelled" {
		t.Fatalf("prompt answered %s, want cancelled", m.raw)
	}
	ups := c.updates(id, 0, i)
	if last := ups[len(ups)-1]; last.kind() != "tool_call_update" || !strings.Contains(string(last.raw), `"status":"failed"`) {
		t.Errorf("last update before the response: %s", last.raw)
	}
}

// TestPermissionAnswersMatchedByID: the editor's answers to the bridge's
// own requests are matched by id, in whatever order they come; a response
// to no request is dropped and the connection goes on.
func TestPermissionAnswersMatchedByID(t *testing.T) {
	t.Parallel()
	c := serve(t, newFakeAgent(func(ctx context.Context, s *fakeSession, prompt []event.Content, live Live) (event.Reason, error) {
		n := s.begin(prompt)
		var wg sync.WaitGroup
		got := make([]string, 2)
		for i, call := range []string{"c1", "c2"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := live.(Asker).AskPermission(ctx, call, "bash", "run "+call, "")
				got[i] = fmt.Sprintf("%s=%s%v", call, d, err)
			}()
		}
		wg.Wait()
		text := strings.Join(got, " ")
		live.TextDelta(s.id, text)
		s.add(event.AssistantMessage{Turn: n, Step: 1, Text: text}, event.TurnEnd{Turn: n, Reason: event.ReasonCompleted})
		return event.ReasonCompleted, nil
	}), Options{})
	id := c.newSession()
	from := c.len()
	pid := c.send("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}})
	asks := map[string]json.RawMessage{} // call id → request id
	isAsk := func(m wireMsg) bool { return m.Method == "session/request_permission" }
	for i := from; len(asks) < 2; i++ {
		i = c.wait(i, "two permission requests", isAsk)
		var p struct{ ToolCall struct{ ToolCallID string } }
		m := c.at(i)
		json.Unmarshal(m.Params, &p)
		asks[p.ToolCall.ToolCallID] = m.ID
	}
	c.raw(`{"jsonrpc":"2.0","id":424242,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`)
	c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":"reject_once"}}}`, asks["c2"]))
	c.raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`, asks["c1"]))
	m, i := c.response(pid)
	if stopReason(t, m) != "end_turn" {
		t.Fatalf("prompt answered %s", m.raw)
	}
	var text strings.Builder
	for _, u := range c.updates(id, from, i) {
		if u.kind() == "agent_message_chunk" {
			text.WriteString(u.text())
		}
	}
	if got, want := text.String(), "c1=allow_once<nil> c2=reject_once<nil>"; got != want {
		t.Errorf("the turn got %q, want %q", got, want)
	}
}
