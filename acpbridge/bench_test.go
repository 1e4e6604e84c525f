package acpbridge

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/harness-dev/harness/acpbridge/internal/jsonrpc"
	"github.com/harness-dev/harness/host/event"
)

// BenchmarkReplay measures the bridge's share of session/load: translating
// a 10,000-event session and writing its updates (to io.Discard).
func BenchmarkReplay(b *testing.B) {
	s := &fakeSession{id: "bench", cwd: "/bench"}
	text := strings.Repeat("The lock is taken in Open and released in Close. ", 4)
	args := `{"command":"grep -rn Lock host/","description":"Find the locks"}`
	for t := 1; len(s.events) < 10_000; t++ {
		s.add(event.TurnStart{Turn: t}, event.UserMessage{Content: event.Text("Where is the lock taken?")},
			event.StepStart{Turn: t, Step: 1},
			event.AssistantMessage{Turn: t, Step: 1, Reasoning: text, Text: text, ToolCalls: []event.ToolCallRequest{{ID: "c", Name: "bash", Arguments: args}}},
			event.ToolCall{Turn: t, Step: 1, CallID: "c", Name: "bash", Args: args},
			event.ToolResult{Turn: t, Step: 1, CallID: "c", Content: text + text},
			event.StepEnd{Turn: t, Step: 1}, event.StepStart{Turn: t, Step: 2},
			event.AssistantMessage{Turn: t, Step: 2, Text: text}, event.StepEnd{Turn: t, Step: 2},
			event.TurnEnd{Turn: t, Reason: event.ReasonCompleted})
	}
	br := &bridge{log: hclog.NewNullLogger(), conn: jsonrpc.NewConn(strings.NewReader(""), io.Discard, jsonrpc.Options{})}
	b.ReportAllocs()
	for b.Loop() {
		if err := br.replay(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.events)), "events")
}
