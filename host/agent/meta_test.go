package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harness-dev/harness/host/event"
)

// previewToolbox is a fakeToolbox that previews calls.
type previewToolbox struct {
	*fakeToolbox
	preview func(c Call) Meta
	seen    []string // what the approver had seen logged when asked
}

// Step implements Tools: a fakeToolbox's step that previews with p.preview.
func (p *previewToolbox) Step(ctx context.Context, info StepInfo) (Step, error) {
	st, err := p.fakeToolbox.Step(ctx, info)
	st.(*fakeStep).preview = p.preview
	return st, err
}

// TestPreviewLogged: the tool/call carries the tool's kind and what the
// preview said, logged before the approver is asked; the tool/result
// carries the result's meta, without diffs equal to the preview's; an
// oversized diff is not logged.
func TestPreviewLogged(t *testing.T) {
	t.Parallel()
	_, s := realSession(t)
	diff := event.Diff{Path: "/w/a.go", OldText: "a\n", NewText: "b\n"}
	big := event.Diff{Path: "/w/big", OldText: strings.Repeat("x", maxDiffBytes), NewText: "y"}
	tb := &previewToolbox{fakeToolbox: okTools("edit")}
	tb.tools[0].Kind = "edit"
	tb.tools[0].NeedsPermission = true
	tb.preview = func(c Call) Meta {
		return Meta{Title: "Edit a.go\nsecond line", Locations: []event.Location{{Path: "/w/a.go", Line: 3}}, Diffs: []event.Diff{diff, big}}
	}
	tb.call = func(context.Context, Call) Result {
		return Result{Content: "Edited.", Meta: Meta{Title: "Edit a.go", Locations: []event.Location{{Path: "/w/a.go", Line: 3}}, Diffs: []event.Diff{diff}}}
	}
	ap := &funcApprover{fn: func(_ context.Context, req ApprovalRequest) (Approval, error) {
		for _, e := range s.Events() {
			if e.Type == event.TypeToolCall {
				p, _ := e.Decode()
				tb.seen = append(tb.seen, p.(event.ToolCall).Title)
			}
		}
		return Approval{Decision: event.AllowOnce, Source: "user"}, nil
	}}
	l := &Loop{Model: newScript(t, toolLine("", "c1:edit"), `{"text":"done"}`), Tools: tb, Approver: ap}
	if out := l.Run(context.Background(), s, event.Text("go"), nil); out.Reason != event.ReasonCompleted {
		t.Fatalf("turn: %+v", out)
	}
	var call event.ToolCall
	var res event.ToolResult
	for _, e := range s.Events() {
		p, err := e.Decode()
		if err != nil {
			continue
		}
		switch p := p.(type) {
		case event.ToolCall:
			call = p
		case event.ToolResult:
			res = p
		}
	}
	want := event.ToolCall{Turn: 1, Step: 1, CallID: "c1", Name: "edit", Args: `{"n":1}`, Kind: "edit",
		Title: "Edit a.go second line", Locations: []event.Location{{Path: "/w/a.go", Line: 3}}, Diffs: []event.Diff{diff}}
	if d := cmp.Diff(want, call); d != "" {
		t.Errorf("tool/call (-want +got):\n%s", d)
	}
	if !cmp.Equal(tb.seen, []string{"Edit a.go second line"}) {
		t.Errorf("the approver saw tool/calls %q, want the previewed one", tb.seen)
	}
	wantRes := event.ToolResult{Turn: 1, Step: 1, CallID: "c1", Content: "Edited.", Title: "Edit a.go",
		Locations: []event.Location{{Path: "/w/a.go", Line: 3}}}
	if d := cmp.Diff(wantRes, res); d != "" {
		t.Errorf("tool/result (-want +got):\n%s", d)
	}
}
