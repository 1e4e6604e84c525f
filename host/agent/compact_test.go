package agent

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/session"
)

// compactLive records the compaction calls.
type compactLive struct {
	recLive
	started []string
	deltas  strings.Builder
	ended   []error
}

func (c *compactLive) CompactionStarted(_ string, _ int64, reason string) {
	c.started = append(c.started, reason)
}
func (c *compactLive) CompactionDelta(_ string, _ int64, text string) { c.deltas.WriteString(text) }
func (c *compactLive) CompactionEnded(_ string, _ int64, err error)   { c.ended = append(c.ended, err) }

func compactions(t *testing.T, s *session.Session) []event.Compact {
	t.Helper()
	var out []event.Compact
	for _, ev := range s.Events() {
		if ev.Type == event.TypeCompact {
			p, err := ev.Decode()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.(event.Compact))
		}
	}
	return out
}

// summarizer answers summary requests from one script, others from another,
// recording them all in order.
type summarizer struct {
	answer, summary *script.Provider
	mu              sync.Mutex
	reqs            []llm.Request
}

func (s *summarizer) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if n := len(req.Messages); n > 0 && strings.Contains(req.Messages[n-1].Text, "<transcript>") {
		return s.summary.Stream(ctx, req)
	}
	return s.answer.Stream(ctx, req)
}

func (s *summarizer) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// TestAutoCompaction fills a small window turn by turn: before the request
// that would pass 80 % of it, the loop asks for a summary and logs a
// context/compact; the next request is smaller and holds the summary, the
// todo list verbatim and the last user message. Reopened, the session
// derives the same history.
func TestAutoCompaction(t *testing.T) {
	t.Parallel()
	st, s := realSession(t)
	const window = 2000
	big := strings.Repeat("lorem ipsum dolor sit amet ", 40) // ~1080 bytes, ~360 tokens
	loop := &Loop{System: "sys", ContextWindow: window, KeepTokens: 500}
	live := new(compactLive)
	// Turn 1 writes a todo list through a tool that proposes todo/write.
	todo := mkTool("todo_write", false)
	todos := &fakeToolbox{tools: []Tool{todo}, call: func(_ context.Context, c Call) Result {
		return Result{Content: "Updated todo list", Events: []Emitted{{Type: event.TypeTodoWrite,
			Data: []byte(`{"todos":[{"content":"keep me verbatim","status":"in_progress"}]}`)}}}
	}}
	loop.Tools = todos
	model := newScript(t, toolLine("Planning.", "t1:todo_write"), `{"text":"ok"}`)
	loop.Model = model
	if out := loop.Run(context.Background(), s, event.Text("plan"), live); out.Err != nil {
		t.Fatal(out.Err)
	}
	var sizes []int
	for i := 0; ; i++ {
		if i == 12 {
			t.Fatal("no compaction after 12 turns")
		}
		prompt := "turn " + string(rune('a'+i)) + " " + big
		m := &summarizer{answer: newScript(t, `{"text":"`+strings.Repeat("answer ", 20)+`"}`),
			summary: newScript(t, `{"text":"summary of it all","expect":{"lastContains":"<transcript>"}}`)}
		loop.Model = m
		if out := loop.Run(context.Background(), s, event.Text(prompt), live); out.Err != nil {
			t.Fatalf("turn %d: %v", i, out.Err)
		}
		reqs := m.Requests()
		if len(compactions(t, s)) == 0 {
			sizes = append(sizes, llm.EstimateRequest(reqs[0]))
			continue
		}
		if len(reqs) != 2 || !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Text, "<transcript>") {
			t.Fatalf("compaction turn: %d requests", len(reqs))
		}
		after := reqs[1]
		if got, before := llm.EstimateRequest(after), sizes[len(sizes)-1]; got >= before {
			t.Errorf("request after compaction: %d tokens, before %d", got, before)
		}
		all := ""
		for _, msg := range after.Messages {
			all += msg.Text + "\n"
		}
		for _, want := range []string{"summary of it all", "- [in_progress] keep me verbatim", prompt} {
			if !strings.Contains(all, want) {
				t.Errorf("request after compaction lacks %q", want)
			}
		}
		if n := llm.EstimateRequest(after); n > window {
			t.Errorf("request after compaction %d > window %d", n, window)
		}
		break
	}
	c := compactions(t, s)[0]
	if c.Reason != event.CompactAuto || c.TokensAfter >= c.TokensBefore || c.Window != window || c.Keep <= 0 {
		t.Errorf("compaction %+v", c)
	}
	if len(live.started) != 1 || live.started[0] != event.CompactAuto || live.deltas.String() != "summary of it all" || len(live.ended) != 1 || live.ended[0] != nil {
		t.Errorf("live: %v %q %v", live.started, live.deltas.String(), live.ended)
	}
	msgs := s.Messages()
	r := reopen(t, st, s)
	if got := r.Messages(); len(got) != len(msgs) || got[0].Text != msgs[0].Text {
		t.Errorf("reopened history differs: %d vs %d messages", len(got), len(msgs))
	}
}

