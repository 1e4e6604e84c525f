package subagent

import (
	"context"
	"strings"
	"testing"

	"github.com/harness-dev/harness/host/agent"
	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
)

// TestChildCompacts: a child session whose tool results outgrow its
// window compacts mid-turn in its own log, as a root session does, and
// still answers; the parent's log holds no compaction.
func TestChildCompacts(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("result line of a long tool output\n", 60) // ~2 KB, ~700 tokens
	tb := tools{list: []tool.Tool{spec("read")}, call: func(context.Context, tool.Call) tool.Result {
		return tool.Result{Content: big}
	}}
	lines := []string{
		`{"toolCalls":[{"id":"r1","name":"read"}]}`,
		`{"toolCalls":[{"id":"r2","name":"read"}]}`,
		`{"toolCalls":[{"id":"r3","name":"read"}]}`,
		`{"when":{"lastContains":"<transcript>"},"text":"Read three long outputs.","expect":{"maxTokens":2000}}`,
		`{"text":"Done reading.","expect":{"maxTokens":2000,"contains":["Read three long outputs.","Look at the files."]}}`,
	}
	f := newFixture(t, lines, tb)
	model := f.model
	f.runner.Loop = func(string) (*agent.Loop, error) {
		return &agent.Loop{Model: model, ModelName: "script", ContextWindow: 2000}, nil
	}
	res, err := f.runner.Run(context.Background(), Request{ParentSessionID: f.root.ID(), ParentCallID: "p1",
		Description: "read", Prompt: "Look at the files."}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Done reading." {
		t.Fatalf("child answered %q", res.Text)
	}
	child, err := f.store.Open(res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	n := 0
	for _, ev := range child.Events() {
		if ev.Type == event.TypeCompact {
			n++
		}
	}
	if n == 0 {
		t.Error("the child did not compact")
	}
	for _, ev := range f.root.Events() {
		if ev.Type == event.TypeCompact {
			t.Error("the parent's log holds a compaction")
		}
	}
}
