package subagent

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

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/tool"
)

// tools is a toolbox of func-backed tools.
type tools struct {
	list []tool.Tool
	call func(ctx context.Context, c tool.Call) tool.Result
}

// Step implements agent.Tools: every step offers list.
func (t tools) Step(context.Context, agent.StepInfo) (agent.Step, error) { return step{t}, nil }

// step is one step of tools; nothing starts on use.
type step struct{ tools }

func (s step) Tools() []tool.Tool                         { return s.list }
func (step) Warm(string)                                  {}
func (step) Close()                                       {}
func (step) Preview(context.Context, tool.Call) tool.Meta { return tool.Meta{} }
func (s step) Tool(name string) (tool.Tool, bool) {
	for _, t := range s.list {
		if t.Spec.Name == name {
			return t, true
		}
	}
	return tool.Tool{}, false
}
func (t tools) Call(ctx context.Context, c tool.Call) tool.Result {
	return t.call(ctx, c)
}

func spec(name string) tool.Tool {
	return tool.Tool{Spec: llm.ToolSpec{Name: name, Parameters: json.RawMessage(`{"type":"object"}`)}}
}

// fixture is a store with a root session and a runner whose children play
// script.
type fixture struct {
	store  *session.Store
	root   *session.Session
	runner *Runner
	model  *script.Provider
}

func newFixture(t *testing.T, lines []string, tb agent.Tools) *fixture {
	t.Helper()
	st := &session.Store{Dir: t.TempDir()}
	root, err := st.Create(session.CreateOptions{Cwd: "/project"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	model, err := script.Load(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: st, root: root, model: model}
	f.runner = &Runner{Store: st, Tools: tb, Loop: func(string) (*agent.Loop, error) {
		return &agent.Loop{Model: model, ModelName: "script"}, nil
	}}
	return f
}

func todoTools() tools {
	return tools{
		list: []tool.Tool{spec("todo_write"), spec(ToolName), spec("wait")},
		call: func(ctx context.Context, c tool.Call) tool.Result {
			switch c.Name {
			case "todo_write":
				return tool.Result{Content: "Updated todo list: 0 pending, 1 in progress, 0 completed.",
					Events: []tool.Emitted{{Type: event.TypeTodoWrite, Data: json.RawMessage(`{"todos":[{"content":"look","status":"in_progress"}]}`)}}}
			case "wait":
				<-ctx.Done()
				return tool.Result{Content: "stopped", IsError: true}
			}
			return tool.Result{Content: "ok"}
		},
	}
}

func TestRunAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{
		`{"toolCalls":[{"id":"t1","name":"todo_write","args":{"todos":[{"content":"look","status":"in_progress"}]}}],"usage":{"input":10,"output":5}}`,
		`{"text":"The answer is 42.\nDetails follow.","usage":{"input":20,"output":7},"expect":{"lastRole":"tool","lastContains":"Updated todo list"}}`,
	}, todoTools())
	var mu sync.Mutex
	var lines []string
	res, err := f.runner.Run(context.Background(), Request{ParentSessionID: f.root.ID(), ParentCallID: "p1",
		Description: "find the answer", Prompt: "What is the answer?"}, func(s string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The answer is 42.\nDetails follow." {
		t.Errorf("text = %q", res.Text)
	}
	if want := (event.Usage{InputTokens: 30, OutputTokens: 12}); res.Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
	// The child's log exists, names its parent, and holds the todo list;
	// the parent's log does not.
	child, err := f.store.Open(res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	if child.Parent() != f.root.ID() || child.Cwd() != "/project" {
		t.Errorf("child parent %q cwd %q", child.Parent(), child.Cwd())
	}
	if diff := cmp.Diff([]event.Todo{{Content: "look", Status: event.TodoInProgress}}, child.Todos()); diff != "" {
		t.Errorf("child todos (-want +got):\n%s", diff)
	}
	if f.root.Todos() != nil {
		t.Errorf("the parent got the child's todo list: %v", f.root.Todos())
	}
	got := strings.Join(lines, "")
	for _, want := range []string{"→ todo_write", "✓ Updated todo list", "todos: 0 of 1 done", "The answer is 42. …"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q:\n%s", want, got)
		}
	}
	// At the depth limit (1) the child is offered no subagent tool.
	for _, req := range f.model.Requests() {
		for _, s := range req.Tools {
			if s.Name == ToolName {
				t.Errorf("a child at the depth limit was offered %s", ToolName)
			}
		}
	}
}

func TestRunDepth(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{`{"text":"deep","expect":{"toolsInclude":["subagent"]}}`}, todoTools())
	f.runner.MaxDepth = 2
	res, err := f.runner.Run(context.Background(), Request{ParentSessionID: f.root.ID(), Prompt: "go"}, nil)
	if err != nil {
		t.Fatalf("a child below the limit: %v", err)
	}
	// res.SessionID is at depth 1; its own child would be at 2 = the limit,
	// and one more is refused.
	f.runner.MaxDepth = 1
	_, err = f.runner.Run(context.Background(), Request{ParentSessionID: res.SessionID, Prompt: "go"}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrDepth {
		t.Errorf("err = %v, want a depth error", err)
	}
}

func TestRunBudgets(t *testing.T) {
	t.Parallel()
	loopLine := `{"toolCalls":[{"id":"x","name":"noop","args":{}}],"usage":{"input":400,"output":200}}`
	tests := map[string]struct {
		lines  []string
		budget Budget
		want   string
	}{
		"steps":  {lines: []string{loopLine, loopLine, loopLine}, budget: Budget{Steps: 2}, want: "step budget of 2 exceeded"},
		"tokens": {lines: []string{loopLine, loopLine, loopLine}, budget: Budget{Tokens: 500}, want: "token budget of 500 exceeded"},
		"wall":   {lines: []string{`{"text":"thinking","hang":true}`}, budget: Budget{Wall: 50 * time.Millisecond}, want: "wall-time budget of 50ms exceeded"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tb := tools{list: []tool.Tool{spec("noop")}, call: func(context.Context, tool.Call) tool.Result { return tool.Result{Content: "ok"} }}
			f := newFixture(t, tc.lines, tb)
			f.runner.Budget = tc.budget
			_, err := f.runner.Run(context.Background(), Request{ParentSessionID: f.root.ID(), Prompt: "go"}, nil)
			var e *Error
			if !errors.As(err, &e) || e.Kind != ErrBudget || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a budget error with %q", err, tc.want)
			}
		})
	}
}

func TestRunCancelledWhileToolRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []string{`{"toolCalls":[{"id":"w","name":"wait","args":{}}]}`}, todoTools())
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() { <-started; cancel() }()
	res, err := f.runner.Run(ctx, Request{ParentSessionID: f.root.ID(), Prompt: "go"}, func(line string) {
		if strings.Contains(line, "→ wait") {
			once.Do(func() { close(started) })
		}
	})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrCancelled {
		t.Fatalf("err = %v, want cancelled", err)
	}
	child, err := f.store.Open(res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	turns := child.Turns()
	if len(turns) != 1 || turns[0].Reason != event.ReasonCancelled {
		t.Errorf("child turns = %+v, want one cancelled", turns)
	}
}

func TestRunConcurrencyCap(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	running, peak := 0, 0
	tb := tools{list: []tool.Tool{spec("noop")}, call: func(context.Context, tool.Call) tool.Result {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return tool.Result{Content: "ok"}
	}}
	lines := []string{}
	for range 4 {
		lines = append(lines, `{"toolCalls":[{"id":"x","name":"noop","args":{}}]}`, `{"text":"done"}`)
	}
	f := newFixture(t, lines, tb)
	f.runner.MaxConcurrent = 2
	// Each child plays its own two lines: give every child its own script.
	f.runner.Loop = func(string) (*agent.Loop, error) {
		m, err := script.Load(strings.NewReader(lines[0] + "\n" + lines[1]))
		return &agent.Loop{Model: m}, err
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.runner.Run(context.Background(), Request{ParentSessionID: f.root.ID(), Prompt: "go"}, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if peak > 2 {
		t.Errorf("%d children ran at once, cap 2", peak)
	}
}

// BenchmarkRunnerChild measures Runner.Run in process, the host's part of
// a subagent call: create the child's session (its log file, fsynced), run
// one turn with a script model that answers at once, close it. It leaves
// out the plugin→host round trip (the subagent plugin and
// HostServices.SpawnSubagent): BenchmarkSubagentCall in cmd/harness
// measures the whole call.
func BenchmarkRunnerChild(b *testing.B) {
	st := &session.Store{Dir: b.TempDir()}
	root, err := st.Create(session.CreateOptions{Cwd: "/project"})
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	line := `{"text":"answer","usage":{"input":10,"output":2}}` + "\n"
	r := &Runner{Store: st, Loop: func(string) (*agent.Loop, error) {
		m, err := script.Load(strings.NewReader(line))
		return &agent.Loop{Model: m}, err
	}}
	req := Request{ParentSessionID: root.ID(), Prompt: "go"}
	var times []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := r.Run(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}

// router is a model that hands each request to the script of its kind:
// which session asks (by its first user message) and whether it starts
// (last message from the user) or continues after a tool result. Children
// run concurrently, so one script in request order cannot serve them; each
// kind's script holds identical lines, one per request of that kind.
type router struct {
	scripts map[string]*script.Provider // by "<first user text>/<last role>"
}

func (r router) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	key := req.Messages[0].Text + "/" + string(req.Messages[len(req.Messages)-1].Role)
	p, ok := r.scripts[key]
	if !ok {
		return func(yield func(llm.Chunk, error) bool) { yield(llm.Chunk{}, fmt.Errorf("no script for %q", key)) }
	}
	return p.Stream(ctx, req)
}

func repeat(t *testing.T, n int, line string) *script.Provider {
	t.Helper()
	p, err := script.Load(strings.NewReader(strings.Repeat(line+"\n", n)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNestedFanOut: at depth 2 a root fans out to MaxConcurrent children in
// one step and each child delegates once more. The children hold their
// slots while they wait for the grandchildren; with one pool per root that
// was a deadlock until the wall-time budget. It finishes at once.
func TestNestedFanOut(t *testing.T) {
	t.Parallel()
	const fan = DefaultMaxConcurrent
	var calls []string
	for i := range fan {
		calls = append(calls, fmt.Sprintf(`{"id":"c%d","name":"subagent","args":{"prompt":"delegate"}}`, i))
	}
	model := router{scripts: map[string]*script.Provider{
		"fan out/user":  repeat(t, 1, `{"toolCalls":[`+strings.Join(calls, ",")+`]}`),
		"fan out/tool":  repeat(t, 1, `{"text":"all done","expect":{"lastContains":"leaf answer"}}`),
		"delegate/user": repeat(t, fan, `{"toolCalls":[{"id":"g","name":"subagent","args":{"prompt":"leaf"}}],"expect":{"toolsInclude":["subagent"]}}`),
		"delegate/tool": repeat(t, fan, `{"text":"child got: leaf answer","expect":{"lastContains":"leaf answer"}}`),
		"leaf/user":     repeat(t, fan, `{"text":"leaf answer"}`),
	}}
	st := &session.Store{Dir: t.TempDir()}
	root, err := st.Create(session.CreateOptions{Cwd: "/project"})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	r := &Runner{Store: st, MaxDepth: 2, Budget: Budget{Wall: 20 * time.Second},
		Loop: func(string) (*agent.Loop, error) { return &agent.Loop{Model: model}, nil }}
	var mu sync.Mutex
	var failures []string
	// The children's calls wait until every child is running, as they do
	// when the model takes its time: then all of them hold a slot.
	allRunning := make(chan struct{})
	childCalls := 0
	sub := spec(ToolName)
	sub.ConcurrencySafe = true
	r.Tools = tools{list: []tool.Tool{sub}, call: func(ctx context.Context, c tool.Call) tool.Result {
		var args struct{ Prompt string }
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
			return tool.Result{Content: err.Error(), IsError: true}
		}
		if c.SessionID != root.ID() {
			mu.Lock()
			if childCalls++; childCalls == fan {
				close(allRunning)
			}
			mu.Unlock()
			<-allRunning
		}
		res, err := r.Run(ctx, Request{ParentSessionID: c.SessionID, ParentCallID: c.CallID, Prompt: args.Prompt}, nil)
		if err != nil {
			mu.Lock()
			failures = append(failures, err.Error())
			mu.Unlock()
			return tool.Result{Content: err.Error(), IsError: true}
		}
		return tool.Result{Content: res.Text}
	}}
	loop := &agent.Loop{Model: model, Tools: r.Tools}
	t0 := time.Now()
	out := loop.Run(context.Background(), root, event.Text("fan out"), nil)
	took := time.Since(t0)
	if out.Reason != event.ReasonCompleted || out.Text != "all done" {
		t.Errorf("root turn ended %s (%v) with %q, want completed with the children's answers", out.Reason, out.Err, out.Text)
	}
	if len(failures) > 0 {
		t.Errorf("subagents failed: %v", failures)
	}
	if took > 10*time.Second {
		t.Errorf("the fan-out took %s", took)
	}
	list, err := st.List()
	if err != nil || len(list) != 1+fan+fan {
		t.Errorf("%d sessions (%v), want the root, %d children and %d grandchildren", len(list), err, fan, fan)
	}
}
