package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
)

func newScript(tb testing.TB, lines ...string) *script.Provider {
	tb.Helper()
	p, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// fakeToolbox lists tools and runs them with its call func, recording the
// ids of the calls it received.
type fakeToolbox struct {
	tools []Tool
	call  func(ctx context.Context, c Call) Result

	mu    sync.Mutex
	calls []string
	lists int
}

func (f *fakeToolbox) Tools() []Tool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	return f.tools
}

func (f *fakeToolbox) Call(ctx context.Context, c Call) Result {
	f.mu.Lock()
	f.calls = append(f.calls, c.CallID)
	f.mu.Unlock()
	return f.call(ctx, c)
}

func (f *fakeToolbox) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func mkTool(name string, safe bool) Tool {
	return Tool{Spec: llm.ToolSpec{Name: name, Description: "the " + name + " tool",
		Parameters: json.RawMessage(`{"type":"object"}`)}, ConcurrencySafe: safe}
}

// okTools is a toolbox of unsafe tools that answer "ok".
func okTools(names ...string) *fakeToolbox {
	tb := &fakeToolbox{call: func(context.Context, Call) Result { return Result{Content: "ok"} }}
	for _, n := range names {
		tb.tools = append(tb.tools, mkTool(n, false))
	}
	return tb
}

// toolLine is a script line calling the tools named by id:name pairs.
func toolLine(text string, calls ...string) string {
	var parts []string
	for _, c := range calls {
		id, name, _ := strings.Cut(c, ":")
		parts = append(parts, fmt.Sprintf(`{"id":%q,"name":%q,"args":{"n":1}}`, id, name))
	}
	return fmt.Sprintf(`{"text":%q,"toolCalls":[%s]}`, text, strings.Join(parts, ","))
}

// recLive records deltas and may react to them.
type recLive struct {
	mu              sync.Mutex
	text, reasoning strings.Builder
	onDelta         func()
}

func (r *recLive) TextDelta(_, s string) {
	r.mu.Lock()
	r.text.WriteString(s)
	r.mu.Unlock()
	if r.onDelta != nil {
		r.onDelta()
	}
}

func (r *recLive) ReasoningDelta(_, s string) {
	r.mu.Lock()
	r.reasoning.WriteString(s)
	r.mu.Unlock()
	if r.onDelta != nil {
		r.onDelta()
	}
}

// barrier releases its waiters once n of them are waiting. It gives up
// after a long time so that a loop that runs calls one by one fails the
// test instead of hanging it.
type barrier struct {
	mu sync.Mutex
	n  int
	ch chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, ch: make(chan struct{})} }

func (b *barrier) wait(ctx context.Context) bool {
	b.mu.Lock()
	b.n--
	if b.n == 0 {
		close(b.ch)
	}
	b.mu.Unlock()
	select {
	case <-b.ch:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(10 * time.Second):
		return false
	}
}

// trace is an ordered record of what tools did.
type trace struct {
	mu  sync.Mutex
	log []string
}

func (t *trace) add(s string) {
	t.mu.Lock()
	t.log = append(t.log, s)
	t.mu.Unlock()
}

func (t *trace) index(tb testing.TB, s string) int {
	tb.Helper()
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.Index(t.log, s)
	if i < 0 {
		tb.Fatalf("%q not in trace %q", s, t.log)
	}
	return i
}