// TestOverflowCompactsAndRetries: the provider refuses the request as too
// long; the loop compacts once (within the limit it stated) and retries the
// step, and the turn completes. A second overflow fails the turn with one
// line.
func TestOverflowCompactsAndRetries(t *testing.T) {
	t.Parallel()
	st, s := realSession(t)
	loop := &Loop{System: "sys", ContextWindow: 1 << 20}
	big := strings.Repeat("x", 3000)
	loop.Model = newScript(t, `{"text":"one"}`, `{"text":"two"}`)
	for _, p := range []string{"first " + big, "second " + big} {
		if out := loop.Run(context.Background(), s, event.Text(p), nil); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	over := `{"error":"This model's maximum context length is 1500 tokens. However, you requested 2400 tokens."}`
	m := newScript(t, over, `{"text":"the summary","expect":{"maxTokens":1500}}`, `{"text":"done","expect":{"contains":["the summary","third"],"maxTokens":1500}}`)
	loop.Model = m
	out := loop.Run(context.Background(), s, event.Text("third"), nil)
	if out.Err != nil || out.Reason != event.ReasonCompleted {
		t.Fatalf("turn: %v %v", out.Reason, out.Err)
	}
	c := compactions(t, s)
	if len(c) != 1 || c[0].Reason != event.CompactOverflow || c[0].Limit != 1500 {
		t.Fatalf("compactions %+v", c)
	}
	r := reopen(t, st, s)
	if r.ContextLimit() != 1500 {
		t.Errorf("limit after reopen %d", r.ContextLimit())
	}

	// Overflow twice: one clear line.
	loop.Model = newScript(t, over, `{"text":"s2"}`, over)
	out = loop.Run(context.Background(), r, event.Text("fourth"), nil)
	if out.Reason != event.ReasonError || out.Err == nil || !strings.Contains(out.Err.Error(), "still longer than the model's context window") {
		t.Fatalf("second overflow: %v %v", out.Reason, out.Err)
	}
}

// TestCompactCommand compacts a stored session on demand, in a turn of its
// own.
func TestCompactCommand(t *testing.T) {
	t.Parallel()
	_, s := realSession(t)
	loop := &Loop{System: "sys", Model: newScript(t, `{"text":"a"}`, `{"text":"b"}`)}
	for _, p := range []string{"one", "two"} {
		if out := loop.Run(context.Background(), s, event.Text(p), nil); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	loop.Model = newScript(t, `{"text":"we said one and two"}`)
	out := loop.Compact(context.Background(), s, nil)
	if out.Err != nil || out.Reason != event.ReasonCompleted {
		t.Fatalf("compact: %v %v", out.Reason, out.Err)
	}
	c := compactions(t, s)
	if len(c) != 1 || c[0].Reason != event.CompactCommand {
		t.Fatalf("%+v", c)
	}
	msgs := s.Messages()
	if !strings.Contains(msgs[0].Text, "we said one and two") || msgs[len(msgs)-1].Text != "b" {
		t.Errorf("history after compact: %+v", msgs)
	}
}
