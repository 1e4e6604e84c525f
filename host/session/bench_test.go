package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/eventlog"
)

// BenchmarkSessionAppend measures Session.Append: "step" appends steps of a
// long turn (step/start, assistant/message with a tool call, tool/call,
// tool/result, step/end) — no fsync; "turn" appends whole 8-event turns,
// whose turn/end fsyncs.
func BenchmarkSessionAppend(b *testing.B) {
	text := strings.Repeat("Reading the file to see where the lock is taken. ", 4)
	b.Run("step", func(b *testing.B) {
		s := create(b, newStore(b), "bench")
		defer s.Close()
		mustAppend(b, s, event.TurnStart{Turn: 1}, event.UserMessage{Content: event.Text("go")})
		step, n := 0, 0
		b.ReportAllocs()
		for b.Loop() {
			var p event.Payload
			switch n % 5 {
			case 0:
				step++
				p = event.StepStart{Turn: 1, Step: step}
			case 1:
				p = event.AssistantMessage{Turn: 1, Step: step, Text: text, ToolCalls: []event.ToolCallRequest{{ID: "c", Name: "read_file", Arguments: `{"path":"a.go"}`}}}
			case 2:
				p = event.ToolCall{Turn: 1, Step: step, CallID: "c", Name: "read_file", Args: `{"path":"a.go"}`}
			case 3:
				p = event.ToolResult{Turn: 1, Step: step, CallID: "c", Content: text}
			case 4:
				p = event.StepEnd{Turn: 1, Step: step}
			}
			if _, err := s.Append(p); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("turn", func(b *testing.B) {
		s := create(b, newStore(b), "bench")
		defer s.Close()
		n := 0
		for b.Loop() {
			n++
			call := "c"
			for _, p := range []event.Payload{
				event.TurnStart{Turn: n},
				event.UserMessage{Content: event.Text("go on")},
				event.StepStart{Turn: n, Step: 1},
				event.AssistantMessage{Turn: n, Step: 1, Text: text, ToolCalls: []event.ToolCallRequest{{ID: call, Name: "bash", Arguments: "{}"}}},
				event.ToolCall{Turn: n, Step: 1, CallID: call, Name: "bash", Args: "{}"},
				event.ToolResult{Turn: n, Step: 1, CallID: call, Content: text},
				event.StepEnd{Turn: n, Step: 1},
				event.TurnEnd{Turn: n, Reason: event.ReasonCompleted},
			} {
				if _, err := s.Append(p); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
	})
}

// writeBenchSession writes a session of at least n events in whole turns
// straight through eventlog (no fsync per turn) and returns the event count
// and file size. A turn is 11 or 12 events: prompt, a step with reasoning, a
// tool call and its result, a step with the answer, a todo/write every
// fifth turn.
func writeBenchSession(tb testing.TB, st *Store, id string, n int) (int, int64) {
	tb.Helper()
	path := filepath.Join(st.Dir, id+".jsonl")
	l, err := eventlog.Create(path, eventlog.Header{ID: id, CreatedAt: t0, Cwd: "/src/project"})
	if err != nil {
		tb.Fatal(err)
	}
	prompt := "Please find out why the reopen of a large session is slow and fix it. " // ~70 B
	reasoning := strings.Repeat("The replay decodes every line; measure first. ", 2)   // ~90 B
	answer := strings.Repeat("The envelope is now scanned by hand and the payloads decoded once. ", 4)
	output := strings.Repeat("host/eventlog/log.go:123: func (l *Log) Append(r Record) error {\n", 6) // ~400 B
	seq := int64(0)
	add := func(p event.Payload) {
		data, err := event.Encode(p)
		if err != nil {
			tb.Fatal(err)
		}
		if err := l.Append(eventlog.Record{Seq: seq, Time: t0.Add(time.Duration(seq) * time.Millisecond), Type: string(p.EventType()), Data: data}); err != nil {
			tb.Fatal(err)
		}
		seq++
	}
	for turn := 1; seq < int64(n); turn++ {
		call := fmt.Sprintf("call_%d", turn)
		add(event.TurnStart{Turn: turn})
		add(event.UserMessage{Content: event.Text(prompt)})
		if turn%5 == 0 {
			add(event.TodoWrite{Todos: []event.Todo{{Content: "measure", Status: event.TodoCompleted}, {Content: "fix", Status: event.TodoInProgress}}})
		}
		add(event.StepStart{Turn: turn, Step: 1})
		add(event.AssistantMessage{Turn: turn, Step: 1, Reasoning: reasoning, ToolCalls: []event.ToolCallRequest{{ID: call, Name: "bash", Arguments: `{"command":"grep -n Append host/eventlog/log.go"}`}}, Usage: &event.Usage{InputTokens: 5000 + turn, OutputTokens: 60}, Finish: "tool_calls"})
		add(event.ToolCall{Turn: turn, Step: 1, CallID: call, Name: "bash", Args: `{"command":"grep -n Append host/eventlog/log.go"}`, Plugin: &event.Plugin{Name: "bash", Version: "1.0.0"}})
		add(event.ToolResult{Turn: turn, Step: 1, CallID: call, Content: output})
		add(event.StepEnd{Turn: turn, Step: 1})
		add(event.StepStart{Turn: turn, Step: 2})
		add(event.AssistantMessage{Turn: turn, Step: 2, Text: answer, Usage: &event.Usage{InputTokens: 5500 + turn, OutputTokens: 120}, Finish: "stop"})
		add(event.StepEnd{Turn: turn, Step: 2})
		add(event.TurnEnd{Turn: turn, Reason: event.ReasonCompleted, Usage: &event.Usage{InputTokens: 10500, OutputTokens: 180}})
	}
	if err := l.Close(); err != nil {
		tb.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return int(seq), fi.Size()
}

// BenchmarkReopen100k measures Store.Open of a 100k-event session: read,
// envelope decode, payload decode, structure check, projections.
func BenchmarkReopen100k(b *testing.B) {
	st := newStore(b)
	n, size := writeBenchSession(b, st, "big", 100_000)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		s, err := st.Open("big")
		if err != nil {
			b.Fatal(err)
		}
		if s.Len() != n || len(s.Messages()) == 0 {
			b.Fatalf("%d events", s.Len())
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/reopen")
	b.ReportMetric(float64(n), "events")
}

// TestBenchSessionShape keeps the benchmark's session honest: it opens
// cleanly and projects what it should.
func TestBenchSessionShape(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	n, _ := writeBenchSession(t, st, "big", 1000)
	s := open(t, st, "big")
	if s.Len() != n || !s.Recovery().IsZero() || len(s.Todos()) != 2 {
		t.Fatalf("%d events (want %d), recovery %v, todos %v", s.Len(), n, s.Recovery(), s.Todos())
	}
	var raw json.RawMessage = s.Events()[3].Data
	if !json.Valid(raw) {
		t.Error("invalid data")
	}
}