func diffLog(t *testing.T, s *memSession, want []string) {
	t.Helper()
	if diff := cmp.Diff(want, s.summary()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

func TestToolLoop(t *testing.T) {
	t.Parallel()
	model := newScript(t,
		`{"reasoning":"plan first","text":"Let me plan.","toolCalls":[{"id":"c1","name":"todo_write","args":{"todos":[{"content":"a","status":"pending"}]}}],"usage":{"input":100,"output":20}}`,
		`{"text":"Done: one item.","usage":{"input":150,"output":10,"cacheRead":7},"expect":{"lastRole":"tool","lastContains":"Updated todo list","toolsInclude":["todo_write"]}}`,
	)
	var got Call
	tb := &fakeToolbox{tools: []Tool{mkTool("todo_write", false)}, call: func(_ context.Context, c Call) Result {
		got = c
		return Result{Content: "Updated todo list: 1 item", Events: []Emitted{
			{Type: event.TypeTodoWrite, Data: json.RawMessage(`{"todos":[{"content":"a","status":"pending"}]}`)}}}
	}}
	s := newMemSession()
	live := &recLive{}
	l := &Loop{Model: model, ModelName: "m1", Tools: tb, System: "be brief"}

	out := l.Run(context.Background(), s, event.Text("make a plan"), live)

	wantUsage := event.Usage{InputTokens: 250, OutputTokens: 30, CacheReadTokens: 7}
	if diff := cmp.Diff(Outcome{Turn: 1, Reason: event.ReasonCompleted, Usage: wantUsage, Text: "Done: one item."}, out); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
	diffLog(t, s, []string{
		"turn/start 1",
		"user: make a plan",
		"step/start 1",
		`assistant 1: "Let me plan." c1:todo_write tool_calls`,
		"tool/call c1 todo_write",
		"todo/write 1",
		`tool/result c1 "Updated todo list: 1 item"`,
		"step/end 1",
		"step/start 2",
		`assistant 2: "Done: one item." stop`,
		"step/end 2",
		"turn/end 1 completed",
	})
	s.checkClosed(t)
	if end := lastOf[event.TurnEnd](t, s); end.Usage == nil || *end.Usage != wantUsage {
		t.Errorf("turn/end usage = %v, want %v", end.Usage, wantUsage)
	}
	wantCall := Call{SessionID: "s-test", Turn: 1, Step: 1, CallID: "c1", Name: "todo_write",
		Args: `{"todos":[{"content":"a","status":"pending"}]}`, Cwd: "/work"}
	if diff := cmp.Diff(wantCall, got); diff != "" {
		t.Errorf("call (-want +got):\n%s", diff)
	}
	if live.text.String() != "Let me plan.Done: one item." || live.reasoning.String() != "plan first" {
		t.Errorf("live got text %q, reasoning %q", live.text.String(), live.reasoning.String())
	}
	if tb.lists != 2 {
		t.Errorf("the tool list was taken %d times for 2 steps", tb.lists)
	}

	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if r.Model != "m1" || r.System != "be brief" || len(r.Tools) != 1 || r.Tools[0].Name != "todo_write" {
			t.Errorf("request carries model %q, system %q, tools %v", r.Model, r.System, r.Tools)
		}
	}
	wantMsgs := []llm.Message{
		{Role: llm.RoleUser, Text: "make a plan"},
		{Role: llm.RoleAssistant, Text: "Let me plan.", Reasoning: "plan first", ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "todo_write", Arguments: `{"todos":[{"content":"a","status":"pending"}]}`}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "Updated todo list: 1 item"},
	}
	if diff := cmp.Diff(wantMsgs, reqs[1].Messages); diff != "" {
		t.Errorf("step 2 messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantMsgs[:1], reqs[0].Messages); diff != "" {
		t.Errorf("step 1 messages (-want +got):\n%s", diff)
	}

	// The next turn is numbered from the log and sees the whole history.
	model2 := newScript(t, `{"text":"Again.","expect":{"lastRole":"user","lastContains":"more"}}`)
	l.Model = model2
	out = l.Run(context.Background(), s, event.Text("more"), nil)
	if out.Turn != 2 || out.Reason != event.ReasonCompleted || out.Err != nil {
		t.Fatalf("second turn: %+v", out)
	}
	if n := len(model2.Requests()[0].Messages); n != 5 {
		t.Errorf("second turn sent %d messages, want 5", n)
	}
	s.checkClosed(t)
}

func TestParallelSafeCallsCommitInModelOrder(t *testing.T) {
	t.Parallel()
	both := newBarrier(2)
	fastDone := make(chan struct{})
	var tr trace
	tb := &fakeToolbox{tools: []Tool{mkTool("slow", true), mkTool("fast", true)}, call: func(ctx context.Context, c Call) Result {
		if !both.wait(ctx) {
			return Result{Content: c.Name + " never ran together with the other call", IsError: true}
		}
		switch c.Name {
		case "slow":
			<-fastDone // finish after the later call
			tr.add("slow returns")
			return Result{Content: "slow result"}
		default:
			defer close(fastDone)
			tr.add("fast returns")
			return Result{Content: "fast result"}
		}
	}}
	model := newScript(t, toolLine("", "a:slow", "b:fast"), `{"text":"done"}`)
	s := newMemSession()
	out := (&Loop{Model: model, Tools: tb}).Run(context.Background(), s, event.Text("go"), nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("outcome %+v", out)
	}
	diffLog(t, s, []string{
		"turn/start 1", "user: go", "step/start 1",
		`assistant 1: "" a:slow b:fast tool_calls`,
		"tool/call a slow", "tool/call b fast",
		`tool/result a "slow result"`, `tool/result b "fast result"`,
		"step/end 1", "step/start 2", `assistant 2: "done" stop`, "step/end 2", "turn/end 1 completed",
	})
	if tr.index(t, "fast returns") > tr.index(t, "slow returns") {
		t.Errorf("the calls did not finish in reverse order: %q", tr.log)
	}
	s.checkClosed(t)
}

func TestUnsafeCallIsBarrier(t *testing.T) {
	t.Parallel()
	first, second := newBarrier(2), newBarrier(2)
	var tr trace
	tb := &fakeToolbox{tools: []Tool{mkTool("read", true), mkTool("write", false)}, call: func(ctx context.Context, c Call) Result {
		tr.add("start " + c.CallID)
		defer tr.add("end " + c.CallID)
		switch c.CallID {
		case "s1", "s2":
			if !first.wait(ctx) {
				return Result{Content: "not concurrent", IsError: true}
			}
		case "s3", "s4":
			if !second.wait(ctx) {
				return Result{Content: "not concurrent", IsError: true}
			}
		}
		return Result{Content: "ok " + c.CallID}
	}}
	model := newScript(t, toolLine("", "s1:read", "s2:read", "u:write", "s3:read", "s4:read"), `{"text":"done"}`)
	s := newMemSession()
	out := (&Loop{Model: model, Tools: tb}).Run(context.Background(), s, event.Text("go"), nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("outcome %+v", out)
	}
	u := tr.index(t, "start u")
	if u < tr.index(t, "end s1") || u < tr.index(t, "end s2") {
		t.Errorf("the unsafe call started before the calls before it ended: %q", tr.log)
	}
	if end := tr.index(t, "end u"); end > tr.index(t, "start s3") || end > tr.index(t, "start s4") {
		t.Errorf("calls after the unsafe call started before it ended: %q", tr.log)
	}
	var results []string
	for _, line := range s.summary() {
		if strings.HasPrefix(line, "tool/result") {
			results = append(results, line)
		}
	}
	want := []string{`tool/result s1 "ok s1"`, `tool/result s2 "ok s2"`, `tool/result u "ok u"`, `tool/result s3 "ok s3"`, `tool/result s4 "ok s4"`}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestMaxParallel(t *testing.T) {
	t.Parallel()
	pairs := []*barrier{newBarrier(2), newBarrier(2)}
	var mu sync.Mutex
	active, peak := 0, 0
	tb := &fakeToolbox{tools: []Tool{mkTool("read", true)}, call: func(ctx context.Context, c Call) Result {
		mu.Lock()
		active++
		peak = max(peak, active)
		mu.Unlock()
		defer func() {
			mu.Lock()
			active--
			mu.Unlock()
		}()
		b := pairs[0]
		if c.CallID == "c3" || c.CallID == "c4" {
			b = pairs[1]
		}
		if !b.wait(ctx) {
			return Result{Content: "pair never met", IsError: true}
		}
		return Result{Content: "ok"}
	}}
	model := newScript(t, toolLine("", "c1:read", "c2:read", "c3:read", "c4:read"), `{"text":"done"}`)
	s := newMemSession()
	out := (&Loop{Model: model, Tools: tb, MaxParallel: 2}).Run(context.Background(), s, event.Text("go"), nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("outcome %+v", out)
	}
	if peak != 2 {
		t.Errorf("at most %d calls ran at once, want 2", peak)
	}
	for _, line := range s.summary() {
		if strings.Contains(line, "pair never met") {
			t.Errorf("calls did not run in pairs: %s", line)
		}
	}
}

// cancelOn passes a model's chunks through and cancels when one matches.
type cancelOn struct {
	Model
	match  func(llm.Chunk) bool
	cancel context.CancelFunc
}

func (c cancelOn) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		for ch, err := range c.Model.Stream(ctx, req) {
			if err == nil && c.match(ch) {
				c.cancel()
			}
			if !yield(ch, err) {
				return
			}
		}
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		line  string
		how   string // live: a Live that cancels on the first delta; tool: on the first tool-call delta; before: before Run
		want  []string
		text  string
		steps int
	}{
		{
			name: "text",
			line: `{"text":"partial answer that never ends","hang":true}`,
			how:  "live",
			want: []string{"step/start 1", `assistant 1: "partial "`, "step/end 1"},
			text: "partial ",
		},
		{
			name: "reasoning",
			line: `{"reasoning":"thinking hard","text":"never","hang":true}`,
			how:  "live",
			want: []string{"step/start 1", `assistant 1: ""`, "step/end 1"},
		},
		{
			name: "tool call half streamed",
			line: `{"text":"Running it.","toolCalls":[{"id":"c1","name":"echo","args":{"cmd":"ls -la"}}],"hang":true}`,
			how:  "tool",
			want: []string{"step/start 1", `assistant 1: "Running it."`, "step/end 1"},
			text: "Running it.",
		},
		{
			name: "before the turn",
			line: `{"text":"never"}`,
			how:  "before",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			script := newScript(t, tt.line)
			var model Model = script
			live := &recLive{}
			switch tt.how {
			case "live":
				live.onDelta = cancel
			case "tool":
				model = cancelOn{Model: script, cancel: cancel, match: func(c llm.Chunk) bool { return c.Kind == llm.ChunkToolCall }}
			case "before":
				cancel()
			}
			tb := okTools("echo")
			s := newMemSession()
			out := (&Loop{Model: model, Tools: tb}).Run(ctx, s, event.Text("go"), live)

			if out.Reason != event.ReasonCancelled || out.Err != nil || out.Text != tt.text {
				t.Errorf("outcome %+v, want cancelled with text %q", out, tt.text)
			}
			want := append([]string{"turn/start 1", "user: go"}, tt.want...)
			diffLog(t, s, append(want, "turn/end 1 cancelled"))
			if live.text.String() != tt.text {
				t.Errorf("live saw %q, the log kept %q", live.text.String(), tt.text)
			}
			if len(tb.called()) != 0 {
				t.Errorf("tools ran: %v", tb.called())
			}
			s.checkClosed(t)
		})
	}
}

