package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/harness-dev/harness/host/event"
	"github.com/harness-dev/harness/host/tool"
)

// countingSession counts how a turn appends tools' events.
type countingSession struct {
	*memSession
	raw, proposed int
}

func (s *countingSession) AppendRaw(t event.Type, data json.RawMessage) (event.Event, error) {
	s.raw++
	return s.memSession.AppendRaw(t, data)
}

func (s *countingSession) AppendProposed(p event.Proposed) (event.Event, error) {
	s.proposed++
	return s.memSession.AppendProposed(p)
}

// TestCheckedEventsNotCheckedAgain: an event its source checked
// (tool.Checked, as the toolbox makes every plugin's) is appended with
// AppendProposed, which does not check it again; one built from its
// fields goes through AppendRaw, which does; one whose fields were
// changed after the check counts as unchecked.
func TestCheckedEventsNotCheckedAgain(t *testing.T) {
	t.Parallel()
	p, err := event.Propose("demo/note", json.RawMessage(`{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	changed := tool.Checked(p)
	changed.Data = json.RawMessage(`{"n":2}`)
	tb := &fakeToolbox{tools: []Tool{mkTool("t", false)}, call: func(context.Context, Call) Result {
		return Result{Content: "ok", Events: []Emitted{tool.Checked(p), {Type: "demo/note", Data: json.RawMessage(`{"n":3}`)}, changed}}
	}}
	model := newScript(t, toolLine("", "c1:t"), `{"text":"done"}`)
	s := &countingSession{memSession: newMemSession()}
	out := (&Loop{Model: model, Tools: tb}).Run(context.Background(), s, event.Text("go"), nil)
	if out.Reason != event.ReasonCompleted {
		t.Fatalf("outcome %+v", out)
	}
	if s.proposed != 1 || s.raw != 2 {
		t.Errorf("appended %d checked and %d unchecked events, want 1 and 2", s.proposed, s.raw)
	}
}
