package agent

import (
	"context"
	"fmt"
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
	if out.Reason != event.ReasonError || out.Err == nil || !strings.Contains(out.Err.Error(), "longer than the model's context window") {
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

// TestNoCompactionOfWhatCannotShrink: a first request past the threshold
// (a large system prompt) is sent without a summary request, since the
// history older than the user's message is empty; one larger than the
// window fails the turn with one line, still without a summary request.
// A later summary that would not free half of what it replaces is not
// logged and the turn goes on.
func TestNoCompactionOfWhatCannotShrink(t *testing.T) {
	t.Parallel()
	const window = 4000
	system := strings.Repeat("s", 3*3300) // ~3300 tokens: past 80 % alone
	cases := []struct {
		name   string
		prompt string
		fails  bool
	}{
		{"past the threshold", "hello", false},
		{"past the window", strings.Repeat("p", 3*800), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, s := realSession(t)
			m := &summarizer{answer: newScript(t, `{"text":"the answer"}`), summary: newScript(t)}
			loop := &Loop{System: system, ContextWindow: window, Model: m}
			out := loop.Run(context.Background(), s, event.Text(c.prompt), nil)
			if c.fails != (out.Reason == event.ReasonError) {
				t.Fatalf("turn: %s %v", out.Reason, out.Err)
			}
			if c.fails && (!strings.Contains(out.Err.Error(), "does not fit the model's context window (4000 tokens)") || strings.Contains(out.Err.Error(), "\n")) {
				t.Errorf("error %q, want one line naming the window", out.Err)
			}
			for _, r := range m.Requests() {
				if strings.Contains(r.Messages[len(r.Messages)-1].Text, "<transcript>") {
					t.Errorf("a summary request was sent")
				}
			}
			if n := len(compactions(t, s)); n != 0 {
				t.Errorf("%d compactions", n)
			}
		})
	}

	t.Run("summary too long", func(t *testing.T) {
		t.Parallel()
		_, s := realSession(t)
		long := strings.Repeat("a long summary ", 400) // ~2000 tokens
		loop := &Loop{System: "sys", ContextWindow: window, Model: newScript(t, `{"text":"one"}`)}
		if out := loop.Run(context.Background(), s, event.Text(strings.Repeat("x", 3*1500)), nil); out.Err != nil {
			t.Fatal(out.Err)
		}
		m := &summarizer{answer: newScript(t, `{"text":"two"}`), summary: newScript(t, `{"text":"`+long+`"}`)}
		loop.Model = m
		out := loop.Run(context.Background(), s, event.Text(strings.Repeat("y", 3*1800)), nil)
		if out.Err != nil || out.Reason != event.ReasonCompleted {
			t.Fatalf("turn: %s %v", out.Reason, out.Err)
		}
		if reqs := m.Requests(); len(reqs) != 2 || !strings.Contains(reqs[0].Messages[0].Text, "<transcript>") {
			t.Fatalf("%d requests, want the summary's then the answer's", len(reqs))
		}
		if n := len(compactions(t, s)); n != 0 {
			t.Errorf("%d compactions logged for a summary that frees nothing", n)
		}
	})
}

// TestCompactionTarget: after a compaction the request fills at most the
// target share of the window (50 % by default, CompactTarget when set),
// as the next request measures.
func TestCompactionTarget(t *testing.T) {
	t.Parallel()
	const window = 8000
	for _, target := range []int{0, 30} {
		_, s := realSession(t)
		loop := &Loop{System: strings.Repeat("s", 3*500), ContextWindow: window, CompactTarget: target}
		want := window * 50 / 100
		if target > 0 {
			want = window * target / 100
		}
		for i := 0; ; i++ {
			if i == 30 {
				t.Fatalf("target %d: no compaction in 30 turns", target)
			}
			m := &summarizer{answer: newScript(t, `{"text":"noted"}`), summary: newScript(t, `{"text":"the summary"}`)}
			loop.Model = m
			prompt := fmt.Sprintf("turn %d %s", i, strings.Repeat("w", 3*600))
			if out := loop.Run(context.Background(), s, event.Text(prompt), nil); out.Err != nil {
				t.Fatal(out.Err)
			}
			reqs := m.Requests()
			if len(reqs) == 1 {
				continue
			}
			after := llm.EstimateRequest(reqs[1])
			if after > want {
				t.Errorf("target %d: the request after the compaction is ~%d tokens, want at most %d", target, after, want)
			}
			if !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text, prompt) {
				t.Errorf("target %d: the request after the compaction lacks the prompt", target)
			}
			if c := compactions(t, s); len(c) != 1 || c[0].TokensAfter > want {
				t.Errorf("target %d: compactions %+v", target, c)
			}
			break
		}
	}
}

// usageModel answers every request with a fixed text, reporting as
// input tokens the llm.EstimateRequest of the request times ratio.
type usageModel struct {
	ratio float64
	mu    sync.Mutex
	reqs  []llm.Request
}

func (u *usageModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	u.mu.Lock()
	u.reqs = append(u.reqs, req)
	u.mu.Unlock()
	return func(yield func(llm.Chunk, error) bool) {
		in := int(float64(llm.EstimateRequest(req)) * u.ratio)
		_ = yield(llm.Chunk{Kind: llm.ChunkText, Text: "ok"}, nil) &&
			yield(llm.Chunk{Kind: llm.ChunkUsage, Usage: llm.Usage{InputTokens: in, OutputTokens: 1}}, nil) &&
			yield(llm.Chunk{Kind: llm.ChunkFinish, Finish: llm.FinishStop}, nil)
	}
}

// TestScaleLearnsFromUsage: a provider that counts half the tokens the
// estimate does lets the history grow to about twice what the fixed
// estimate allows before a compaction, and a session reopened by a new
// loop finds the same correction in its log.
func TestScaleLearnsFromUsage(t *testing.T) {
	t.Parallel()
	const window = 4000
	run := func(ratio float64) (turns int) {
		st, s := realSession(t)
		m := &usageModel{ratio: ratio}
		for i := 0; i < 40; i++ {
			if i == 3 { // a restart: a new loop on the reopened log
				s = reopen(t, st, s)
			}
			loop := &Loop{System: "sys", ContextWindow: window, Model: m}
			prompt := strings.Repeat("z", 3*300)
			if out := loop.Run(context.Background(), s, event.Text(prompt), nil); out.Err != nil {
				t.Fatal(out.Err)
			}
			if len(compactions(t, s)) > 0 {
				return i
			}
		}
		t.Fatalf("ratio %v: no compaction in 40 turns", ratio)
		return 0
	}
	exact, half := run(1), run(0.5)
	t.Logf("first compaction at turn %d counting all, %d counting half", exact, half)
	if half < 2*exact-1 {
		t.Errorf("the first compaction came at turn %d counting half, %d counting all: the estimate did not learn", half, exact)
	}
}