func TestCancelMidTool(t *testing.T) {
	t.Parallel()
	const cancelled = `"Error: cancelled: the user stopped the turn before this call finished" error`
	tests := []struct {
		name   string
		line   string
		tools  []Tool
		call   func(ctx context.Context, cancel context.CancelFunc, c Call) Result
		want   []string
		called []string
	}{
		{
			name:  "serial",
			line:  toolLine("", "c1:quick", "c2:block", "c3:later"),
			tools: []Tool{mkTool("quick", false), mkTool("block", false), mkTool("later", false)},
			call: func(ctx context.Context, cancel context.CancelFunc, c Call) Result {
				if c.Name == "block" {
					cancel()
					<-ctx.Done()
					return Result{Content: "stopped"}
				}
				return Result{Content: "ok"}
			},
			want: []string{
				"tool/call c1 quick", `tool/result c1 "ok"`,
				"tool/call c2 block", "tool/result c2 " + cancelled,
				"tool/call c3 later", "tool/result c3 " + cancelled,
			},
			called: []string{"c1", "c2"},
		},
		{
			name:  "parallel",
			line:  toolLine("", "c1:read", "c2:read", "c3:later"),
			tools: []Tool{mkTool("read", true), mkTool("later", false)},
			call: func() func(ctx context.Context, cancel context.CancelFunc, c Call) Result {
				fastDone := make(chan struct{})
				return func(ctx context.Context, cancel context.CancelFunc, c Call) Result {
					switch c.CallID {
					case "c2":
						defer close(fastDone)
						return Result{Content: "fast, but after c1 in model order"}
					case "c1":
						<-fastDone
						cancel()
						<-ctx.Done()
						return Result{Content: "stopped"}
					}
					return Result{Content: "ok"}
				}
			}(),
			want: []string{
				"tool/call c1 read", "tool/call c2 read",
				"tool/result c1 " + cancelled, "tool/result c2 " + cancelled,
				"tool/call c3 later", "tool/result c3 " + cancelled,
			},
			called: []string{"c1", "c2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tb := &fakeToolbox{tools: tt.tools, call: func(ctx context.Context, c Call) Result { return tt.call(ctx, cancel, c) }}
			model := newScript(t, tt.line, `{"text":"never asked"}`)
			s := newMemSession()
			out := (&Loop{Model: model, Tools: tb}).Run(ctx, s, event.Text("go"), nil)
			if out.Reason != event.ReasonCancelled || out.Err != nil {
				t.Errorf("outcome %+v, want cancelled", out)
			}
			want := []string{"turn/start 1", "user: go", "step/start 1", "assistant 1: \"\"" + callsOf(tt.line) + " tool_calls"}
			want = append(want, tt.want...)
			diffLog(t, s, append(want, "step/end 1", "turn/end 1 cancelled"))
			if got := tb.called(); !cmp.Equal(sorted(got), tt.called) {
				t.Errorf("toolbox ran %v, want %v", got, tt.called)
			}
			if model.Remaining() != 1 {
				t.Errorf("the model was asked again after the cancellation")
			}
			s.checkClosed(t)
		})
	}
}

