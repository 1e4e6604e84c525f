package session

import (
	"sync"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
)

var t0 = time.Date(2026, 11, 29, 19, 47, 10, 0, time.UTC)

// clock is a deterministic clock: every reading is one second after the last.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func newStore(t testing.TB) *Store {
	t.Helper()
	c := &clock{t: t0}
	return &Store{Dir: t.TempDir() + "/state/sessions", Now: c.Now}
}

func create(t testing.TB, st *Store, id string) *Session {
	t.Helper()
	s, err := st.Create(CreateOptions{ID: id, Cwd: "/src/project"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func open(t testing.TB, st *Store, id string) *Session {
	t.Helper()
	s, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustAppend(t testing.TB, s *Session, ps ...event.Payload) {
	t.Helper()
	for _, p := range ps {
		if _, err := s.Append(p); err != nil {
			t.Fatalf("append %s: %v", p.EventType(), err)
		}
	}
}

// simpleTurn is a whole turn: a prompt, one step with one tool call and its
// result, a second step with the answer.
func simpleTurn(n int, prompt string) []event.Payload {
	id := "call-" + prompt
	return []event.Payload{
		event.TurnStart{Turn: n},
		event.UserMessage{Content: event.Text(prompt)},
		event.StepStart{Turn: n, Step: 1},
		event.AssistantMessage{Turn: n, Step: 1, ToolCalls: []event.ToolCallRequest{{ID: id, Name: "bash", Arguments: `{"cmd":"ls"}`}}},
		event.ToolCall{Turn: n, Step: 1, CallID: id, Name: "bash", Args: `{"cmd":"ls"}`},
		event.ToolResult{Turn: n, Step: 1, CallID: id, Content: "a.go\nb.go"},
		event.StepEnd{Turn: n, Step: 1},
		event.StepStart{Turn: n, Step: 2},
		event.AssistantMessage{Turn: n, Step: 2, Text: "two files"},
		event.StepEnd{Turn: n, Step: 2},
		event.TurnEnd{Turn: n, Reason: event.ReasonCompleted},
	}
}
