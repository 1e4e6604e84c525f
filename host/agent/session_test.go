package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/session"
)

// These tests drive the loop against the real session log on disk, then
// reopen it in a fresh Session as a restarted host would.

func realSession(t testing.TB) (*session.Store, *session.Session) {
	t.Helper()
	st := &session.Store{Dir: t.TempDir()}
	s, err := st.Create(session.CreateOptions{Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return st, s
}

func reopen(t *testing.T, st *session.Store, s *session.Session) *session.Session {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := st.Open(s.ID())
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestLoopRealSession(t *testing.T) {
	t.Parallel()
	st, s := realSession(t)
	model, err := script.Load(strings.NewReader(strings.Join([]string{
		toolLine("Planning.", "a:plan", "b:look", "c:look"),
		`{"text":"All done.","expect":{"lastRole":"tool"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	// b and c are safe and overlap: each waits for the other to start, and
	// c finishes first. a (unsafe) proposes a todo/write.
	var started sync.WaitGroup
	started.Add(2)
	release := make(chan struct{})
	plan := mkTool("plan", false)
	plan.Plugin = &event.Plugin{Name: "planner", Version: "1.2.3", SHA256: "feed", PID: 7}
	tb := &fakeToolbox{
		tools: []Tool{plan, mkTool("look", true)},
		call: func(ctx context.Context, c Call) Result {
			switch c.CallID {
			case "a":
				return Result{Content: "planned", Events: []Emitted{{Type: event.TypeTodoWrite,
					Data: json.RawMessage(`{"todos":[{"content":"look around","status":"in_progress"}]}`)}}}
			case "b":
				started.Done()
				<-release
				return Result{Content: "b saw"}
			default:
				started.Done()
				started.Wait()
				close(release)
				return Result{Content: "c saw"}
			}
		},
	}
	out := (&Loop{Model: model, Tools: tb}).Run(context.Background(), s, event.Text("go"), nil)
	if out.Reason != event.ReasonCompleted || out.Text != "All done." {
		t.Fatalf("outcome = %+v", out)
	}
	var results []string
	for _, ev := range s.Events() {
		switch p, _ := ev.Decode(); p := p.(type) {
		case event.ToolResult:
			results = append(results, p.CallID)
		case event.ToolCall:
			var want *event.Plugin
			if p.Name == "plan" {
				want = plan.Plugin
			}
			if diff := cmp.Diff(want, p.Plugin); diff != "" {
				t.Errorf("tool/call %s plugin (-want +got):\n%s", p.CallID, diff)
			}
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, results); diff != "" {
		t.Errorf("results not in model order (-want +got):\n%s", diff)
	}

	live := s.Messages()
	r := reopen(t, st, s)
	if diff := cmp.Diff(live, r.Messages()); diff != "" {
		t.Errorf("messages rebuilt from the log differ (-live +reopened):\n%s", diff)
	}
	if diff := cmp.Diff([]event.Todo{{Content: "look around", Status: event.TodoInProgress}}, r.Todos()); diff != "" {
		t.Errorf("todos after reopen (-want +got):\n%s", diff)
	}
	if r.Recovery().InterruptedTurn != 0 {
		t.Errorf("a completed turn was repaired on reopen: %+v", r.Recovery())
	}
}

func TestLoopRealSessionCancelMidTool(t *testing.T) {
	t.Parallel()
	st, s := realSession(t)
	model, err := script.Load(strings.NewReader(toolLine("", "a:wait", "b:wait")))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tb := &fakeToolbox{tools: []Tool{mkTool("wait", false)}, call: func(ctx context.Context, c Call) Result {
		cancel() // the user stops the turn while this tool runs
		<-ctx.Done()
		return Result{Content: "stopped", IsError: true}
	}}
	out := (&Loop{Model: model, Tools: tb}).Run(ctx, s, event.Text("go"), nil)
	if out.Reason != event.ReasonCancelled || out.Err != nil {
		t.Fatalf("outcome = %+v, want cancelled without error", out)
	}
	r := reopen(t, st, s)
	evs := r.Events()
	last, _ := evs[len(evs)-1].Decode()
	if te, ok := last.(event.TurnEnd); !ok || te.Reason != event.ReasonCancelled {
		t.Errorf("last event = %#v, want turn/end cancelled", last)
	}
	msgs := r.Messages()
	var tools int
	for _, m := range msgs {
		if m.Role == "tool" {
			tools++
			if !m.IsError || !strings.Contains(m.Text, "cancelled") {
				t.Errorf("tool message %+v, want a cancelled error", m)
			}
		}
	}
	if tools != 2 {
		t.Errorf("%d tool results in the history, want 2 (every call answered)", tools)
	}
}