// callsOf renders the tool calls of a toolLine the way summarize does.
func callsOf(line string) string {
	var l struct {
		ToolCalls []struct{ ID, Name string }
	}
	_ = json.Unmarshal([]byte(line), &l)
	var b strings.Builder
	for _, c := range l.ToolCalls {
		fmt.Fprintf(&b, " %s:%s", c.ID, c.Name)
	}
	return b.String()
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestTurnEndings(t *testing.T) {
	t.Parallel()
	start := []string{"turn/start 1", "user: go"}
	echoStep := func(k int, id string) []string {
		return []string{
			fmt.Sprintf("step/start %d", k),
			fmt.Sprintf(`assistant %d: "" %s:echo tool_calls`, k, id),
			"tool/call " + id + " echo", fmt.Sprintf(`tool/result %s "ok"`, id),
			fmt.Sprintf("step/end %d", k),
		}
	}
	tests := []struct {
		name     string
		lines    []string
		maxSteps int
		budget   int      // steps Loop.Budget lets start; 0: no budget
		want     []string // after turn/start and user/message
		reason   event.Reason
		errMsg   string // TurnEnd.Error and Outcome.Err
		text     string
		usage    event.Usage
		left     int // script lines the loop must not consume
	}{
		{
			name:   "completed",
			lines:  []string{`{"text":"Hello there.","usage":{"input":5,"output":2}}`},
			want:   []string{"step/start 1", `assistant 1: "Hello there." stop`, "step/end 1", "turn/end 1 completed"},
			reason: event.ReasonCompleted, text: "Hello there.", usage: event.Usage{InputTokens: 5, OutputTokens: 2},
		},
		{
			name:   "empty answer logs no message",
			lines:  []string{`{}`},
			want:   []string{"step/start 1", "step/end 1", "turn/end 1 completed"},
			reason: event.ReasonCompleted,
		},
		{
			name:   "usage-only answer is logged",
			lines:  []string{`{"usage":{"input":3}}`},
			want:   []string{"step/start 1", `assistant 1: "" stop`, "step/end 1", "turn/end 1 completed"},
			reason: event.ReasonCompleted, usage: event.Usage{InputTokens: 3},
		},
		{
			name:   "max_tokens strips tool calls",
			lines:  []string{`{"text":"I will run","toolCalls":[{"id":"c1","name":"echo"}],"finish":"max_tokens","usage":{"output":4096}}`, `{"text":"never"}`},
			want:   []string{"step/start 1", `assistant 1: "I will run" max_tokens`, "step/end 1", "turn/end 1 max_tokens"},
			reason: event.ReasonMaxTokens, text: "I will run", usage: event.Usage{OutputTokens: 4096}, left: 1,
		},
		{
			name:   "max_tokens after a tool step",
			lines:  []string{toolLine("", "c1:echo"), `{"text":"cut","finish":"max_tokens"}`},
			want:   append(echoStep(1, "c1"), "step/start 2", `assistant 2: "cut" max_tokens`, "step/end 2", "turn/end 1 max_tokens"),
			reason: event.ReasonMaxTokens, text: "cut",
		},
		{
			name:   "refusal",
			lines:  []string{`{"text":"I can't help with that.","toolCalls":[{"id":"c1","name":"echo"}],"finish":"refusal"}`},
			want:   []string{"step/start 1", `assistant 1: "I can't help with that." refusal`, "step/end 1", "turn/end 1 refusal"},
			reason: event.ReasonRefusal, text: "I can't help with that.",
		},
		{
			name:     "step limit",
			lines:    []string{toolLine("", "c1:echo"), toolLine("", "c2:echo"), toolLine("", "c3:echo")},
			maxSteps: 2,
			want:     append(append(echoStep(1, "c1"), echoStep(2, "c2")...), "turn/end 1 max_steps"),
			reason:   event.ReasonMaxSteps, left: 1,
		},
		{
			name:   "budget ends the turn before the step that would pass it",
			lines:  []string{toolLine("", "c1:echo"), toolLine("", "c2:echo"), `{"text":"never"}`},
			budget: 2, // the budget allows two steps
			want:   append(append(echoStep(1, "c1"), echoStep(2, "c2")...), "turn/end 1 budget"),
			reason: event.ReasonBudget, left: 1,
		},
		{
			name:     "step limit not hit by an answer",
			lines:    []string{`{"text":"hi"}`},
			maxSteps: 1,
			want:     []string{"step/start 1", `assistant 1: "hi" stop`, "step/end 1", "turn/end 1 completed"},
			reason:   event.ReasonCompleted, text: "hi",
		},
		{
			name:   "model error mid-stream",
			lines:  []string{`{"text":"partial answer","error":"upstream exploded"}`},
			want:   []string{"step/start 1", `assistant 1: "partial answer"`, "step/end 1", "turn/end 1 error: script: upstream exploded"},
			reason: event.ReasonError, errMsg: "script: upstream exploded", text: "partial answer",
		},
		{
			name:   "model error before any text",
			lines:  []string{toolLine("", "c1:echo"), `{"error":"rate limited\nretry later"}`},
			want:   append(echoStep(1, "c1"), "step/start 2", "step/end 2", "turn/end 1 error: script: rate limited retry later"),
			reason: event.ReasonError, errMsg: "script: rate limited\nretry later",
		},
		{
			name:   "script exhausted",
			lines:  nil,
			want:   []string{"step/start 1", "step/end 1", "turn/end 1 error: script: no response left for request 1 (the script has 0)"},
			reason: event.ReasonError, errMsg: "script: no response left for request 1 (the script has 0)",
		},
		{
			name:   "script expectation",
			lines:  []string{`{"text":"x","expect":{"lastRole":"tool"}}`},
			want:   []string{"step/start 1", "step/end 1", `turn/end 1 error: script: line 1 expected the last message's role "tool", got "user"`},
			reason: event.ReasonError, errMsg: `script: line 1 expected the last message's role "tool", got "user"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := newScript(t, tt.lines...)
			tb := okTools("echo")
			s := newMemSession()
			l := &Loop{Model: model, Tools: tb, MaxSteps: tt.maxSteps}
			if tt.budget > 0 {
				asked := 0
				l.Budget = func() bool { asked++; return asked > tt.budget }
			}
			out := l.Run(context.Background(), s, event.Text("go"), nil)
			diffLog(t, s, append(slices.Clone(start), tt.want...))
			if out.Turn != 1 || out.Reason != tt.reason || out.Text != tt.text || out.Usage != tt.usage {
				t.Errorf("outcome %+v, want reason %s, text %q, usage %+v", out, tt.reason, tt.text, tt.usage)
			}
			switch {
			case tt.errMsg == "" && out.Err != nil:
				t.Errorf("Outcome.Err = %v", out.Err)
			case tt.errMsg != "" && (out.Err == nil || out.Err.Error() != tt.errMsg):
				t.Errorf("Outcome.Err = %v, want %q", out.Err, tt.errMsg)
			}
			if model.Remaining() != tt.left {
				t.Errorf("%d script lines left, want %d", model.Remaining(), tt.left)
			}
			s.checkClosed(t)
		})
	}
}

func TestModelErrorIsReturned(t *testing.T) {
	t.Parallel()
	s := newMemSession()
	out := (&Loop{Model: newScript(t, `{"error":"boom"}`)}).Run(context.Background(), s, event.Text("go"), nil)
	var le *llm.Error
	if !errors.As(out.Err, &le) || le.Message != "boom" {
		t.Fatalf("Outcome.Err = %#v, want the provider's *llm.Error", out.Err)
	}
}

func TestToolResults(t *testing.T) {
	t.Parallel()
	todo := func(status string) Emitted {
		return Emitted{Type: event.TypeTodoWrite, Data: json.RawMessage(`{"todos":[{"content":"a","status":"` + status + `"}]}`)}
	}
	tests := []struct {
		name   string
		result Result
		want   []string
	}{
		{
			name:   "plain",
			result: Result{Content: "fine"},
			want:   []string{`tool/result c1 "fine"`},
		},
		{
			name:   "error gets its prefix",
			result: Result{Content: "file not found", IsError: true},
			want:   []string{`tool/result c1 "Error: file not found" error`},
		},
		{
			name:   "error keeps its prefix",
			result: Result{Content: "Error: exit status 2", IsError: true},
			want:   []string{`tool/result c1 "Error: exit status 2" error`},
		},
		{
			name:   "a success may start with Error",
			result: Result{Content: "Error-free"},
			want:   []string{`tool/result c1 "Error-free"`},
		},
		{
			name:   "events land right before the result",
			result: Result{Content: "Updated", Events: []Emitted{todo("pending"), {Type: "demo/note", Data: json.RawMessage(`{"n":1}`)}}},
			want:   []string{"todo/write 1", `demo/note {"n":1}`, `tool/result c1 "Updated"`},
		},
		{
			name:   "an event the session rejects",
			result: Result{Content: "Updated", Events: []Emitted{todo("done")}},
			want:   []string{`tool/result c1 "Error: the host rejected the \"todo/write\" event of this call: session: todo/write: todo \"a\" has status \"done\"" error`},
		},
		{
			name:   "events after a rejected one are dropped",
			result: Result{Content: "Updated", Events: []Emitted{{Type: "demo/note", Data: json.RawMessage(`{}`)}, {Type: "demo/bad", Data: json.RawMessage(`[1]`)}, {Type: "demo/note", Data: json.RawMessage(`{}`)}}},
			want: []string{`demo/note {}`,
				`tool/result c1 "Error: the host rejected the \"demo/bad\" event of this call: session: demo/bad: data is not a JSON object: json: cannot unmarshal array into Go value of type map[string]interface {}" error`},
		},
		{
			name:   "a tool may not propose the loop's events",
			result: Result{Content: "sneaky", Events: []Emitted{{Type: event.TypeTurnEnd, Data: json.RawMessage(`{"turn":1,"reason":"completed"}`)}}},
			want:   []string{`tool/result c1 "Error: the host rejected the \"turn/end\" event of this call: tools may not propose turn/end events" error`},
		},
		{
			name:   "an event without a type",
			result: Result{Content: "x", Events: []Emitted{{Data: json.RawMessage(`{}`)}}},
			want:   []string{`tool/result c1 "Error: the host rejected the \"\" event of this call: the event has no type" error`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &fakeToolbox{tools: []Tool{mkTool("t", false)}, call: func(context.Context, Call) Result { return tt.result }}
			model := newScript(t, toolLine("", "c1:t"), `{"text":"done"}`)
			s := newMemSession()
			out := (&Loop{Model: model, Tools: tb}).Run(context.Background(), s, event.Text("go"), nil)
			if out.Reason != event.ReasonCompleted || out.Err != nil {
				t.Fatalf("outcome %+v", out)
			}
			want := []string{"turn/start 1", "user: go", "step/start 1", `assistant 1: "" c1:t tool_calls`, "tool/call c1 t"}
			want = append(want, tt.want...)
			want = append(want, "step/end 1", "step/start 2", `assistant 2: "done" stop`, "step/end 2", "turn/end 1 completed")
			diffLog(t, s, want)
			s.checkClosed(t)
		})
	}
}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	for _, withTools := range []bool{true, false} {
		t.Run(fmt.Sprint("toolbox=", withTools), func(t *testing.T) {
			t.Parallel()
			model := newScript(t, toolLine("", "c1:nope", "c2:echo"), `{"text":"sorry","expect":{"lastRole":"tool"}}`)
			l := &Loop{Model: model}
			tb := okTools("echo")
			wantEcho := `tool/result c2 "ok"`
			if withTools {
				l.Tools = tb
			} else {
				wantEcho = `tool/result c2 "Error: unknown tool \"echo\"" error`
			}
			s := newMemSession()
			out := l.Run(context.Background(), s, event.Text("go"), nil)
			if out.Reason != event.ReasonCompleted {
				t.Fatalf("outcome %+v", out)
			}
			diffLog(t, s, []string{
				"turn/start 1", "user: go", "step/start 1", `assistant 1: "" c1:nope c2:echo tool_calls`,
				"tool/call c1 nope", `tool/result c1 "Error: unknown tool \"nope\"" error`,
				"tool/call c2 echo", wantEcho,
				"step/end 1", "step/start 2", `assistant 2: "sorry" stop`, "step/end 2", "turn/end 1 completed",
			})
			if got := tb.called(); withTools && !cmp.Equal(got, []string{"c2"}) {
				t.Errorf("toolbox ran %v, want only c2", got)
			}
			if req := model.Requests()[0]; !withTools && req.Tools != nil {
				t.Errorf("request offers tools %v without a toolbox", req.Tools)
			}
		})
	}
}

func TestPanickingTool(t *testing.T) {
	t.Parallel()
	tb := &fakeToolbox{tools: []Tool{mkTool("bad", true)}, call: func(context.Context, Call) Result { panic("nil map") }}
	s := newMemSession()
	out := (&Loop{Model: newScript(t, toolLine("", "c1:bad"), `{"text":"ok"}`), Tools: tb}).Run(context.Background(), s, event.Text("go"), nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("outcome %+v", out)
	}
	if !slices.Contains(s.summary(), `tool/result c1 "Error: tool \"bad\" failed: nil map" error`) {
		t.Errorf("no error result for the panic in %q", s.summary())
	}
}

// failOnce refuses the first event that matches.
func failOnce(match func(event.Event) bool, err error) func(event.Event) error {
	done := false
	return func(e event.Event) error {
		if !done && match(e) {
			done = true
			return err
		}
		return nil
	}
}

func isType(t event.Type) func(event.Event) bool {
	return func(e event.Event) bool { return e.Type == t }
}

func TestSessionFailures(t *testing.T) {
	t.Parallel()
	injected := errors.New("injected")
	const failed = `"Error: the host failed before this call finished: append tool/result: injected" error`
	tests := []struct {
		name     string
		lines    []string
		tools    []Tool
		block    bool // tools block until their ctx is done
		fail     func(event.Event) error
		failSync error
		want     []string
		errMsg   string
		reason   event.Reason
		open     bool // the turn stays open: the session refuses everything
	}{
		{
			name:   "turn/start refused",
			lines:  []string{`{"text":"never"}`},
			fail:   failOnce(isType(event.TypeTurnStart), injected),
			want:   []string{},
			errMsg: "append turn/start: injected",
		},
		{
			name:  "tool/result refused",
			lines: []string{toolLine("", "c1:echo", "c2:echo")},
			fail:  failOnce(isType(event.TypeToolResult), injected),
			want: []string{"turn/start 1", "user: go", "step/start 1", `assistant 1: "" c1:echo c2:echo tool_calls`,
				"tool/call c1 echo", "tool/result c1 " + failed,
				"tool/call c2 echo", "tool/result c2 " + failed,
				"step/end 1", "turn/end 1 error: append tool/result: injected"},
			errMsg: "append tool/result: injected",
		},
		{
			name:  "tool/call refused while a group runs",
			lines: []string{toolLine("", "c1:read", "c2:read", "c3:read")},
			tools: []Tool{mkTool("read", true)},
			block: true,
			fail: failOnce(func(e event.Event) bool {
				return e.Type == event.TypeToolCall && strings.Contains(string(e.Data), `"c2"`)
			}, injected),
			want: []string{"turn/start 1", "user: go", "step/start 1", `assistant 1: "" c1:read c2:read c3:read tool_calls`,
				"tool/call c1 read",
				`tool/result c1 "Error: the host failed before this call finished: append tool/call: injected" error`,
				"tool/call c2 read",
				`tool/result c2 "Error: the host failed before this call finished: append tool/call: injected" error`,
				"tool/call c3 read",
				`tool/result c3 "Error: the host failed before this call finished: append tool/call: injected" error`,
				"step/end 1", "turn/end 1 error: append tool/call: injected"},
			errMsg: "append tool/call: injected",
		},
		{
			name:  "the disk is gone",
			lines: []string{toolLine("", "c1:echo")},
			fail: func(e event.Event) error {
				if e.Seq >= 4 {
					return injected
				}
				return nil
			},
			want:   []string{"turn/start 1", "user: go", "step/start 1", `assistant 1: "" c1:echo tool_calls`},
			errMsg: "append tool/call: injected; then append tool/call: injected; then append step/end: injected; then append turn/end: injected",
			open:   true,
		},
		{
			name:     "sync fails",
			lines:    []string{`{"text":"hi"}`},
			failSync: injected,
			want:     []string{"turn/start 1", "user: go", "step/start 1", `assistant 1: "hi" stop`, "step/end 1", "turn/end 1 completed"},
			errMsg:   "sync session: injected",
			open:     false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tools := tt.tools
			if tools == nil {
				tools = []Tool{mkTool("echo", false)}
			}
			tb := &fakeToolbox{tools: tools, call: func(ctx context.Context, c Call) Result {
				if tt.block {
					<-ctx.Done()
					return Result{Content: "stopped"}
				}
				return Result{Content: "ok"}
			}}
			s := newMemSession()
			s.fail, s.failSync = tt.fail, tt.failSync
			out := (&Loop{Model: newScript(t, tt.lines...), Tools: tb}).Run(context.Background(), s, event.Text("go"), nil)
			diffLog(t, s, tt.want)
			if out.Reason != event.ReasonError || out.Err == nil || out.Err.Error() != tt.errMsg {
				t.Errorf("outcome %+v, want error %q", out, tt.errMsg)
			}
			if !errors.Is(out.Err, injected) {
				t.Errorf("Outcome.Err %v does not wrap the session's error", out.Err)
			}
			if s.syncs != 1 {
				t.Errorf("Sync called %d times, want 1", s.syncs)
			}
			if open := s.openTurn != 0; open != tt.open {
				t.Errorf("turn left open: %v, want %v", open, tt.open)
			}
		})
	}
}

func TestDuplicateCallIDs(t *testing.T) {
	t.Parallel()
	s := newMemSession()
	model := newScript(t, toolLine("", "c1:echo", "c1:echo", "c1_2:echo"), `{"text":"done"}`)
	out := (&Loop{Model: model, Tools: okTools("echo")}).Run(context.Background(), s, event.Text("go"), nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("outcome %+v", out)
	}
	diffLog(t, s, []string{
		"turn/start 1", "user: go", "step/start 1", `assistant 1: "" c1:echo c1_2:echo c1_2_2:echo tool_calls`,
		"tool/call c1 echo", `tool/result c1 "ok"`,
		"tool/call c1_2 echo", `tool/result c1_2 "ok"`,
		"tool/call c1_2_2 echo", `tool/result c1_2_2 "ok"`,
		"step/end 1", "step/start 2", `assistant 2: "done" stop`, "step/end 2", "turn/end 1 completed",
	})
}
