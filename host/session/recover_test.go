package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
)

func calls(ids ...string) []event.ToolCallRequest {
	var cs []event.ToolCallRequest
	for _, id := range ids {
		cs = append(cs, event.ToolCallRequest{ID: id, Name: "bash", Arguments: "{}"})
	}
	return cs
}

func interrupted(step int, id string) event.ToolResult {
	return event.ToolResult{Turn: 2, Step: step, CallID: id, Content: "interrupted: no result was recorded", IsError: true}
}

func TestInterruptedTurn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		open []event.Payload // turn 2, left open
		want []event.Payload // what Open appends
		tail string          // bytes appended to the file before reopening
	}{
		{
			name: "prompt only",
			open: []event.Payload{event.TurnStart{Turn: 2}, event.UserMessage{Content: event.Text("hi")}},
			want: []event.Payload{event.TurnEnd{Turn: 2, Reason: event.ReasonInterrupted}},
		},
		{
			name: "open step, one of two calls answered",
			open: []event.Payload{
				event.TurnStart{Turn: 2},
				event.StepStart{Turn: 2, Step: 1},
				event.AssistantMessage{Turn: 2, Step: 1, ToolCalls: calls("a", "b")},
				event.ToolCall{Turn: 2, Step: 1, CallID: "a", Name: "bash"},
				event.ToolResult{Turn: 2, Step: 1, CallID: "a", Content: "done"},
				event.ToolCall{Turn: 2, Step: 1, CallID: "b", Name: "bash"},
			},
			want: []event.Payload{
				interrupted(1, "b"),
				event.StepEnd{Turn: 2, Step: 1},
				event.TurnEnd{Turn: 2, Reason: event.ReasonInterrupted},
			},
		},
		{
			name: "calls requested but never dispatched",
			open: []event.Payload{
				event.TurnStart{Turn: 2},
				event.StepStart{Turn: 2, Step: 1},
				event.AssistantMessage{Turn: 2, Step: 1, ToolCalls: calls("a", "b", "c")},
			},
			want: []event.Payload{
				interrupted(1, "a"), interrupted(1, "b"), interrupted(1, "c"),
				event.StepEnd{Turn: 2, Step: 1},
				event.TurnEnd{Turn: 2, Reason: event.ReasonInterrupted},
			},
		},
		{
			name: "between steps",
			open: []event.Payload{
				event.TurnStart{Turn: 2},
				event.StepStart{Turn: 2, Step: 1},
				event.ToolCall{Turn: 2, Step: 1, CallID: "x", Name: "bash"},
				event.StepEnd{Turn: 2, Step: 1},
			},
			want: []event.Payload{
				interrupted(1, "x"),
				event.TurnEnd{Turn: 2, Reason: event.ReasonInterrupted},
			},
		},
		{
			name: "calls of an earlier step and of the open one",
			open: []event.Payload{
				event.TurnStart{Turn: 2},
				event.StepStart{Turn: 2, Step: 1},
				event.AssistantMessage{Turn: 2, Step: 1, ToolCalls: calls("old")},
				event.StepEnd{Turn: 2, Step: 1},
				event.StepStart{Turn: 2, Step: 2},
				event.AssistantMessage{Turn: 2, Step: 2, ToolCalls: calls("new")},
			},
			want: []event.Payload{
				interrupted(2, "new"),
				event.StepEnd{Turn: 2, Step: 2},
				interrupted(1, "old"),
				event.TurnEnd{Turn: 2, Reason: event.ReasonInterrupted},
			},
		},
		{
			name: "torn tail inside the open turn",
			open: []event.Payload{
				event.TurnStart{Turn: 2},
				event.StepStart{Turn: 2, Step: 1},
				event.ToolCall{Turn: 2, Step: 1, CallID: "a", Name: "bash"},
			},
			tail: `{"seq":9,"time":"2026-11-29T19:47:10Z","type":"tool/result","data":{"turn":2,"step":1,"callId":"a","con`,
			want: []event.Payload{
				interrupted(1, "a"),
				event.StepEnd{Turn: 2, Step: 1},
				event.TurnEnd{Turn: 2, Reason: event.ReasonInterrupted},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := newStore(t)
			s := create(t, st, "crashed")
			mustAppend(t, s, simpleTurn(1, "first")...)
			mustAppend(t, s, tc.open...)
			before := s.Events()
			beforeMsgs := s.Messages()
			s.Close() // as good as a crash: the turn stays open
			if tc.tail != "" {
				f, err := os.OpenFile(filepath.Join(st.Dir, "crashed.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tc.tail)
				f.Close()
			}

			s2 := open(t, st, "crashed")
			evs := s2.Events()
			if d := cmp.Diff(before, evs[:len(before)], rawEq); d != "" {
				t.Fatalf("events before the closers changed (-want +got):\n%s", d)
			}
			var got []event.Payload
			for _, ev := range evs[len(before):] {
				p, err := ev.Decode()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, p)
				if !ev.Time.Equal(before[len(before)-1].Time) {
					t.Errorf("closer %d at %v, want the last real event's time %v", ev.Seq, ev.Time, before[len(before)-1].Time)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("closers (-want +got):\n%s", d)
			}

			results := 0
			for _, p := range tc.want {
				if _, ok := p.(event.ToolResult); ok {
					results++
				}
			}
			rec := s2.Recovery()
			if rec.InterruptedTurn != 2 || rec.SyntheticResults != results || rec.Torn.IsZero() != (tc.tail == "") {
				t.Errorf("Recovery = %+v", rec)
			}
			if _, open := s2.OpenTurn(); open || s2.LastTurn() != 2 {
				t.Errorf("turn still open, or LastTurn %d", s2.LastTurn())
			}
			if turns := s2.Turns(); turns[1].Reason != event.ReasonInterrupted || turns[1].End != int64(len(evs)-1) {
				t.Errorf("Turns = %+v", turns)
			}
			// Every synthetic result reached the model's history.
			var wantMsgs []llm.Message
			for _, p := range tc.want {
				if r, ok := p.(event.ToolResult); ok {
					wantMsgs = append(wantMsgs, llm.Message{Role: llm.RoleTool, ToolCallID: r.CallID, Text: r.Content, IsError: true})
				}
			}
			if d := cmp.Diff(wantMsgs, s2.Messages()[len(beforeMsgs):], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("new messages (-want +got):\n%s", d)
			}
			// The transcript is valid: every call has its result.
			answered := map[string]bool{}
			for _, m := range s2.Messages() {
				if m.Role == llm.RoleTool {
					answered[m.ToolCallID] = true
				}
			}
			for _, m := range s2.Messages() {
				for _, c := range m.ToolCalls {
					if !answered[c.ID] {
						t.Errorf("call %s has no result", c.ID)
					}
				}
			}

			// The repair is durable: a third open finds nothing to do.
			n := s2.Len()
			s2.Close()
			s3 := open(t, st, "crashed")
			if !s3.Recovery().IsZero() || s3.Len() != n {
				t.Errorf("third open: Recovery %v, %d events, want none and %d", s3.Recovery(), s3.Len(), n)
			}
			mustAppend(t, s3, simpleTurn(3, "after")...)
		})
	}
}
