package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

// TestCompactDerivesHistory: after a context/compact the history is its
// context message (the summary and the todo list verbatim), the last user
// message when it came before Keep, then the kept messages and the ones
// after; the log keeps every event, and a reopened session derives the same.
func TestCompactDerivesHistory(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "c")
	must := func(p event.Payload) event.Event {
		t.Helper()
		ev, err := s.Append(p)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	must(event.TurnStart{Turn: 1})
	must(event.UserMessage{Content: event.Text("first question")})
	must(event.StepStart{Turn: 1, Step: 1})
	must(event.AssistantMessage{Turn: 1, Step: 1, Text: "first answer", Usage: &event.Usage{InputTokens: 100, CacheReadTokens: 20, CacheWriteTokens: 30, OutputTokens: 5}})
	if tok, counted, ok := s.ContextUsage(); !ok || tok != 155 || counted != 2 { // cache writes are prompt too
		t.Errorf("ContextUsage = %d, %d, %v", tok, counted, ok)
	}
	must(event.TodoWrite{Todos: []event.Todo{{Content: "keep  me", Status: event.TodoInProgress}, {Content: "then this", Status: event.TodoPending}}})
	must(event.StepEnd{Turn: 1, Step: 1})
	must(event.TurnEnd{Turn: 1, Reason: event.ReasonCompleted})
	must(event.TurnStart{Turn: 2})
	must(event.UserMessage{Content: event.Text("second question")})
	kept := must(event.StepStart{Turn: 2, Step: 1})
	must(event.AssistantMessage{Turn: 2, Step: 1, Text: "second answer"})
	must(event.StepEnd{Turn: 2, Step: 1})

	// Refused: in a step, past its own seq, without a summary.
	for _, p := range []event.Compact{
		{Turn: 2, Summary: "s", Reason: event.CompactAuto, Keep: int64(s.Len()) + 1},
		{Turn: 2, Reason: event.CompactAuto},
		{Turn: 1, Summary: "s", Reason: event.CompactAuto},
	} {
		var inv *InvalidError
		if _, err := s.Append(p); !errors.As(err, &inv) {
			t.Errorf("Append(%+v) = %v, want an InvalidError", p, err)
		}
	}
	must(event.Compact{Turn: 2, Summary: "They asked twice.", Keep: kept.Seq, Reason: event.CompactCommand, TokensBefore: 50, TokensAfter: 30, Limit: 8192})
	check := func(s *Session) {
		t.Helper()
		msgs := s.Messages()
		if len(msgs) != 3 {
			t.Fatalf("history %+v", msgs)
		}
		for _, want := range []string{"They asked twice.", "- [in_progress] keep  me\n", "- [pending] then this\n"} {
			if !strings.Contains(msgs[0].Text, want) {
				t.Errorf("context message lacks %q:\n%s", want, msgs[0].Text)
			}
		}
		if msgs[1].Role != llm.RoleUser || msgs[1].Text != "second question" || msgs[2].Text != "second answer" {
			t.Errorf("after the summary: %+v", msgs[1:])
		}
		if seqs := s.MessageSeqs(); len(seqs) != 3 || seqs[0] != -1 || seqs[1] != -1 || seqs[2] != kept.Seq+1 {
			t.Errorf("MessageSeqs = %v", seqs)
		}
		if _, _, ok := s.ContextUsage(); ok {
			t.Error("usage reported before the compaction still counts")
		}
		if s.ContextLimit() != 8192 {
			t.Errorf("ContextLimit = %d", s.ContextLimit())
		}
	}
	check(s)
	n := s.Len()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := st.Open("c")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Len() != n+1 { // + the interrupted turn's end
		t.Errorf("reopened: %d events, want %d", r.Len(), n+1)
	}
	check(r)
}
