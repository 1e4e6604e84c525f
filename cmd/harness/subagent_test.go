package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/session"
	"github.com/harness-dev/harness/internal/logtest"
)

// TestSubagentFullLoop: the parent calls subagent through the real plugin;
// the host runs a child session whose scripted model calls todo_write (the
// real todo plugin) and answers; the parent gets the answer. The child's
// log names its parent and holds the todo list; the parent's does not.
func TestSubagentFullLoop(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	// One script serves parent and child in the order of their requests.
	script := writeScript(t,
		`{"toolCalls":[{"id":"sa1","name":"subagent","args":{"description":"count the files","prompt":"Count the files and answer with the number."}}],"expect":{"toolsInclude":["subagent","todo_write"]}}`,
		`{"toolCalls":[{"id":"t1","name":"todo_write","args":{"todos":[{"content":"count","status":"in_progress"}]}}],"usage":{"input":100,"output":10},"expect":{"lastRole":"user","lastContains":"Count the files"}}`,
		`{"text":"There are 7 files.","usage":{"input":120,"output":6},"expect":{"lastRole":"tool","lastContains":"Updated todo list"}}`,
		`{"text":"The subagent counted 7 files.","expect":{"lastRole":"tool","lastContains":"There are 7 files."}}`,
	)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script}
	code, out, errOut := harness(t, env, "run", "how many files?")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "[count the files] → todo_write") {
		t.Errorf("the child's progress is not shown live:\n%s", out)
	}
	st := &session.Store{Dir: filepath.Join(state, "sessions")}
	list, err := st.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions = %v, %v; want parent and child", list, err)
	}
	var parent, child session.Summary
	for _, s := range list {
		if s.Parent == "" {
			parent = s
		} else {
			child = s
		}
	}
	if child.Parent != parent.ID {
		t.Fatalf("child %s names parent %q, want %s", child.ID, child.Parent, parent.ID)
	}
	cs, err := st.Open(child.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.Todos(); len(got) != 1 || got[0].Status != event.TodoInProgress {
		t.Errorf("child todos = %v", got)
	}
	ps, err := st.Open(parent.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	if ps.Todos() != nil {
		t.Errorf("the parent holds the child's todo list: %v", ps.Todos())
	}
	var result string
	for _, m := range ps.Messages() {
		if m.Role == "tool" {
			result = m.Text
		}
	}
	for _, want := range []string{"There are 7 files.", "[subagent session " + child.ID, "220 input, 16 output tokens"} {
		if !strings.Contains(result, want) {
			t.Errorf("the parent's tool result lacks %q:\n%s", want, result)
		}
	}
	code, out, _ = harness(t, env, "sessions")
	if code != 0 || !strings.Contains(out, "  "+child.ID) {
		t.Errorf("harness sessions does not show the child under its parent:\n%s", out)
	}
}

// TestSubagentsInParallel: two subagent calls in one step run as two child
// sessions; the parent gets both answers, logged in the model's order.
func TestSubagentsInParallel(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	child := `{"text":"child done","expect":{"lastRole":"user"}}`
	script := writeScript(t,
		`{"toolCalls":[{"id":"sa1","name":"subagent","args":{"description":"first","prompt":"Do the first part."}},{"id":"sa2","name":"subagent","args":{"description":"second","prompt":"Do the second part."}}]}`,
		child, child, // the children ask in either order; both get this answer
		`{"text":"Both are done.","expect":{"lastRole":"tool","lastContains":"child done"}}`,
	)
	env := map[string]string{"HARNESS_STATE_DIR": state, "HARNESS_PLUGIN_DIR": testPlugins(t),
		"HARNESS_PROVIDER": "script", "HARNESS_SCRIPT": script}
	if code, out, errOut := harness(t, env, "run", "split the work"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	evs, _ := logtest.ReadLog(t, state)
	var results []string
	for _, e := range evs {
		if e["type"] == "tool/result" {
			d := e["data"].(map[string]any)
			results = append(results, d["callId"].(string))
			if !strings.Contains(d["content"].(string), "child done") {
				t.Errorf("result %v lacks the child's answer", d)
			}
		}
	}
	if strings.Join(results, ",") != "sa1,sa2" {
		t.Errorf("results in order %v, want sa1,sa2", results)
	}
	if files, _ := filepath.Glob(filepath.Join(state, "sessions", "*.jsonl")); len(files) != 3 {
		t.Errorf("%d session logs, want the parent and two children", len(files))
	}
}
