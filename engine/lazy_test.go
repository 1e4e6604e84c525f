//go:build linux

package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness-dev/harness/engine"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/permission"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/internal/logtest"
)

// TestPluginsLifecycle drives the real loop with the real plugins: no
// plugin runs before a call; the first turn's calls start todo and bash
// only, and every tool/call names the process that served it (started
// while the model answered); once the turn is over and the plugins idle,
// todo stops while bash, which holds a background task of the session,
// stays; the next turn's call starts todo again and succeeds; once the
// session is closed, bash stops too.
func TestPluginsLifecycle(t *testing.T) {
	t.Parallel()
	model, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"c1","name":"todo_write","args":{"todos":[{"content":"wait","status":"in_progress"}]}},{"id":"c2","name":"bash","args":{"command":"sleep 60","description":"Wait","run_in_background":true}}]}`,
		`{"text":"Started.","expect":{"lastRole":"tool"}}`,
		`{"toolCalls":[{"id":"c3","name":"todo_write","args":{"todos":[{"content":"wait","status":"completed"}]}}]}`,
		`{"text":"Done.","expect":{"lastRole":"tool","lastContains":"1 completed"}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	const idle = 300 * time.Millisecond
	rt, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: model, ModelName: "script",
		MaxSteps: 10, PluginIdle: idle, Policy: permission.Policy{Mode: permission.ModeAllowAll}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ctx := context.Background()
	if err := rt.StartTools(ctx); err != nil {
		t.Fatal(err)
	}
	info := func(name string) toolbox.PluginInfo {
		for _, p := range rt.Plugins() {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no plugin %s", name)
		return toolbox.PluginInfo{}
	}
	for _, p := range rt.Plugins() {
		if p.Status != toolbox.StatusNotStarted || p.PID != 0 {
			t.Errorf("before any call: %+v, want not started", p)
		}
	}
	s, err := rt.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			rt.CloseSession(s)
		}
	}()
	if out := rt.Run(ctx, s, nil, event.Text("start"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 1: %s %v", out.Reason, out.Err)
	}
	todo1, bash := info("todo"), info("bash")
	if todo1.PID == 0 || bash.PID == 0 {
		t.Fatalf("after turn 1: todo %+v, bash %+v, want both running", todo1, bash)
	}
	for _, name := range []string{"fs", "subagent"} {
		if p := info(name); p.Status != toolbox.StatusNotStarted {
			t.Errorf("%s was never called but is %s", name, p.Status)
		}
	}
	evs, _ := logtest.ReadLog(t, state)
	for _, e := range evs {
		if e["type"] != "tool/call" {
			continue
		}
		d, _ := e["data"].(map[string]any)
		p, _ := d["plugin"].(map[string]any)
		pid, _ := p["pid"].(float64)
		want := map[string]int{"todo_write": todo1.PID, "bash": bash.PID}[d["name"].(string)]
		if int(pid) != want || want == 0 {
			t.Errorf("tool/call %v names pid %v, want %d (the process that served it)", d["callId"], p["pid"], want)
		}
	}

	deadline := time.Now().Add(10 * time.Second)
	for alive(todo1.PID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(todo1.PID) {
		t.Fatalf("todo (pid %d) still runs 10 s after it went idle (idle time %s)", todo1.PID, idle)
	}
	time.Sleep(3 * idle)
	if !alive(bash.PID) {
		t.Fatalf("bash (pid %d) was stopped while it held a background task", bash.PID)
	}

	if out := rt.Run(ctx, s, nil, event.Text("finish"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn 2: %s %v", out.Reason, out.Err)
	}
	if todo2 := info("todo"); todo2.PID == todo1.PID || todo2.Err != "" {
		t.Errorf("turn 2's todo: %+v, want a new process (pid %d stopped when idle)", todo2, todo1.PID)
	}

	closed = true
	if err := rt.CloseSession(s); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for alive(bash.PID) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(bash.PID) {
		t.Errorf("bash (pid %d) still runs 10 s after its session closed", bash.PID)
	}
}

// TestSubagentChildStartsPlugins: a child session's steps start the
// plugins they call the way a session's turn does, so the child's
// tool/call names the process that served it (not pid 0), with no plugin
// running before the parent's first call.
func TestSubagentChildStartsPlugins(t *testing.T) {
	t.Parallel()
	model, err := script.Load(strings.NewReader(strings.Join([]string{
		`{"toolCalls":[{"id":"p1","name":"subagent","args":{"description":"plan","prompt":"write the plan"}}]}`,
		`{"toolCalls":[{"id":"k1","name":"todo_write","args":{"todos":[{"content":"plan","status":"in_progress"}]}}],"expect":{"lastRole":"user","lastContains":"write the plan"}}`,
		`{"text":"Planned.","expect":{"lastRole":"tool"}}`,
		`{"text":"Done.","expect":{"lastRole":"tool","lastContains":"Planned."}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	rt, err := engine.New(engine.Config{StateDir: state, PluginDirs: []string{pluginDir}, Model: model, ModelName: "script",
		MaxSteps: 10, Policy: permission.Policy{Mode: permission.ModeAllowAll}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	ctx := context.Background()
	if err := rt.StartTools(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := rt.CreateSession(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseSession(s)
	if out := rt.Run(ctx, s, nil, event.Text("delegate"), nil, nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn: %s %v", out.Reason, out.Err)
	}
	pids := map[string]int{}
	for _, p := range rt.Plugins() {
		pids[p.Name] = p.PID
	}
	files, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl"))
	calls := 0
	for _, f := range files {
		for _, e := range logtest.ReadJSONL(t, f) {
			if e["type"] != "tool/call" {
				continue
			}
			calls++
			d, _ := e["data"].(map[string]any)
			p, _ := d["plugin"].(map[string]any)
			pid, _ := p["pid"].(float64)
			want := map[string]int{"subagent": pids["subagent"], "todo_write": pids["todo"]}[d["name"].(string)]
			if want == 0 || int(pid) != want {
				t.Errorf("%s: tool/call %v names pid %v, want %d (the process that served it)", filepath.Base(f), d["name"], p["pid"], want)
			}
		}
	}
	if calls != 2 {
		t.Fatalf("%d tool/call events in %d logs, want 2 (the parent's subagent, the child's todo_write)", calls, len(files))
	}
}
