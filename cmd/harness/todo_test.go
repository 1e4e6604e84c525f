package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/llm/script"
	"github.com/harness-dev/harness/host/mcpclient"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/host/toolbox"
	"github.com/harness-dev/harness/internal/logtest"
)

// todoLine is a script line calling todo_write with the given list.
func todoLine(id, todos string) string {
	return `{"toolCalls":[{"id":"` + id + `","name":"todo_write","args":{"todos":` + todos + `}}]}`
}

// TestTodoFullLoop runs the real loop, the real todo plugin process and a
// real log: a todo_write lands in the log, a second replaces it, and a new
// process (the second harness run) rebuilds the list from the log.
func TestTodoFullLoop(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t), "HARNESS_PROVIDER": "script"}
	env["HARNESS_SCRIPT"] = writeScript(t,
		todoLine("w1", `[{"content":"  write the test ","status":"in_progress"},{"content":"fix it","status":"pending"}]`),
		`{"text":"Planned.","expect":{"lastRole":"tool","lastContains":"Updated todo list: 1 pending, 1 in progress, 0 completed."}}`)
	code, out, errOut := harness(t, env, "run", "plan the fix")
	if code != 0 {
		t.Fatalf("turn 1: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "[~] write the test") || !strings.Contains(out, "[ ] fix it") {
		t.Errorf("the checklist is not shown:\n%s", out)
	}
	evs, _ := logtest.ReadLog(t, state)
	id := evs[0]["id"].(string)
	var call map[string]any
	for _, e := range evs {
		if e["type"] == "tool/call" {
			call = e["data"].(map[string]any)
		}
	}
	plugin, _ := call["plugin"].(map[string]any)
	if plugin["name"] != "todo" || len(plugin["sha256"].(string)) != 64 || plugin["pid"].(float64) <= 0 {
		t.Errorf("tool/call does not name the plugin that served it: %v", call)
	}

	env["HARNESS_SCRIPT"] = writeScript(t,
		todoLine("w2", `[{"content":"write the test","status":"completed"},{"content":"fix it","status":"in_progress"}]`),
		`{"text":"Moving on.","expect":{"lastRole":"tool","lastContains":"0 pending, 1 in progress, 1 completed"}}`)
	if code, out, errOut := harness(t, env, "run", "--session", id, "go on"); code != 0 {
		t.Fatalf("turn 2: exit %d\n%s\n%s", code, out, errOut)
	}

	st := &session.Store{Dir: state + "/sessions"}
	s, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []event.Todo{{Content: "write the test", Status: event.TodoCompleted}, {Content: "fix it", Status: event.TodoInProgress}}
	if diff := cmp.Diff(want, s.Todos()); diff != "" {
		t.Errorf("todo list rebuilt from the log (-want +got):\n%s", diff)
	}
}

// TestTodoSurvivesPluginRestart kills the todo plugin between two calls:
// the list lives in the log, so it is intact, and the next call starts a
// new plugin process and works.
func TestTodoSurvivesPluginRestart(t *testing.T) {
	t.Parallel()
	model, err := script.Load(strings.NewReader(strings.Join([]string{
		todoLine("w1", `[{"content":"a","status":"in_progress"}]`),
		`{"text":"ok"}`,
		todoLine("w2", `[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"}]`),
		`{"text":"ok","expect":{"lastRole":"tool","lastContains":"Updated todo list: 0 pending, 1 in progress, 1 completed."}}`,
	}, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	h, s, stderr := termSession(t, testPlugins(t), model)
	ctx := context.Background()
	if code, err := h.term.Turn(ctx, h.Runtime, s, "one"); code != exitOK {
		t.Fatalf("turn 1: %d %v\n%s", code, err, stderr.String())
	}
	todoPID := func() int {
		for _, tl := range h.Tools() {
			if tl.Spec.Name == "todo_write" {
				return tl.Plugin.PID
			}
		}
		t.Fatal("no todo_write tool")
		return 0
	}
	todoRunning := func() bool {
		for _, p := range h.Plugins() {
			if p.Name == "todo" {
				return p.Status == toolbox.StatusRunning
			}
		}
		return false
	}
	pid := todoPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Between two calls there is at least a model round trip; wait until
	// the host has seen the process go, as it would have by then.
	for deadline := time.Now().Add(10 * time.Second); todoRunning(); {
		if time.Now().After(deadline) {
			t.Fatal("the host never noticed the plugin died")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if diff := cmp.Diff([]event.Todo{{Content: "a", Status: event.TodoInProgress}}, s.Todos()); diff != "" {
		t.Errorf("todo list after the plugin died (-want +got):\n%s", diff)
	}
	if code, err := h.term.Turn(ctx, h.Runtime, s, "two"); code != exitOK {
		t.Fatalf("turn 2 after the kill: %d %v\n%s", code, err, stderr.String())
	}
	if got := todoPID(); got == pid {
		t.Errorf("the plugin was not restarted (pid %d)", got)
	}
	if got := s.Todos(); len(got) != 2 || got[1].Status != event.TodoInProgress {
		t.Errorf("todo list after the second call = %v", got)
	}
}

// termSession starts the terminal front end on model with the plugins of
// dir, as `harness run` does, and opens a new session; both are closed
// when the test ends. stderr collects what turns print there.
func termSession(t *testing.T, dir string, model agent.Model) (h *app, s *session.Session, stderr *strings.Builder) {
	t.Helper()
	c := &config{Provider: "script", MaxSteps: 10, LogLevel: "error", StateDir: t.TempDir(), PluginDir: dir,
		SubagentDepth: 1, SubagentSteps: 10, SubagentTime: time.Minute, MCPStartTimeout: mcpclient.DefaultStartTimeout}
	stderr = &strings.Builder{}
	std := stdio{in: strings.NewReader(""), out: &strings.Builder{}, err: stderr}
	h, err := newTermApp(c, func(string) (string, bool) { return "", false }, std, model)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.StartTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s, err = h.OpenOrCreateSession("", ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.CloseSession(s) })
	return h, s, stderr
}
